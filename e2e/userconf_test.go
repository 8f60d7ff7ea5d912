package e2e

// An agent's ordinary day on tmux servers configured as users configure theirs
// (testtmux.UserConfs): windows and panes numbered from 1, hooks that re-lay out and rename,
// dead panes that remain, a status line running a job, vi keys, another prefix.

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// TestUserTmuxConfs: under each configuration, every tool of an agent's day does what it says
// and its result matches what tmux then holds, at the default tier (it kills only what it
// made): on a tmux server the user started (holding
// their session), and on one create_session starts, which reads only ~/.tmux.conf (the shell
// is then the user's $SHELL with its rc files, the status line on).
func TestUserTmuxConfs(t *testing.T) {
	for _, uc := range testtmux.UserConfs() {
		for _, theirs := range []bool{true, false} {
			name := uc.Name + "/fresh"
			if theirs {
				name = uc.Name + "/theirs"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				userConfDay(t, uc, theirs)
			})
		}
	}
}

func userConfDay(t *testing.T, uc testtmux.UserConf, theirs bool) {
	tmx := testtmux.NewWithConf(t, uc.Lines...)
	if theirs {
		tmx.NewSession("theirs") // the user's own session, started with their config
	}
	d := &userDay{t: t, c: startOn(t, tmx), theirs: theirs}
	d.create()
	if slices.Contains(uc.Lines, "set -g base-index 1") && d.base != 1 {
		t.Fatalf("the tmux server did not read the configuration: base-index %d", d.base)
	}
	d.split()
	d.io()
	d.selects()
	d.resize()
	d.rename()
	d.search()
	d.exited()
	d.kills()
}

// userDay is one configuration's day: what the agent made so far.
type userDay struct {
	t              *testing.T
	c              *Client
	theirs         bool // the user's session "theirs" is there too
	base, paneBase int  // base-index and pane-base-index as the configuration sets them
	sess           session
	win1, win2     windowX
	right, below   paneX
}

// sessions is how many sessions there are besides the agent's n.
func (d *userDay) sessions(n int) int {
	if d.theirs {
		return n + 1
	}
	return n
}

// tmux reads one format of target from tmux itself.
func (d *userDay) tmux(target, format string) string {
	d.t.Helper()
	return d.c.fmt(target, format)
}

// runs runs command in pane, which must complete with status and print want.
func (d *userDay) runs(pane, command string, status int, want string) {
	d.t.Helper()
	out := d.c.run(pane, command, "timeoutMs", 30000)
	if out.Outcome != "completed" || out.status() != status || out.Output != want {
		d.t.Errorf("run %q in %s: %+v, want status %d output %q", command, pane, out, status, want)
	}
}

