package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Sizes of the spec's rows at scale (spec/quality.md).
const (
	manyPanes    = 1000 // list_panes over this many panes
	searchPanes  = 200  // search_panes over this many panes...
	searchLines  = 2000 // ...each with this many lines of history
	scaleSamples = 15
)

// scaleRows measures list_panes over 1,000 panes and search_panes over 200 panes × 2,000 lines of
// history, on a tmux server of their own, each next to tmux's own cost of the same read over a
// bare control-mode client.
func scaleRows(ctx context.Context, bin, dir string) ([]row, error) {
	dir = filepath.Join(dir, "scale")
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, err
	}
	tmx, err := newTmux(dir)
	if err != nil {
		return nil, err
	}
	defer tmx.kill()
	floor, err := tmx.controlFloor()
	if err != nil {
		return nil, err
	}
	defer floor.close()
	cl, err := connect(ctx, bin, tmx)
	if err != nil {
		return nil, err
	}
	defer cl.close()

	// 1,000 panes: one per window, each a cat waiting on its terminal.
	if err := tmx.fill(floor, manyPanes-1, func(int) string { return "cat" }); err != nil {
		return nil, err
	}
	lp, err := timeSamples(1, scaleSamples, func() error { _, err := cl.call(ctx, "list_panes", map[string]any{}); return err })
	if err != nil {
		return nil, err
	}
	lpFloor, err := timeSamples(1, scaleSamples, func() error {
		return floor.do([]string{"list-panes", "-a", "-F", tmux.PaneFormat()}, []string{"list-clients"})
	})
	if err != nil {
		return nil, err
	}
	rows := []row{{what: fmt.Sprintf("list_panes over %d panes (n=%d)", manyPanes, scaleSamples), value: stat(lp),
		floor: "control-mode list-panes -a " + stat(lpFloor), ratio: ratio(lp, lpFloor), target: "≤ 10 ms", met: yesNo(lp.pct(0.5) <= 10*time.Millisecond)}}

	// 200 panes × 2,000 lines: a fresh session, one window per pane, each printing its history
	// and then waiting; one pane holds the needle.
	if _, err := tmx.tmux("kill-session", "-a", "-t", tmx.session); err != nil {
		return nil, err
	}
	if _, err := tmx.tmux("kill-window", "-a", "-t", tmx.session); err != nil {
		return nil, err
	}
	history := func(i int) string {
		needle := ""
		if i == searchPanes/2 {
			needle = "; echo 'the NEEDLE 77'"
		}
		return fmt.Sprintf(`sh -c "seq -f 'line %%g of the history' %d%s; exec cat"`, searchLines, needle)
	}
	if _, err := tmx.tmux("respawn-pane", "-k", "-t", tmx.pane, history(0)); err != nil {
		return nil, err
	}
	if err := tmx.fill(floor, searchPanes-1, func(i int) string { return history(i + 1) }); err != nil {
		return nil, err
	}
	ids, err := tmx.waitHistory(searchPanes, searchLines-100)
	if err != nil {
		return nil, err
	}
	args := map[string]any{"pattern": `NEEDLE \d+`, "regex": true, "match_case": true, "content_start": -searchLines}
	sp, err := timeSamples(1, scaleSamples/2, func() error { _, err := cl.call(ctx, "search_panes", args); return err })
	if err != nil {
		return nil, err
	}
	captures := make([][]string, len(ids))
	for i, id := range ids {
		captures[i] = []string{"capture-pane", "-p", "-J", "-S", strconv.Itoa(-searchLines), "-t", id}
	}
	spFloor, err := timeSamples(1, scaleSamples/2, func() error { return floor.do(captures...) })
	if err != nil {
		return nil, err
	}
	rows = append(rows, row{what: fmt.Sprintf("search_panes over %d panes × %d lines (n=%d)", searchPanes, searchLines, scaleSamples/2), value: stat(sp),
		floor: "control-mode capture-pane of each " + stat(spFloor), ratio: ratio(sp, spFloor), target: "≤ 150 ms", met: yesNo(sp.pct(0.5) <= 150*time.Millisecond)})
	return rows, nil
}

// fill adds n windows to the session, window i running cmd(i), in command lists of 50.
func (t *benchTmux) fill(floor *ctlFloor, n int, cmd func(i int) string) error {
	for i := 0; i < n; i += 50 {
		var batch [][]string
		for j := i; j < min(i+50, n); j++ {
			batch = append(batch, []string{"new-window", "-d", "-t", t.session + ":", cmd(j)})
		}
		if err := floor.do(batch...); err != nil {
			return fmt.Errorf("creating panes: %w", err)
		}
	}
	return nil
}

// waitHistory waits until n panes hold at least lines lines of history and returns their ids.
func (t *benchTmux) waitHistory(n, lines int) ([]string, error) {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		out, err := t.tmux("list-panes", "-a", "-F", "#{pane_id} #{history_size}")
		if err != nil {
			return nil, err
		}
		var ids []string
		full := 0
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			id, h, _ := strings.Cut(l, " ")
			ids = append(ids, id)
			if v, _ := strconv.Atoi(h); v >= lines {
				full++
			}
		}
		if len(ids) == n && full == n {
			return ids, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("scale: %d of %d panes hold %d lines of history", full, n, lines)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
