package server

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// paneTools: selecting, swapping, resizing, titling, clearing, copy mode, respawning and killing
// panes. Sessions and windows are windows.go's.
func paneTools() []*Tool {
	return []*Tool{
		define(spec{Name: "select_pane", Title: "Select tmux Pane", Tier: policy.Mutating, Toolsets: []string{policy.Manage}, Ann: annMUT,
			Description: "Make a pane active in its window: pane_id, or direction from it (else from the active pane).",
			Input:       edits(enum("direction", "up", "down", "left", "right", "last", "next", "previous"))},
			selectPane),
		define(spec{Name: "swap_pane", Title: "Swap tmux Panes", Tier: policy.Mutating, Toolsets: []string{policy.Manage}, Ann: annCREATE,
			Description: "Swap two panes' places, also across windows."},
			swapPane),
		define(spec{Name: "resize_pane", Title: "Resize tmux Pane", Tier: policy.Mutating, Toolsets: []string{policy.Manage}, Ann: annMUT,
			Description: "Resize a pane to width and/or height cells, or set zoom (true: only it shows; not a toggle).",
			Input:       edits(minimum("width", 1), minimum("height", 1))},
			resizePane),
		define(spec{Name: "set_pane_title", Title: "Set tmux Pane Title", Tier: policy.Mutating, Toolsets: []string{policy.Manage}, Ann: annMUT,
			Description: "Set a pane's title, literally."},
			setPaneTitle),
		define(spec{Name: "clear_pane", Title: "Clear tmux Pane", Tier: policy.Mutating, Toolsets: []string{policy.Teardown}, Ann: annDESTR,
			Description: "Clear a pane's screen and scrollback (a terminal reset; its program runs on)."},
			clearPane),
		define(spec{Name: "enter_copy_mode", Title: "Enter tmux Copy Mode", Tier: policy.Mutating, Toolsets: []string{policy.Manage}, Ann: annCREATE,
			Description: "Put a pane in copy mode, scrolled up scroll_up lines; exit_copy_mode leaves it.",
			Input:       edits(minimum("scroll_up", 0))},
			enterCopyMode),
		define(spec{Name: "exit_copy_mode", Title: "Exit tmux Copy Mode", Tier: policy.Mutating, Toolsets: []string{policy.Manage}, Ann: annMUT,
			Description: "Leave copy mode (or any mode) in a pane."},
			exitCopyMode),
		define(spec{Name: "respawn_pane", Title: "Respawn tmux Pane", Tier: policy.Mutating, Toolsets: []string{policy.Execute}, Ann: annDESTR,
			Description: "Restart a pane's program (same pane id). Not this MCP server's own pane.",
			Input:       edits(def("kill", true), objectOrJSON("environment", envDesc), def("suppress_persistent_history", false))},
			respawnPane),
		define(spec{Name: "kill_pane", Title: "Kill tmux Pane", Tier: policy.Mutating, Toolsets: []string{policy.Teardown}, Ann: annDESTR,
			Description: "Kill a pane and its processes; at mutating, only one this server created."},
			killPane),
	}
}

// resultOut is the {result} of tools that only report what they did.
type resultOut struct {
	Result string `json:"result"`
}

// ---- select_pane

type selectPaneIn struct {
	PaneID    *string `json:"pane_id,omitempty"`
	Direction *string `json:"direction,omitempty" jsonschema:"last: previous active; next/previous: by index"`
	WindowTarget
	Socket
}