// create: create_session and create_window, a run at once in each new pane, and the lists.
func (d *userDay) create() {
	t, c := d.t, d.c
	var made struct {
		session
		Note string `json:"note"`
	}
	c.OK("create_session", map[string]any{"session_name": "work", "window_name": "edit"}, &made)
	d.sess = made.session
	d.configErrors(made.Note)
	d.base = atoi(d.c.Tmx.Tmux("show-options", "-gv", "base-index"))
	d.paneBase = atoi(d.c.Tmx.Tmux("show-options", "-gwv", "pane-base-index"))
	d.runs(d.sess.ActivePaneID, "echo first-$((6*7)); exit 3", 3, "first-42")
	if got := d.tmux(d.sess.ActivePaneID, "#{window_name}"); got != "edit" {
		t.Errorf("create_session window_name=edit: tmux has %q", got)
	}
	var ss struct{ Sessions []session }
	c.OK("list_sessions", map[string]any{}, &ss)
	if len(ss.Sessions) != d.sessions(1) {
		t.Errorf("list_sessions: %+v", ss)
	}
	var ws struct{ Windows []windowX }
	c.OK("list_windows", map[string]any{"session_name": "work"}, &ws)
	if len(ws.Windows) != 1 || ws.Windows[0].WindowIndex != d.base {
		t.Fatalf("list_windows of a new session (base-index %d): %+v", d.base, ws)
	}
	d.win1 = ws.Windows[0]
	c.OK("create_window", map[string]any{"session_name": "work", "window_name": "build"}, &d.win2)
	if d.win2.WindowIndex != d.base+1 || d.win2.ActivePaneID == "" {
		t.Fatalf("create_window: %+v, want index %d", d.win2, d.base+1)
	}
	// A hook of the user's (after-new-window 'rename-window work') does not undo the name.
	if got := d.tmux(d.win2.WindowID, "#{window_name}"); d.win2.WindowName != "build" || got != "build" {
		t.Errorf("create_window window_name=build: result %q, tmux has %q", d.win2.WindowName, got)
	}
	d.runs(d.win2.ActivePaneID, "echo second", 0, "second")
	var ps struct{ Panes []paneX }
	c.OK("list_panes", map[string]any{"window_id": d.win1.WindowID}, &ps)
	if len(ps.Panes) != 1 || ps.Panes[0].PaneID != d.sess.ActivePaneID || ps.Panes[0].PaneIndex != d.paneBase {
		t.Errorf("list_panes of the first window (pane-base-index %d): %+v", d.paneBase, ps)
	}
}

// configErrors: tmux shows the errors of a configuration in the first pane of the server it
// starts; when create_session started it, the result names them and its pane takes runs.
func (d *userDay) configErrors(note string) {
	d.t.Logf("create_session note: %q", note)
	if note != "" && (d.theirs || !strings.Contains(note, ".tmux.conf:")) {
		d.t.Errorf("create_session note: %q", note)
	}
	if mode := d.tmux(d.sess.ActivePaneID, "#{pane_mode}"); mode != "" {
		d.t.Errorf("create_session's pane is in %s", mode)
	}
}

// split: split_window right and below, a run at once in each, and the panes' places.
func (d *userDay) split() {
	t, c := d.t, d.c
	first := d.sess.ActivePaneID
	c.OK("split_window", map[string]any{"pane_id": first, "direction": "right"}, &d.right)
	d.runs(d.right.PaneID, "echo right", 0, "right")
	c.OK("split_window", map[string]any{"pane_id": first, "direction": "below"}, &d.below)
	d.runs(d.below.PaneID, "echo below", 0, "below")
	if d.right.WindowID != d.win1.WindowID || d.below.WindowID != d.win1.WindowID {
		t.Errorf("splits in another window: %+v %+v", d.right, d.below)
	}
	var ps struct{ Panes []paneX }
	c.OK("list_panes", map[string]any{"session_name": "work", "window_index": d.base}, &ps)
	if len(ps.Panes) != 3 {
		t.Fatalf("list_panes window_index=%d: %+v", d.base, ps)
	}
	for _, p := range ps.Panes {
		if want := atoi(d.tmux(p.PaneID, "#{pane_index}")); p.PaneIndex != want {
			t.Errorf("pane %s: pane_index %d, tmux says %d", p.PaneID, p.PaneIndex, want)
		}
	}
}

