package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Sizes of the rows at scale (docs/performance.md, "Fast at any size").
const (
	manyPanes    = 1000 // list_panes over this many panes
	searchPanes  = 200  // search_panes over this many panes...
	searchLines  = 2000 // ...each with this many lines of history
	scaleSamples = 15
)

// paneListFormat is every field of a pane as the engine lists them (tmux/snapshot.go), tmux's
// own cost of which is list_panes' floor.
const paneListFormat = "#{pane_id}␞#{pane_index}␞#{pane_width}␞#{pane_height}␞#{pane_left}␞#{pane_top}␞#{pane_right}␞#{pane_bottom}" +
	"␞#{pane_at_left}␞#{pane_at_right}␞#{pane_at_top}␞#{pane_at_bottom}␞#{n:pane_tty}␞#{pane_tty}␞#{pane_pid}␞#{n:pane_title}␞#{pane_title}" +
	"␞#{pane_active}␞#{pane_dead}␞#{pane_in_mode}␞#{window_id}␞#{window_index}␞#{session_id}␞#{n:session_name}␞#{session_name}" +
	"␞#{pane_current_command}␞#{pane_current_path}"

// scaleRows measures the rows at scale, each on a tmux server of its own and beside tmux's own
// cost of the same read over a bare control-mode client: list_panes over 1,000 panes, a capture
// of one pane's screen on a 1,000-pane server beside the same on a 1-pane server (a call
// costs what its target costs, not what the server holds), and, on 200 panes × 2,000 lines of history, search_panes
// and capture_pane of one pane's 2,000 lines.
func scaleRows(ctx context.Context, bin, dir string) ([]row, error) {
	dir, tmx, err := ownTmux(dir, "scale")
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
	rows, raw, err := listPanesRows(ctx, bin, tmx, floor, cl)
	if raw != nil {
		defer raw.close()
	}
	if err != nil {
		return nil, err
	}
	screen, err := screenRows(bin, dir, tmx, floor, raw)
	if err != nil {
		return nil, err
	}
	rows = append(rows, screen...)
	ids, err := historyPanes(tmx, floor)
	if err != nil {
		return nil, err
	}
	search, err := searchRow(ctx, cl, floor, ids)
	if err != nil {
		return nil, err
	}
	history, err := historyRows(ctx, cl, raw, floor, ids[searchPanes/3])
	if err != nil {
		return nil, err
	}
	return append(append(rows, search), history...), nil
}

// ownTmux starts a tmux server of its own below dir/name.
func ownTmux(dir, name string) (string, *benchTmux, error) {
	dir = filepath.Join(dir, name)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", nil, err
	}
	tmx, err := newTmux(dir)
	return dir, tmx, err
}

// historyOnlyRows measures the capture_pane rows of scaleRows alone (-only history): the same
// 200 panes × 2,000 lines and the same clients, without the 1,000-pane rows and search_panes
// that come before them there, for iterating on that one call.
func historyOnlyRows(ctx context.Context, bin, dir string) ([]row, error) {
	dir, tmx, err := ownTmux(dir, "history")
	if err != nil {
		return nil, err
	}
	defer tmx.kill()
	// The floor client that creates the panes is gone while they print: a control client
	// that does not read holds up the panes' output.
	fill, err := tmx.controlFloor()
	if err != nil {
		return nil, err
	}
	err = startHistory(tmx, fill)
	fill.close()
	if err != nil {
		return nil, err
	}
	ids, err := tmx.waitHistory(searchPanes, searchLines-100)
	if err != nil {
		return nil, err
	}
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
	raw, err := startRaw(bin, tmx)
	if err != nil {
		return nil, err
	}
	defer raw.close()
	return historyRows(ctx, cl, raw, floor, ids[searchPanes/3])
}

// listPanesRows fills tmx with 1,000 panes (one per window, each a cat waiting on its
// terminal) and times list_panes over them by both clients; it returns the bare client, which
// the later rows use too.
func listPanesRows(ctx context.Context, bin string, tmx *benchTmux, floor *ctlFloor, cl *client) ([]row, *rawClient, error) {
	if err := tmx.fill(floor, manyPanes-1, func(int) string { return "cat" }); err != nil {
		return nil, nil, err
	}
	lp, err := timeSamples(1, scaleSamples, func() error { _, err := cl.call(ctx, "list_panes", map[string]any{}); return err })
	if err != nil {
		return nil, nil, err
	}
	lpFloor, err := timeSamples(1, scaleSamples, func() error {
		return floor.do([]string{"list-panes", "-a", "-F", paneListFormat}, []string{"list-clients"})
	})
	if err != nil {
		return nil, nil, err
	}
	raw, err := startRaw(bin, tmx)
	if err != nil {
		return nil, nil, err
	}
	lpBare, err := timeSamples(1, scaleSamples, func() error { return raw.callTool("list_panes") })
	if err != nil {
		return nil, raw, err
	}
	return []row{{what: fmt.Sprintf("list_panes over %d panes, go-sdk client (n=%d)", manyPanes, scaleSamples), value: stat(lp),
		floor: "control-mode list-panes -a " + stat(lpFloor), ratio: ratio(lp, lpFloor)},
		{what: fmt.Sprintf("list_panes over %d panes, bare JSON-RPC client (n=%d)", manyPanes, scaleSamples), value: stat(lpBare),
			floor: "control-mode list-panes -a " + stat(lpFloor), ratio: ratio(lpBare, lpFloor), target: "≤ 35 ms with every field", met: verdict(lpBare.pct(0.5), 35*time.Millisecond, lpFloor.pct(0.5), refListPanes)}}, raw, nil
}