func selectPane(ctx context.Context, c *Call, in *selectPaneIn) (PaneInfo, error) {
	if in.PaneID == nil && in.Direction == nil {
		return PaneInfo{}, fail("Pass pane_id, or direction (with the window arguments or pane_id to start from).", "select_pane needs pane_id or direction")
	}
	if err := checkIDs(in.PaneID, in.WindowID, in.SessionID); err != nil {
		return PaneInfo{}, err
	}
	ts, snap, err := c.snapshot(ctx, in.SocketName)
	if err != nil {
		return PaneInfo{}, err
	}
	from, err := resolvePaneIn(snap, PaneTarget{PaneID: in.PaneID})
	if in.PaneID == nil {
		var w tmux.Window
		if w, err = resolveWindowIn(snap, in.WindowTarget); err == nil {
			from, err = resolvePaneIn(snap, PaneTarget{PaneID: &w.ActivePaneID})
		}
	}
	if err != nil {
		return PaneInfo{}, err
	}
	op := &tmux.SelectPane{Pane: from.PaneID, Direction: str(in.Direction)}
	switch op.Direction {
	case "next", "previous":
		op.Pane, op.Direction = neighbour(snap, from, op.Direction == "next"), ""
	case "left", "right", "up", "down":
		if err := besideEdge(from, op.Direction); err != nil {
			return PaneInfo{}, err
		}
	}
	if err := ts.Do(ctx, op); err != nil {
		if str(in.Direction) == "last" && errors.As(err, new(*tmux.CommandError)) {
			return PaneInfo{}, fail("Select a pane by pane_id or another direction.", "window %s has no previously active pane: %v", from.WindowID, err)
		}
		return PaneInfo{}, err
	}
	now, err := ts.Snapshot(ctx, tmux.WithAll)
	if err != nil {
		return PaneInfo{}, err
	}
	w, ok := windowRow(now, from.SessionID, from.WindowID)
	if !ok {
		return PaneInfo{}, fmt.Errorf("window %s: %w", from.WindowID, tmux.ErrNotFound)
	}
	p, ok := now.Pane(w.ActivePaneID)
	if !ok {
		return PaneInfo{}, fmt.Errorf("pane %s: %w", w.ActivePaneID, tmux.ErrNotFound)
	}
	return c.paneInfo(ctx, ts, now, p), nil
}

// besideEdge refuses a direction that leads out of the window from pane p, at its edge there:
// tmux wraps around to the pane at the other edge (left of the leftmost pane is the rightmost
// one, or the pane itself), which an agent asking for a neighbour does not expect.
func besideEdge(p tmux.Pane, direction string) error {
	edge := map[string]bool{"left": p.PaneAtLeft, "right": p.PaneAtRight, "up": p.PaneAtTop, "down": p.PaneAtBottom}[direction]
	if !edge {
		return nil
	}
	side := map[string]string{"left": "left of", "right": "right of", "up": "above", "down": "below"}[direction]
	return fail(fmt.Sprintf("list_panes window_id=%s detail=full shows where each pane is (pane_left, pane_top); select one by pane_id, or pass next or previous to go round by index.", p.WindowID),
		"no pane is %s pane %s: it is at its window's edge there (tmux would wrap around to the other edge)", side, p.PaneID)
}

// neighbour is the pane after from in its window (or before it), by index with wrap-around:
// tmux's relative targets vary across versions.
func neighbour(snap *tmux.Snapshot, from tmux.Pane, next bool) string {
	var ids []tmux.Pane
	seen := map[string]bool{}
	for _, p := range snap.Panes {
		if p.WindowID == from.WindowID && !seen[p.PaneID] {
			seen[p.PaneID] = true
			ids = append(ids, p)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i].PaneIndex < ids[j].PaneIndex })
	i := 0
	for k, p := range ids {
		if p.PaneID == from.PaneID {
			i = k
		}
	}
	if next {
		return ids[(i+1)%len(ids)].PaneID
	}
	return ids[(i-1+len(ids))%len(ids)].PaneID
}

// ---- swap_pane

type swapPaneIn struct {
	SourcePaneID string `json:"source_pane_id"`
	TargetPaneID string `json:"target_pane_id"`
	Socket
}

func swapPane(ctx context.Context, c *Call, in *swapPaneIn) (PaneInfo, error) {
	for _, a := range [][2]string{{"source_pane_id", in.SourcePaneID}, {"target_pane_id", in.TargetPaneID}} {
		if !tmux.ValidPaneID(a[1]) {
			return PaneInfo{}, notPaneID(a[0], a[1])
		}
	}
	if in.SourcePaneID == in.TargetPaneID {
		return PaneInfo{}, fail("Pass two different panes.", "source_pane_id and target_pane_id are both %s", in.SourcePaneID)
	}
	ts, snap, err := c.snapshot(ctx, in.SocketName)
	if err != nil {
		return PaneInfo{}, err
	}
	for _, id := range []string{in.SourcePaneID, in.TargetPaneID} {
		if _, err := resolvePaneIn(snap, PaneTarget{PaneID: &id}); err != nil {
			return PaneInfo{}, err
		}
	}
	// -d keeps the active panes where they are.
	if err := ts.Do(ctx, &tmux.SwapPanes{Source: in.SourcePaneID, Target: in.TargetPaneID}); err != nil {
		return PaneInfo{}, err
	}
	return c.paneByID(ctx, ts, in.SourcePaneID)
}

