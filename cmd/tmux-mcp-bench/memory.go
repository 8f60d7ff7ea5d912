package main

import (
	"context"
	"fmt"
	"strings"
)

// memoryRows runs one big command in a server process of its own and reports that process's
// peak RSS after it: 50 MB of output, which streams through the live pane stream and
// the runner's window, and seq 1 100000, whose whole output is kept (588,895 bytes).
func memoryRows(ctx context.Context, bin string, tmx *benchTmux) ([]row, error) {
	var rows []row
	for _, m := range []struct {
		what, command string
		limit         float64
	}{
		{"a 50 MB command", `head -c 50000000 /dev/zero | tr '\0' x | fold -w 99`, 18},
		{"seq 1 100000", "seq 1 100000", 16},
	} {
		out, err := tmx.tmux("new-session", "-d", "-P", "-F", "#{pane_id}", "-e", "PS1=$ ", "bash", "--noprofile", "--norc")
		if err != nil {
			return nil, err
		}
		pane := strings.TrimSpace(out)
		cl, err := connect(ctx, bin, tmx)
		if err != nil {
			return nil, err
		}
		_, err = cl.call(ctx, "run_shell_command", map[string]any{"paneId": pane, "command": m.command, "timeoutMs": 120000})
		rss := float64(cl.peakRSS()) / 1024
		cl.close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.what, err)
		}
		rows = append(rows, row{what: "peak RSS of a server after " + m.what, value: fmt.Sprintf("%.1f MB", rss),
			target: fmt.Sprintf("≤ %.0f MB", m.limit), met: yesNo(rss <= m.limit)})
	}
	return rows, nil
}
