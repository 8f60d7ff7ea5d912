package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// screenshotRows times screenshot_pane beside capture_pane with escape sequences of the same
// pane (the read it draws), on a 120×40 and a 300×100 pane full of coloured text. They run on
// a server process of their own, whose peak RSS is a row of its own: the first screenshot
// costs a server about 4.5 MB for good (fonts, rasterizer, deflate state), and a 300×100 one
// holds its 4 MB image while encoding.
func screenshotRows(ctx context.Context, bin string, tmx *benchTmux, dir string, n int) ([]row, error) {
	cl, err := connect(ctx, bin, tmx)
	if err != nil {
		return nil, err
	}
	defer cl.close()
	var rows []row
	for _, sz := range []struct {
		cols, rows int
		target     time.Duration
		maxBytes   int
	}{{120, 40, 20 * time.Millisecond, 80_000}, {300, 100, 100 * time.Millisecond, 0}} {
		pane, err := tmx.busyPane(dir, sz.cols, sz.rows)
		if err != nil {
			return nil, err
		}
		var size int
		shot, err := timeSamples(2, n, func() error {
			res, err := cl.call(ctx, "screenshot_pane", map[string]any{"pane_id": pane})
			if err != nil {
				return err
			}
			var out struct{ Bytes int }
			b, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(b, &out); err != nil {
				return err
			}
			size = out.Bytes
			return nil
		})
		if err != nil {
			return nil, err
		}
		capture, err := cl.timeCalls(ctx, "capture_pane", map[string]any{"pane_id": pane, "escape_sequences": true}, n)
		if err != nil {
			return nil, err
		}
		target := fmt.Sprintf("≤ %v", sz.target)
		met := shot.pct(0.5) <= sz.target
		if sz.maxBytes > 0 {
			target += fmt.Sprintf(", PNG ≤ %d KB", sz.maxBytes/1000)
			met = met && size <= sz.maxBytes
		}
		rows = append(rows, row{what: fmt.Sprintf("screenshot_pane %d×%d, PNG %d KB (n=%d)", sz.cols, sz.rows, (size+500)/1000, n), value: stat(shot),
			floor: "capture_pane escape_sequences " + stat(capture), ratio: ratio(shot, capture), target: target, met: yesNo(met)})
	}
	rss := float64(cl.peakRSS()) / 1024
	rows = append(rows, row{what: "peak RSS of a server after these screenshots", value: fmt.Sprintf("%.1f MB", rss), target: "(the row below is the benchmark's server)"})
	return rows, nil
}

// busyPane starts a detached session of cols × rows whose pane shows a screen as full as a
// TUI's (every row coloured words) and keeps it, and returns the pane's id.
func (t *benchTmux) busyPane(dir string, cols, rows int) (string, error) {
	words := []string{"\x1b[32mok\x1b[0m", "\x1b[1;31mFAIL\x1b[0m", "src/main.go:42", "\x1b[38;5;208mwarning\x1b[39m", "\x1b[48;2;40;40;90m sel \x1b[49m", "│", "func", "return", "err", "\x1b[4mlink\x1b[24m"}
	var b strings.Builder
	for y := 0; y < rows-1; y++ {
		for i, n := y, 0; n < cols-16; i++ {
			w := words[i%len(words)]
			b.WriteString(w + " ")
			n += len([]rune(stripSGR(w))) + 1
		}
		b.WriteString("\r\n")
	}
	file := filepath.Join(dir, fmt.Sprintf("busy%dx%d", cols, rows))
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		return "", err
	}
	out, err := t.tmux("new-session", "-d", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows), "-P", "-F", "#{pane_id}",
		"sh", "-c", "cat '"+file+"'; exec sleep 100000")
	if err != nil {
		return "", err
	}
	pane := strings.TrimSpace(out)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if screen, _ := t.tmux("capture-pane", "-p", "-t", pane); strings.Count(screen, "FAIL") > rows/4 {
			return pane, nil
		}
	}
	return "", fmt.Errorf("the %dx%d pane did not show its screen", cols, rows)
}

// stripSGR removes SGR sequences (to count a word's cells).
func stripSGR(s string) string {
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			return s
		}
		j := strings.IndexByte(s[i:], 'm')
		s = s[:i] + s[i+j+1:]
	}
}