// ---- resize_pane

type resizePaneIn struct {
	PaneTarget
	Width  *int  `json:"width,omitempty"`
	Height *int  `json:"height,omitempty"`
	Zoom   *bool `json:"zoom,omitempty"`
	Socket
}

func resizePane(ctx context.Context, c *Call, in *resizePaneIn) (PaneInfo, error) {
	if in.Zoom != nil && (in.Width != nil || in.Height != nil) {
		return PaneInfo{}, fail("Call resize_pane twice: once with zoom, once with width/height.", "zoom cannot be combined with width or height")
	}
	if in.Zoom == nil && in.Width == nil && in.Height == nil {
		return PaneInfo{}, fail("Pass width and/or height (cells), or zoom (true or false).", "resize_pane needs width, height or zoom")
	}
	if err := errors.Join(checkSize("width", in.Width), checkSize("height", in.Height)); err != nil {
		return PaneInfo{}, err
	}
	t, err := c.paneWith(ctx, in.PaneTarget, in.SocketName, readWindow, nil)
	if err != nil {
		return PaneInfo{}, err
	}
	p := t.pane
	var ops []tmux.Op
	if in.Zoom != nil {
		w, _ := windowRow(t.snap, p.SessionID, p.WindowID)
		switch {
		case *in.Zoom && w.WindowZoomed && w.ActivePaneID == p.PaneID:
		case *in.Zoom && w.WindowZoomed:
			// Another pane is zoomed: unzoom, then zoom this one (which makes it active).
			ops = []tmux.Op{&tmux.ToggleZoom{Pane: w.ActivePaneID}, &tmux.ToggleZoom{Pane: p.PaneID}}
		case *in.Zoom:
			ops = []tmux.Op{&tmux.ToggleZoom{Pane: p.PaneID}}
		case w.WindowZoomed:
			ops = []tmux.Op{&tmux.ToggleZoom{Pane: w.ActivePaneID}}
		}
	} else {
		if err := resizable(p, in.Width, in.Height); err != nil {
			return PaneInfo{}, err
		}
		ops = []tmux.Op{&tmux.ResizePane{Pane: p.PaneID, Width: in.Width, Height: in.Height}}
	}
	if len(ops) > 0 {
		if err := t.ts.Batch(ctx, ops...); err != nil {
			return PaneInfo{}, err
		}
	}
	return c.paneByID(ctx, t.ts, p.PaneID)
}

// resizable refuses a size tmux would leave as it is while answering success: any size of a
// window's only pane, a width of a pane that spans its window's whole width (no pane beside
// it, as a layout such as tiled or even-vertical, often set by a user's after-split-window
// hook, leaves one), a height of a pane that spans its whole height.
func resizable(p tmux.Pane, width, height *int) error {
	hint := fmt.Sprintf("Resize its window instead (resize_window window_id=%s with width/height), or split it (split_window) and size the panes.", p.WindowID)
	if p.WindowPanes == 1 {
		return fail(hint, "pane %s is the only pane of its window, so its size is the window's: resize_pane cannot change it", p.PaneID)
	}
	hint = "Resize its window instead (resize_window window_id=" + p.WindowID + "), or change the layout first (select_layout) so that another pane is %s it."
	if width != nil && *width != p.PaneWidth && p.PaneAtLeft && p.PaneAtRight {
		return fail(fmt.Sprintf(hint, "beside"), "pane %s spans its window's whole width (no pane is beside it), so resize_pane cannot change its width, only its height", p.PaneID)
	}
	if height != nil && *height != p.PaneHeight && p.PaneAtTop && p.PaneAtBottom {
		return fail(fmt.Sprintf(hint, "above or below"), "pane %s spans its window's whole height (no pane is above or below it), so resize_pane cannot change its height, only its width", p.PaneID)
	}
	return nil
}

// ---- set_pane_title

type setPaneTitleIn struct {
	Title string `json:"title"`
	PaneTarget
	Socket
}