// io: send_keys and wait_for_text, capture_pane and snapshot_pane in a new pane.
func (d *userDay) io() {
	t, c := d.t, d.c
	p := d.below.PaneID
	c.OK("send_keys", map[string]any{"pane_id": p, "keys": "echo typed-$((40+2))"}, nil)
	var w waitForTextOut
	c.OK("wait_for_text", map[string]any{"pane_id": p, "patterns": []string{"typed-42"}, "timeout": 20}, &w)
	if w.Outcome != "matched" {
		t.Errorf("wait_for_text: %+v", w)
	}
	var cp struct {
		Content string `json:"content"`
	}
	c.OK("capture_pane", map[string]any{"pane_id": p}, &cp)
	if !strings.Contains(cp.Content, "\ntyped-42") {
		t.Errorf("capture_pane: %q", cp.Content)
	}
	var snap struct {
		paneX
		Content string `json:"content"`
		CursorY int    `json:"cursor_y"`
	}
	c.OK("snapshot_pane", map[string]any{"pane_id": p}, &snap)
	if snap.PaneID != p || !strings.Contains(snap.Content, "\ntyped-42") || snap.PaneInMode {
		t.Errorf("snapshot_pane: %+v", snap)
	}
	if want := atoi(d.tmux(p, "#{cursor_y}")); snap.CursorY != want {
		t.Errorf("snapshot_pane cursor_y %d, tmux says %d", snap.CursorY, want)
	}
	d.copyMode(p)
}

// copyMode: enter_copy_mode and exit_copy_mode under the user's mode-keys, then a run.
func (d *userDay) copyMode(p string) {
	t, c := d.t, d.c
	c.OK("enter_copy_mode", map[string]any{"pane_id": p, "scroll_up": 2}, nil)
	if d.tmux(p, "#{pane_in_mode}") != "1" {
		t.Errorf("enter_copy_mode: pane %s is not in a mode", p)
	}
	c.OK("exit_copy_mode", map[string]any{"pane_id": p}, nil)
	if d.tmux(p, "#{pane_in_mode}") != "0" {
		t.Errorf("exit_copy_mode: pane %s is still in a mode", p)
	}
	d.runs(p, "echo after-copy-mode", 0, "after-copy-mode")
}

type waitForTextOut struct {
	Found   bool     `json:"found"`
	Outcome string   `json:"outcome"`
	Tail    []string `json:"tail"`
}

// selects: select_pane by id and direction, select_window by index and id.
func (d *userDay) selects() {
	t, c := d.t, d.c
	var p paneX
	c.OK("select_pane", map[string]any{"pane_id": d.right.PaneID}, &p)
	if !p.PaneActive || d.tmux(d.win1.WindowID, "#{pane_id}") != d.right.PaneID {
		t.Errorf("select_pane by id: %+v", p)
	}
	// Right of the first pane: the split beside it, or under the hooks' tiled layout the
	// one the layout put there; tmux's active pane is the one the result names.
	first := d.sess.ActivePaneID
	c.OK("select_pane", map[string]any{"pane_id": first, "direction": "right"}, &p)
	if now := d.tmux(d.win1.WindowID, "#{pane_id}"); p.PaneID != now || p.PaneID == first {
		t.Errorf("select_pane right of %s: %s, tmux active %s", first, p.PaneID, now)
	}
	var w windowX
	c.OK("select_window", map[string]any{"session_name": "work", "window_index": d.base + 1}, &w)
	if w.WindowID != d.win2.WindowID || d.tmux("work:", "#{window_id}") != d.win2.WindowID {
		t.Errorf("select_window index %d: %+v", d.base+1, w)
	}
	c.OK("select_window", map[string]any{"session_name": "work", "window_index": strconv.Itoa(d.base)}, &w)
	if w.WindowID != d.win1.WindowID || d.tmux("work:", "#{window_id}") != d.win1.WindowID {
		t.Errorf("select_window index %q: %+v", strconv.Itoa(d.base), w)
	}
	c.OK("select_window", map[string]any{"window_id": d.win2.WindowID}, &w)
	if d.tmux("work:", "#{window_id}") != d.win2.WindowID {
		t.Errorf("select_window by id: %+v", w)
	}
	if d.base > 0 {
		// An index below base-index names no window: the error says which exist.
		msg := c.Fail("select_window", map[string]any{"session_name": "work", "window_index": 0})
		if !strings.Contains(msg, "no window at index 0") || !strings.Contains(msg, "work:"+strconv.Itoa(d.base)+" ") {
			t.Errorf("select_window index 0 under base-index %d: %s", d.base, msg)
		}
	}
}