// historyPanes replaces tmx's panes with 200 panes × 2,000 lines: a fresh session, one window
// per pane, each printing its history and then waiting; one pane holds the needle. It returns
// their ids once their history is in.
func historyPanes(tmx *benchTmux, floor *ctlFloor) ([]string, error) {
	if err := startHistory(tmx, floor); err != nil {
		return nil, err
	}
	return tmx.waitHistory(searchPanes, searchLines-100)
}

// startHistory is historyPanes but for the wait: it starts the panes.
func startHistory(tmx *benchTmux, floor *ctlFloor) error {
	if _, err := tmx.tmux("kill-session", "-a", "-t", tmx.session); err != nil {
		return err
	}
	if _, err := tmx.tmux("kill-window", "-a", "-t", tmx.session); err != nil {
		return err
	}
	history := func(i int) string {
		needle := ""
		if i == searchPanes/2 {
			needle = "; echo 'the NEEDLE 77'"
		}
		return fmt.Sprintf(`sh -c "seq -f 'line %%g of the history' %d%s; exec cat"`, searchLines, needle)
	}
	if _, err := tmx.tmux("respawn-pane", "-k", "-t", tmx.pane, history(0)); err != nil {
		return err
	}
	return tmx.fill(floor, searchPanes-1, func(i int) string { return history(i + 1) })
}

// searchRow times search_panes over the panes ids beside a capture of each over control mode.
func searchRow(ctx context.Context, cl *client, floor *ctlFloor, ids []string) (row, error) {
	args := map[string]any{"pattern": `NEEDLE \d+`, "regex": true, "match_case": true, "content_start": -searchLines}
	sp, err := timeSamples(1, scaleSamples/2, func() error { _, err := cl.call(ctx, "search_panes", args); return err })
	if err != nil {
		return row{}, err
	}
	captures := make([][]string, len(ids))
	for i, id := range ids {
		captures[i] = []string{"capture-pane", "-p", "-J", "-S", strconv.Itoa(-searchLines), "-t", id}
	}
	spFloor, err := timeSamples(1, scaleSamples/2, func() error { return floor.do(captures...) })
	if err != nil {
		return row{}, err
	}
	return row{what: fmt.Sprintf("search_panes over %d panes × %d lines (n=%d)", searchPanes, searchLines, scaleSamples/2), value: stat(sp),
		floor: "control-mode capture-pane of each " + stat(spFloor), ratio: ratio(sp, spFloor), target: "≤ 150 ms", met: yesNo(sp.pct(0.5) <= 150*time.Millisecond)}, nil
}

// historyRows times capture_pane of pane one's history by both clients, each call in turn
// with the same capture-pane over control mode.
func historyRows(ctx context.Context, cl *client, raw *rawClient, floor *ctlFloor, one string) ([]row, error) {
	capArgs := map[string]any{"pane_id": one, "start": -searchLines, "max_lines": nil}
	tmuxHistory := func() error {
		return floor.do([]string{"capture-pane", "-p", "-S", strconv.Itoa(-searchLines), "-t", one})
	}
	bareArgs := fmt.Sprintf(`{"pane_id":%q,"start":%d,"max_lines":null}`, one, -searchLines)
	s, err := inTurns(turns,
		func() error { _, err := cl.call(ctx, "capture_pane", capArgs); return err }, tmuxHistory,
		func() error { return raw.callToolWith("capture_pane", bareArgs) }, tmuxHistory)
	if err != nil {
		return nil, err
	}
	cp, cpFloor, cpBare, cpFloor2 := s[0], s[1], s[2], s[3]
	sdk, err := sdkHistoryFloor(ctx, len(cp))
	if err != nil {
		return nil, err
	}
	return []row{
		row{what: fmt.Sprintf("capture_pane of one pane's %d lines, %d-pane server, go-sdk client (n=%d)", searchLines, searchPanes, len(cp)), value: stat(cp),
			floor: "control-mode capture-pane -S " + stat(cpFloor), ratio: ratio(cp, cpFloor)},
		row{floor: "go-sdk server, the same result " + stat(sdk), ratio: ratio(cp, sdk)},
		row{what: fmt.Sprintf("capture_pane of one pane's %d lines, %d-pane server, bare JSON-RPC client (n=%d)", searchLines, searchPanes, len(cpBare)), value: stat(cpBare),
			floor: "control-mode capture-pane -S " + stat(cpFloor2), ratio: ratio(cpBare, cpFloor2), target: "≤ 1.5 ms", met: verdict(cpBare.pct(0.5), 1500*time.Microsecond, cpFloor2.pct(0.5), refHistory)},
		// What tmux-mcp adds to tmux's own capture, each call less the floor read right after it:
		// steadier than the ratio of two medians while other work loads the machine.
		row{what: "  tmux-mcp's own share (call minus tmux's capture), bare client", value: ms(cpBare.minus(cpFloor2).pct(0.5))}}, nil
}