func setPaneTitle(ctx context.Context, c *Call, in *setPaneTitleIn) (PaneInfo, error) {
	if err := checkLine("title", in.Title, 1024); err != nil {
		return PaneInfo{}, err
	}
	if i := strings.IndexFunc(in.Title, func(r rune) bool { return r < ' ' || r == 0x7f }); i >= 0 {
		return PaneInfo{}, fail("Remove the control characters: tmux ignores such a title and keeps the old one.", "title holds a control character (byte 0x%02x at byte %d)", in.Title[i], i+1)
	}
	t, err := c.pane(ctx, in.PaneTarget, in.SocketName)
	if err != nil {
		return PaneInfo{}, err
	}
	if err := t.ts.Do(ctx, &tmux.SetPaneTitle{Pane: t.pane.PaneID, Title: in.Title}); err != nil {
		return PaneInfo{}, err
	}
	return c.paneByID(ctx, t.ts, t.pane.PaneID)
}

// ---- clear_pane

func clearPane(ctx context.Context, c *Call, in *paneIn) (resultOut, error) {
	t, err := c.pane(ctx, in.PaneTarget, in.SocketName)
	if err != nil {
		return resultOut{}, err
	}
	if err := c.callerPlace(ctx, t.ts, t.snap).GuardPane("clear", t.pane.PaneID); err != nil {
		return resultOut{}, err
	}
	if err := t.ts.Do(ctx, &tmux.ClearPane{Pane: t.pane.PaneID}); err != nil {
		return resultOut{}, err
	}
	return resultOut{Result: fmt.Sprintf("Pane %s cleared (screen and history)", t.pane.PaneID)}, nil
}

// ---- enter_copy_mode / exit_copy_mode

type enterCopyModeIn struct {
	PaneTarget
	ScrollUp *int `json:"scroll_up,omitempty"`
	Socket
}

func enterCopyMode(ctx context.Context, c *Call, in *enterCopyModeIn) (PaneInfo, error) {
	if in.ScrollUp != nil && (*in.ScrollUp < 0 || *in.ScrollUp > 1000000) {
		return PaneInfo{}, fail("Give a number of lines from 0 to 1000000.", "scroll_up must be between 0 and 1000000, got %d", *in.ScrollUp)
	}
	t, err := c.pane(ctx, in.PaneTarget, in.SocketName)
	if err != nil {
		return PaneInfo{}, err
	}
	if t.pane.PaneDead {
		return PaneInfo{}, fail("Respawn it with respawn_pane first, or pick another pane.", "pane %s is dead", t.pane.PaneID)
	}
	op := &tmux.CopyMode{Pane: t.pane.PaneID}
	if in.ScrollUp != nil {
		op.ScrollUp = *in.ScrollUp
	}
	if err := t.ts.Do(ctx, op); err != nil {
		return PaneInfo{}, err
	}
	return c.paneByID(ctx, t.ts, t.pane.PaneID)
}

func exitCopyMode(ctx context.Context, c *Call, in *paneIn) (PaneInfo, error) {
	t, err := c.pane(ctx, in.PaneTarget, in.SocketName)
	if err != nil {
		return PaneInfo{}, err
	}
	if t.pane.PaneInMode {
		if err := t.ts.Do(ctx, &tmux.CopyMode{Pane: t.pane.PaneID, Exit: true}); err != nil {
			return PaneInfo{}, err
		}
	}
	return c.paneByID(ctx, t.ts, t.pane.PaneID)
}

// ---- respawn_pane

type respawnPaneIn struct {
	PaneID                    string  `json:"pane_id"`
	Kill                      bool    `json:"kill,omitempty" jsonschema:"false: dead panes only"`
	Shell                     *string `json:"shell,omitempty" jsonschema:"Instead of the original command"`
	StartDirectory            *string `json:"start_directory,omitempty"`
	Environment               any     `json:"environment,omitempty"`
	SuppressPersistentHistory bool    `json:"suppress_persistent_history,omitempty"`
	ShellIntegration          *bool   `json:"shell_integration,omitempty"`
	Socket
}