// resize: resize_pane width and height, zoom in and out.
func (d *userDay) resize() {
	t, c := d.t, d.c
	var p paneX
	if d.tmux(d.right.PaneID, "#{pane_at_left}#{pane_at_right}") == "11" {
		// The hooks' tiled layout gave it the window's whole width: tmux would ignore a width.
		msg := c.Fail("resize_pane", map[string]any{"pane_id": d.right.PaneID, "width": 30})
		if !strings.Contains(msg, "whole width") || !strings.Contains(msg, "resize_window") {
			t.Errorf("resize_pane width of a full-width pane: %s", msg)
		}
	} else {
		c.OK("resize_pane", map[string]any{"pane_id": d.right.PaneID, "width": 30}, &p)
		if got := atoi(d.tmux(d.right.PaneID, "#{pane_width}")); got != 30 || p.PaneWidth != 30 {
			t.Errorf("resize_pane width 30: result %d, tmux %d", p.PaneWidth, got)
		}
	}
	c.OK("resize_pane", map[string]any{"pane_id": d.below.PaneID, "height": 8}, &p)
	if got := atoi(d.tmux(d.below.PaneID, "#{pane_height}")); got != 8 || p.PaneHeight != 8 {
		t.Errorf("resize_pane height 8: result %d, tmux %d", p.PaneHeight, got)
	}
	c.OK("resize_pane", map[string]any{"pane_id": d.below.PaneID, "zoom": true}, nil)
	if d.tmux(d.win1.WindowID, "#{window_zoomed_flag}") != "1" {
		t.Errorf("zoom true: the window is not zoomed")
	}
	d.runs(d.right.PaneID, "echo behind-zoom", 0, "behind-zoom")
	c.OK("resize_pane", map[string]any{"pane_id": d.below.PaneID, "zoom": false}, nil)
	if d.tmux(d.win1.WindowID, "#{window_zoomed_flag}") != "0" {
		t.Errorf("zoom false: the window is still zoomed")
	}
}

// rename: rename_window by id and index, rename_session; the names stay.
func (d *userDay) rename() {
	t, c := d.t, d.c
	c.OK("rename_window", map[string]any{"window_id": d.win1.WindowID, "new_name": "editor"}, nil)
	c.OK("rename_window", map[string]any{"session_name": "work", "window_index": d.base + 1, "new_name": "tests"}, nil)
	d.runs(d.win2.ActivePaneID, "printf '\\033kretitled\\033\\\\'; echo ok", 0, "ok")
	var ws struct{ Windows []windowX }
	c.OK("list_windows", map[string]any{"session_name": "work"}, &ws)
	names := map[string]string{}
	for _, w := range ws.Windows {
		names[w.WindowID] = w.WindowName
	}
	if names[d.win1.WindowID] != "editor" || names[d.win2.WindowID] != "tests" {
		t.Errorf("window names after rename_window: %v", names)
	}
	c.OK("rename_session", map[string]any{"session_name": "work", "new_name": "work2"}, nil)
	c.OK("rename_session", map[string]any{"session_id": d.sess.SessionID, "new_name": "work"}, nil)
	if got := d.tmux(d.sess.SessionID, "#{session_name}"); got != "work" {
		t.Errorf("session name after rename_session: %q", got)
	}
}

// search: search_panes finds a run's output in its pane only.
func (d *userDay) search() {
	t, c := d.t, d.c
	d.runs(d.right.PaneID, "echo needle-$((9*9))", 0, "needle-81")
	var out struct {
		Matches []struct {
			PaneID string `json:"pane_id"`
		} `json:"matches"`
	}
	c.OK("search_panes", map[string]any{"pattern": "needle-81"}, &out)
	if len(out.Matches) != 1 || out.Matches[0].PaneID != d.right.PaneID {
		t.Errorf("search_panes: %+v", out)
	}
}