// sdkHistoryFloor times n calls of the go-sdk no-op server's history tool (see noopServerArg):
// a result of the size capture_pane's of searchLines lines has, with no tmux behind it.
func sdkHistoryFloor(ctx context.Context, n int) (samples, error) {
	cmd, err := noopCommand()
	if err != nil {
		return nil, err
	}
	cl, err := connectCmd(ctx, cmd)
	if err != nil {
		return nil, err
	}
	defer cl.close()
	return timeSamples(10, n, func() error { _, err := cl.call(ctx, "history", map[string]any{}); return err })
}

// turns is how many calls of each read that is compared with another are timed; the reads
// take turns one call at a time (inTurns): a noisy moment on these machines lasts longer than
// a call, so it weighs on both alike.
const turns = 200

// screenRows times capture_pane of one pane's screen on big (a 1,000-pane server, reached by
// bigCl) beside the same call on a 1-pane server of its own, with the bare client. The four reads take turns one by one (a call and tmux's own capture-pane over
// control mode, on each server), so that a slow moment of either tmux server weighs on its
// call and its floor alike; tmux-mcp's own share of a call is its time minus the floor read
// right after it. The target is the 1-pane figure times 1.5: a
// call on one pane costs what that pane costs, not what the server holds.
func screenRows(bin, dir string, big *benchTmux, bigFloor *ctlFloor, bigCl *rawClient) ([]row, error) {
	small, err := newTmux(filepath.Join(dir, "one"))
	if err != nil {
		return nil, err
	}
	defer small.kill()
	smallFloor, err := small.controlFloor()
	if err != nil {
		return nil, err
	}
	defer smallFloor.close()
	smallCl, err := startRaw(bin, small)
	if err != nil {
		return nil, err
	}
	defer smallCl.close()
	capture := func(cl *rawClient, pane string) func() error {
		return func() error { return cl.callToolWith("capture_pane", fmt.Sprintf(`{"pane_id":%q}`, pane)) }
	}
	floorOf := func(f *ctlFloor, pane string) func() error {
		return func() error { return f.do([]string{"capture-pane", "-p", "-t", pane}) }
	}
	s, err := inTurns(turns, capture(bigCl, big.pane), floorOf(bigFloor, big.pane), capture(smallCl, small.pane), floorOf(smallFloor, small.pane))
	if err != nil {
		return nil, err
	}
	onBig, bigF, onSmall, smallF := s[0], s[1], s[2], s[3]
	bigShare, smallShare := onBig.minus(bigF).pct(0.5), onSmall.minus(smallF).pct(0.5)
	limit := time.Duration(float64(onSmall.pct(0.5)) * 1.5)
	return []row{
		{what: fmt.Sprintf("capture_pane of one pane's screen, %d-pane server, bare JSON-RPC client (n=%d)", manyPanes, len(onBig)), value: stat(onBig),
			floor: "control-mode capture-pane " + stat(bigF), ratio: ratio(onBig, bigF),
			target: fmt.Sprintf("≤ 1.5× the 1-pane server's = %s", ms(limit)), met: yesNo(onBig.pct(0.5) <= limit)},
		{what: fmt.Sprintf("capture_pane of one pane's screen, 1-pane server, bare JSON-RPC client (n=%d)", len(onSmall)), value: stat(onSmall),
			floor: "control-mode capture-pane " + stat(smallF), ratio: ratio(onSmall, smallF)},
		// What tmux-mcp adds to tmux's own capture on each server: the part a client controls
		// (tmux's round trip grows with its pane count, docs/performance.md, "Fast at any size").
		{what: fmt.Sprintf("  tmux-mcp's own share (call minus tmux's capture), %d-pane vs 1-pane server", manyPanes),
			value: ms(bigShare) + " vs " + ms(smallShare), target: "≤ 1.5× the 1-pane server's share", met: yesNo(bigShare <= smallShare*3/2)},
	}, nil
}

// inTurns times n calls of each of fs, one call of each in turn, after a warm-up of 10 each.
func inTurns(n int, fs ...func() error) ([]samples, error) {
	out := make([]samples, len(fs))
	for i := -10; i < n; i++ {
		for k, f := range fs {
			start := time.Now()
			if err := f(); err != nil {
				return nil, err
			}
			if i >= 0 {
				out[k] = append(out[k], time.Since(start))
			}
		}
	}
	return out, nil
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