func respawnPane(ctx context.Context, c *Call, in *respawnPaneIn) (PaneInfo, error) {
	if err := checkIDs(&in.PaneID, nil, nil); err != nil {
		return PaneInfo{}, err
	}
	if err := checkDir(in.StartDirectory); err != nil {
		return PaneInfo{}, err
	}
	if err := checkShell(in.Shell, "omit shell to rerun the pane's command"); err != nil {
		return PaneInfo{}, err
	}
	env, err := spawnEnv(in.Environment, in.SuppressPersistentHistory)
	if err != nil {
		return PaneInfo{}, err
	}
	t, err := c.pane(ctx, PaneTarget{PaneID: &in.PaneID}, in.SocketName)
	if err != nil {
		return PaneInfo{}, err
	}
	if err := c.callerPlace(ctx, t.ts, t.snap).GuardPane("respawn", in.PaneID); err != nil {
		return PaneInfo{}, err
	}
	if !in.Kill && !t.pane.PaneDead {
		return PaneInfo{}, fail("Pass kill=true to end the running program first.", "pane %s is still running %s", in.PaneID, t.pane.PaneCurrentCommand)
	}
	l, err := c.integration(ctx, t.ts, in.ShellIntegration, in.Shell, env)
	if err != nil {
		return PaneInfo{}, err
	}
	op := &tmux.RespawnPane{Pane: in.PaneID, Kill: in.Kill, Dir: in.StartDirectory, Env: env, Argv: launchArgv(nil, in.Shell)}
	if l != nil {
		// Followed before the new shell starts, so its first prompt is seen.
		if _, err := c.srv.cmds.follow(ctx, t.ts, in.PaneID, true); err != nil {
			return PaneInfo{}, fmt.Errorf("following pane %s: %w", in.PaneID, err)
		}
		op.Env, op.Argv = l.env, l.Argv
	}
	run := c.heldRun(ctx, t.ts, in.PaneID)
	t.ts.ResyncStreams(ctx, in.PaneID) // else tmux may crash as the new process prints
	if err := t.ts.Do(ctx, op); err != nil {
		return PaneInfo{}, err
	}
	if l != nil {
		_ = t.ts.Do(ctx, &tmux.SetPaneOption{Pane: in.PaneID, Name: integrationOption, Value: l.Shell})
	}
	c.endRun(ctx, run, "respawned") // the new process will never print the run's end
	return c.paneByID(ctx, t.ts, in.PaneID)
}

// paneRun is what heldRun found of a pane's run before a kill or respawn.
type paneRun struct {
	key   paneKey
	known bool // the server's identity was read
	held  bool // a run held the pane
	pane  string
}

// heldRun looks, before a kill or respawn (a kill may end the server), at the run holding pane.
func (c *Call) heldRun(ctx context.Context, ts *tmux.Server, pane string) paneRun {
	id, err := ts.Identity(ctx)
	if err != nil {
		return paneRun{}
	}
	r := paneRun{key: paneKey{Daemon: id, Pane: pane}, known: true, pane: pane}
	_, r.held = c.srv.state.runs.Holder(r.key)
	return r
}

// endRun ends at once the run that held a pane now killed or respawned, and tells the clients
// that it ended unfinished: the runner may have seen the pane go first, and ended it itself.
func (c *Call) endRun(ctx context.Context, r paneRun, how string) {
	if !r.known {
		return
	}
	if c.srv.state.runs.Abandon(r.key) || r.held {
		c.notify(ctx, "warning", logRun, runEndedNote(r.pane, how))
	}
}

// ---- kill_pane

type killPaneIn struct {
	PaneID string `json:"pane_id"`
	Socket
}

func killPane(ctx context.Context, c *Call, in *killPaneIn) (resultOut, error) {
	if err := checkIDs(&in.PaneID, nil, nil); err != nil {
		return resultOut{}, err
	}
	t, err := c.pane(ctx, PaneTarget{PaneID: &in.PaneID}, in.SocketName)
	if err != nil {
		return resultOut{}, err
	}
	if err := c.callerPlace(ctx, t.ts, t.snap).GuardPane("kill", in.PaneID); err != nil {
		return resultOut{}, err
	}
	if err := c.checkOwned(ctx, t.ts, "pane "+in.PaneID, in.PaneID, levelPane); err != nil {
		return resultOut{}, err
	}
	run := c.heldRun(ctx, t.ts, in.PaneID)
	if err := t.ts.Kill(ctx, in.PaneID); err != nil {
		return resultOut{}, err
	}
	c.endRun(ctx, run, "killed")
	return resultOut{Result: "Pane " + in.PaneID + " killed"}, nil
}