// exited: a pane whose shell exited (it stays, dead, under remain-on-exit) is listed as dead,
// refuses a run saying so, ends a wait as pane_died, and is killed like any other.
func (d *userDay) exited() {
	t, c := d.t, d.c
	var p paneX
	c.OK("split_window", map[string]any{"pane_id": d.below.PaneID, "direction": "right"}, &p)
	d.runs(p.PaneID, "echo before-exit", 0, "before-exit")
	remain := d.tmux(p.PaneID, "#{remain-on-exit}") == "on"
	c.OK("send_keys", map[string]any{"pane_id": p.PaneID, "keys": "exit"}, nil)
	// The wait ends as pane_died, or, when the pane closed before it began, says it is gone.
	res := c.Call("wait_for_text", map[string]any{"pane_id": p.PaneID, "patterns": []string{"never-printed"}, "timeout": 20})
	if msg := text(res); res.IsError && (remain || !strings.Contains(msg, "no pane has id "+p.PaneID)) ||
		!res.IsError && !strings.Contains(msg, "pane_died") {
		t.Errorf("wait_for_text on a pane whose shell exits: %s", msg)
	}
	if !remain {
		msg := c.Fail("run_shell_command", map[string]any{"paneId": p.PaneID, "command": "echo x"})
		if !strings.Contains(msg, "no pane has id "+p.PaneID) {
			t.Errorf("a run in a closed pane: %s", msg)
		}
		return
	}
	d.deadPane(p.PaneID)
}

// deadPane: a pane dead under remain-on-exit is listed as dead, refuses a run and keys saying
// why and what to do, ends a wait at once, and is killed like any other.
func (d *userDay) deadPane(id string) {
	t, c := d.t, d.c
	var ps struct{ Panes []paneX }
	c.OK("list_panes", map[string]any{"window_id": d.win1.WindowID}, &ps)
	dead := false
	for _, q := range ps.Panes {
		dead = dead || q.PaneID == id && q.PaneDead
	}
	if !dead {
		t.Errorf("list_panes does not show %s dead: %+v", id, ps)
	}
	for tool, args := range map[string]map[string]any{
		"run_shell_command": {"paneId": id, "command": "echo x"},
		"send_keys":         {"pane_id": id, "keys": "echo x"},
	} {
		msg := c.Fail(tool, args)
		if !strings.Contains(msg, "remain-on-exit") || !strings.Contains(msg, "respawn_pane") || !strings.Contains(msg, "kill_pane") {
			t.Errorf("%s in a dead pane does not say why it stays and what to do: %s", tool, msg)
		}
	}
	var w waitForTextOut
	c.OK("wait_for_text", map[string]any{"pane_id": id, "patterns": []string{"never-printed"}, "timeout": 20}, &w)
	if w.Outcome != "pane_died" {
		t.Errorf("wait_for_text on a dead pane: %+v", w)
	}
	// As the refusal says: respawn_pane brings its shell back, and the pane takes a run.
	c.OK("respawn_pane", map[string]any{"pane_id": id, "kill": false}, nil)
	d.runs(id, "echo respawned", 0, "respawned")
	c.OK("send_keys", map[string]any{"pane_id": id, "keys": "exit"}, nil)
	c.OK("wait_for_text", map[string]any{"pane_id": id, "patterns": []string{"never-printed"}, "timeout": 20}, &w)
	if w.Outcome != "pane_died" {
		t.Errorf("wait_for_text on a respawned pane whose shell exits: %+v", w)
	}
	c.OK("kill_pane", map[string]any{"pane_id": id}, nil)
	if c.paneExists(id) {
		t.Errorf("kill_pane left the dead pane %s", id)
	}
}

// kills: kill_pane, kill_window (the first: renumber-windows moves the other to base-index),
// kill_session; the user's session stays.
func (d *userDay) kills() {
	t, c := d.t, d.c
	c.OK("kill_pane", map[string]any{"pane_id": d.right.PaneID}, nil)
	if c.paneExists(d.right.PaneID) {
		t.Errorf("kill_pane left %s", d.right.PaneID)
	}
	d.runs(d.below.PaneID, "echo still-here", 0, "still-here")
	c.OK("kill_window", map[string]any{"window_id": d.win1.WindowID}, nil)
	var ws struct{ Windows []windowX }
	c.OK("list_windows", map[string]any{"session_name": "work"}, &ws)
	if len(ws.Windows) != 1 || ws.Windows[0].WindowID != d.win2.WindowID {
		t.Fatalf("after kill_window: %+v", ws)
	}
	idx := ws.Windows[0].WindowIndex
	if want := atoi(d.tmux(d.win2.WindowID, "#{window_index}")); idx != want {
		t.Errorf("list_windows index %d, tmux says %d", idx, want)
	}
	var w windowX
	c.OK("select_window", map[string]any{"session_name": "work", "window_index": idx}, &w)
	if w.WindowID != d.win2.WindowID {
		t.Errorf("select_window index %d after the renumbering: %+v", idx, w)
	}
	d.runs(d.win2.ActivePaneID, "echo last-window", 0, "last-window")
	c.OK("kill_session", map[string]any{"session_name": "work"}, nil)
	var ss struct{ Sessions []session }
	c.OK("list_sessions", map[string]any{}, &ss)
	if len(ss.Sessions) != d.sessions(0) || d.theirs && ss.Sessions[0].SessionName != "theirs" {
		t.Errorf("sessions after kill_session: %+v", ss)
	}
}

// TestCreateSessionDestroyUnattached: under a user's `set -g destroy-unattached on` tmux
// destroys a detached session as soon as it is made (and the server with its last session);
// create_session says so and what to change, not that no server is running.
func TestCreateSessionDestroyUnattached(t *testing.T) {
	tmx := testtmux.NewWithConf(t, "set -g destroy-unattached on")
	c := startOn(t, tmx)
	for _, args := range []map[string]any{{"session_name": "work"}, {"session_name": "work", "window_name": "edit"}} {
		msg := c.Fail("create_session", args)
		if !strings.Contains(msg, "destroy-unattached") || !strings.Contains(msg, "~/.tmux.conf") {
			t.Errorf("create_session(%v) under destroy-unattached on: %s", args, msg)
		}
	}
}

// TestRespawnDeadPaneRepeatedly: under a user's remain-on-exit, a pane whose shell printed and
// exited is respawned (as the dead pane's refusal says to) again and again while this server
// streams it, and takes a run each time. tmux (3.3a to 3.7c) keeps a pane's read positions
// across a respawn: one this server's stream had not reached yet made tmux parse the new
// shell's first output from past its buffer and crash, the user's whole server with it.
func TestRespawnDeadPaneRepeatedly(t *testing.T) {
	tmx := testtmux.NewWithConf(t, "set -g remain-on-exit on")
	_, first := tmx.NewSession("theirs")
	c := startOn(t, tmx)
	var p paneX
	c.OK("split_window", map[string]any{"pane_id": first}, &p)
	for i := range 10 {
		d := &userDay{t: t, c: c}
		d.runs(p.PaneID, "seq 1 200 | tail -n 1", 0, "200")
		c.OK("send_keys", map[string]any{"pane_id": p.PaneID, "keys": "seq 1 2000; exit"}, nil)
		var w waitForTextOut
		c.OK("wait_for_text", map[string]any{"pane_id": p.PaneID, "patterns": []string{"never-printed"}, "timeout": 20}, &w)
		if w.Outcome != "pane_died" {
			t.Fatalf("round %d: wait_for_text on a pane whose shell exits: %+v", i, w)
		}
		c.OK("respawn_pane", map[string]any{"pane_id": p.PaneID, "kill": false}, nil)
	}
	c.run(p.PaneID, "true")
}
