package e2e

import (
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// paneX is a pane with the fields the lifecycle tests look at.
type paneX struct {
	pane
	PaneIndex  int    `json:"pane_index"`
	PaneTitle  string `json:"pane_title"`
	PaneActive bool   `json:"pane_active"`
	PaneInMode bool   `json:"pane_in_mode"`
	PanePID    int    `json:"pane_pid"`
}

type windowX struct {
	window
	WindowLayout string `json:"window_layout"`
	WindowActive bool   `json:"window_active"`
	WindowHeight int    `json:"window_height"`
	WindowZoomed bool   `json:"window_zoomed"`
	ActivePaneID string `json:"active_pane_id"`
}

type resultText struct {
	Result string `json:"result"`
}

// destructive starts a server at the destructive tier.
func destructive(t *testing.T, env ...string) *Client {
	return start(t, append([]string{"LIBTMUX_SAFETY=destructive"}, env...)...)
}

func (c *Client) fmt(target, format string) string {
	c.t.Helper()
	return c.Tmx.Tmux("display-message", "-p", "-t", target, format)
}

// paneExists asks tmux itself (display-message prints nothing for a missing pane).
func (c *Client) paneExists(id string) bool {
	out, _ := c.Tmx.TryTmux("list-panes", "-a", "-F", "#{pane_id}")
	for _, l := range strings.Split(out, "\n") {
		if l == id {
			return true
		}
	}
	return false
}

// waitGone waits until process pid has exited (a killed tmux server takes a moment to go).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func wantErr(t *testing.T, c *Client, tool string, args map[string]any, want string) {
	t.Helper()
	msg := c.Fail(tool, args)
	if !strings.Contains(msg, want) {
		t.Errorf("%s(%v): error %q does not mention %q", tool, args, msg, want)
	}
	if !strings.Contains(msg, "\n\n") {
		t.Errorf("%s(%v): error has no hint: %q", tool, args, msg)
	}
}

func TestSelectPane(t *testing.T) {
	c := start(t)
	_, p0 := c.Tmx.NewSession("s")
	p1 := c.Tmx.SplitWindow(p0)
	p2 := c.Tmx.SplitWindow(p0)
	// Panes by index: p0 is 0, p2 (split from p0, below it) is 1, p1 is 2.
	var got paneX
	c.OK("select_pane", map[string]any{"pane_id": p1}, &got)
	win := c.fmt(p0, "#{window_id}")
	if got.PaneID != p1 || !got.PaneActive || c.fmt(win, "#{pane_id}") != p1 {
		t.Fatalf("select by id: %+v, active %s", got, c.fmt(win, "#{pane_id}"))
	}
	c.OK("select_pane", map[string]any{"direction": "next", "session_name": "s"}, &got)
	if got.PaneID != p0 {
		t.Errorf("next from the last pane wraps to the first: got %s want %s", got.PaneID, p0)
	}
	c.OK("select_pane", map[string]any{"direction": "previous"}, &got)
	if got.PaneID != p1 {
		t.Errorf("previous from the first pane wraps to the last: got %s want %s", got.PaneID, p1)
	}
	c.OK("select_pane", map[string]any{"direction": "last"}, &got)
	if got.PaneID != p0 {
		t.Errorf("last: got %s want %s", got.PaneID, p0)
	}
	c.OK("select_pane", map[string]any{"direction": "down", "pane_id": p0}, &got)
	if got.PaneID != p2 {
		t.Errorf("down from %s: got %s want %s", p0, got.PaneID, p2)
	}
	// Out of the window: tmux would wrap around to the other edge.
	wantErr(t, c, "select_pane", map[string]any{"direction": "up", "pane_id": p0}, "no pane is above pane "+p0)
	wantErr(t, c, "select_pane", map[string]any{}, "needs pane_id or direction")
	wantErr(t, c, "select_pane", map[string]any{"direction": "sideways"}, "direction")
	wantErr(t, c, "select_pane", map[string]any{"pane_id": "%99"}, "no pane has id %99")
}

func TestSwapAndResizePane(t *testing.T) {
	c := start(t)
	_, p0 := c.Tmx.NewSession("s")
	p1 := c.Tmx.SplitWindow(p0)
	top0 := c.fmt(p0, "#{pane_top}")
	var got paneX
	c.OK("swap_pane", map[string]any{"source_pane_id": p0, "target_pane_id": p1}, &got)
	if got.PaneID != p0 || fmt.Sprint(got.PaneTop) == top0 {
		t.Errorf("swap: %s still at top %s: %+v", p0, top0, got)
	}
	wantErr(t, c, "swap_pane", map[string]any{"source_pane_id": p0, "target_pane_id": p0}, "both")
	wantErr(t, c, "swap_pane", map[string]any{"source_pane_id": p0, "target_pane_id": "%77"}, "no pane has id %77")
	wantErr(t, c, "swap_pane", map[string]any{"source_pane_id": p0}, "target_pane_id")

	c.OK("resize_pane", map[string]any{"pane_id": p0, "height": 6}, &got)
	if got.PaneHeight != 6 {
		t.Errorf("resize height 6: %+v", got)
	}
	// Zoom is a state: asking twice leaves it zoomed, and false unzooms.
	for i := 0; i < 2; i++ {
		c.OK("resize_pane", map[string]any{"pane_id": p1, "zoom": true}, nil)
		if c.fmt(p1, "#{window_zoomed_flag} #{pane_active}") != "1 1" {
			t.Fatalf("zoom=true (%d): %s", i, c.fmt(p1, "#{window_zoomed_flag} #{pane_active}"))
		}
	}
	// Zooming another pane of a zoomed window zooms that one.
	c.OK("resize_pane", map[string]any{"pane_id": p0, "zoom": true}, nil)
	if c.fmt(p0, "#{window_zoomed_flag} #{pane_active}") != "1 1" {
		t.Fatalf("zoom other pane: %s", c.fmt(p0, "#{window_zoomed_flag} #{pane_active}"))
	}
	for i := 0; i < 2; i++ {
		c.OK("resize_pane", map[string]any{"pane_id": p0, "zoom": false}, nil)
		if c.fmt(p0, "#{window_zoomed_flag}") != "0" {
			t.Fatalf("zoom=false (%d) left the window zoomed", i)
		}
	}
	wantErr(t, c, "resize_pane", map[string]any{"pane_id": p0, "zoom": true, "width": 10}, "cannot be combined")
	wantErr(t, c, "resize_pane", map[string]any{"pane_id": p0}, "needs width, height or zoom")
	wantErr(t, c, "resize_pane", map[string]any{"pane_id": p0, "height": 0}, "height")
	wantErr(t, c, "resize_pane", map[string]any{"pane_id": p0, "width": 20000}, "between 1 and 10000")
	wantErr(t, c, "resize_pane", map[string]any{"pane_id": p0, "zoom": "yes"}, "zoom")
}

func TestPaneTitleClearCopyMode(t *testing.T) {
	c := start(t)
	_, p := c.Tmx.NewSession("s")
	var got paneX
	title := "build #{pane_id} #(touch /tmp/never) ##"
	c.OK("set_pane_title", map[string]any{"pane_id": p, "title": title}, &got)
	if got.PaneTitle != title {
		t.Errorf("title = %q, want it literally %q", got.PaneTitle, title)
	}
	wantErr(t, c, "set_pane_title", map[string]any{"pane_id": p, "title": "a\nb"}, "line break")
	wantErr(t, c, "set_pane_title", map[string]any{"pane_id": p}, "title")

	// Fill screen and history, then clear both.
	c.Tmx.Tmux("send-keys", "-t", p, "for i in $(seq 1 100); do echo line$i; done", "Enter")
	c.Tmx.WaitFor(p, func(s string) bool { return strings.Contains(s, "line100") })
	var res resultText
	c.OK("clear_pane", map[string]any{"pane_id": p}, &res)
	if !strings.Contains(res.Result, p) {
		t.Errorf("clear_pane result = %q", res.Result)
	}
	if h := c.fmt(p, "#{history_size}"); h != "0" {
		t.Errorf("history_size after clear = %s", h)
	}
	if s := c.Tmx.Tmux("capture-pane", "-p", "-t", p); strings.Contains(s, "line") {
		t.Errorf("screen after clear:\n%s", s)
	}

	c.Tmx.Tmux("send-keys", "-t", p, "seq 1 200 | sed s/^/n/", "Enter")
	c.Tmx.WaitFor(p, func(s string) bool { return strings.Contains(s, "n200") })
	c.OK("enter_copy_mode", map[string]any{"pane_id": p, "scroll_up": 50}, &got)
	if !got.PaneInMode {
		t.Fatalf("enter_copy_mode: not in mode: %+v", got)
	}
	if pos := c.fmt(p, "#{scroll_position}"); pos != "50" {
		t.Errorf("scroll_position = %s, want 50", pos)
	}
	c.OK("exit_copy_mode", map[string]any{"pane_id": p}, &got)
	if got.PaneInMode {
		t.Fatalf("exit_copy_mode: still in mode")
	}
	c.OK("exit_copy_mode", map[string]any{"pane_id": p}, &got) // no mode: nothing to do
	wantErr(t, c, "enter_copy_mode", map[string]any{"pane_id": p, "scroll_up": -1}, "scroll_up")
}

func TestRespawnPane(t *testing.T) {
	c := start(t)
	_, p := c.Tmx.NewSession("s")
	pid := c.fmt(p, "#{pane_pid}")
	var got paneX
	c.OK("respawn_pane", map[string]any{"pane_id": p, "shell": "bash --noprofile --norc", "environment": map[string]any{"MCP_MARK": "x1"}, "start_directory": c.Tmx.Home}, &got)
	if got.PaneID != p || fmt.Sprint(got.PanePID) == pid {
		t.Fatalf("respawn: same pid %s: %+v", pid, got)
	}
	c.Tmx.WaitPrompt(p)
	c.Tmx.Tmux("send-keys", "-t", p, "echo mark=$MCP_MARK", "Enter")
	c.Tmx.WaitFor(p, func(s string) bool { return strings.Contains(s, "mark=x1") })

	wantErr(t, c, "respawn_pane", map[string]any{"pane_id": p, "kill": false}, "still running")
	wantErr(t, c, "respawn_pane", map[string]any{}, "pane_id")
	wantErr(t, c, "respawn_pane", map[string]any{"pane_id": "%1;kill-server"}, "not a pane id")
	wantErr(t, c, "respawn_pane", map[string]any{"pane_id": p, "environment": map[string]any{"HISTFILE": "/x"}, "suppress_persistent_history": true}, "HISTFILE")

	// A dead pane respawns with kill=false.
	c.Tmx.Tmux("set-option", "-t", p, "remain-on-exit", "on")
	c.Tmx.Tmux("send-keys", "-t", p, "exit", "Enter")
	c.Tmx.WaitFor(p, func(string) bool { return c.fmt(p, "#{pane_dead}") == "1" })
	c.OK("respawn_pane", map[string]any{"pane_id": p, "kill": false}, &got)
	if got.PaneDead {
		t.Errorf("respawn of a dead pane: still dead")
	}
}

func TestKills(t *testing.T) {
	c := destructive(t)
	sid, p0 := c.Tmx.NewSession("s")
	p1 := c.Tmx.SplitWindow(p0)
	var res resultText
	c.OK("kill_pane", map[string]any{"pane_id": p1}, &res)
	if c.paneExists(p1) {
		t.Errorf("pane %s survived kill_pane", p1)
	}
	wantErr(t, c, "kill_pane", map[string]any{"pane_id": p1}, "no pane has id")
	wantErr(t, c, "kill_pane", map[string]any{}, "pane_id")

	w2 := c.Tmx.NewWindow("s")
	wid := c.fmt(w2, "#{window_id}")
	c.OK("kill_window", map[string]any{"window_id": wid}, &res)
	if n := c.Tmx.Tmux("display-message", "-p", "-t", sid, "#{session_windows}"); n != "1" {
		t.Errorf("windows after kill_window: %s", n)
	}
	wantErr(t, c, "kill_window", map[string]any{}, "window_id")
	wantErr(t, c, "kill_window", map[string]any{"window_id": "1"}, "not a window id")

	c.Tmx.NewSession("other")
	wantErr(t, c, "kill_session", map[string]any{}, "needs session_name or session_id")
	wantErr(t, c, "kill_session", map[string]any{"session_name": "oth"}, "no session is named")
	first := atoi(c.Tmx.Tmux("display-message", "-p", "#{pid}"))
	c.OK("kill_session", map[string]any{"session_name": "other"}, &res)
	c.OK("kill_session", map[string]any{"session_id": sid}, &res)
	waitGone(t, first) // the last session gone, the server exits; the next starts another
	// With no server on a socket, kill_server says so.
	wantErr(t, c, "kill_server", map[string]any{"socket_name": "e2e-none"}, "no tmux server")

	c.Tmx.NewSession("again")
	daemon := atoi(c.Tmx.Tmux("display-message", "-p", "#{pid}"))
	c.OK("kill_server", map[string]any{}, &res)
	if _, err := c.Tmx.TryTmux("list-sessions"); err == nil {
		t.Errorf("the tmux server survived kill_server")
	}
	waitGone(t, daemon)
	// The MCP server keeps working against a new tmux server on the same socket.
	c.Tmx.NewSession("after")
	var list struct{ Sessions []session }
	c.OK("list_sessions", nil, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].SessionName != "after" {
		t.Errorf("after kill_server and a restart: %+v", list.Sessions)
	}
}

func TestSessionAndWindowTools(t *testing.T) {
	c := start(t)
	sid, p0 := c.Tmx.NewSession("s")
	c.Tmx.NewSession("taken")
	var s session
	c.OK("rename_session", map[string]any{"session_id": sid, "new_name": "dev #{pane_id}"}, &s)
	if s.SessionName != "dev #{pane_id}" || s.SessionID != sid {
		t.Errorf("rename_session = %+v", s)
	}
	wantErr(t, c, "rename_session", map[string]any{"session_id": sid, "new_name": "taken"}, "already exists")
	wantErr(t, c, "rename_session", map[string]any{"session_id": sid, "new_name": "a:b"}, "new_name")
	wantErr(t, c, "rename_session", map[string]any{"session_id": sid}, "new_name")

	p1 := c.Tmx.NewWindow(sid)
	w0, w1 := c.fmt(p0, "#{window_id}"), c.fmt(p1, "#{window_id}")
	var w windowX
	c.OK("select_window", map[string]any{"window_id": w1}, &w)
	if w.WindowID != w1 || !w.WindowActive {
		t.Errorf("select_window by id = %+v", w)
	}
	c.OK("select_window", map[string]any{"session_id": sid, "window_index": "0"}, &w)
	if w.WindowID != w0 {
		t.Errorf("select_window by index = %+v", w)
	}
	c.OK("select_window", map[string]any{"session_id": sid, "direction": "next"}, &w)
	if w.WindowID != w1 {
		t.Errorf("select_window next = %+v", w)
	}
	c.OK("select_window", map[string]any{"session_id": sid, "direction": "last"}, &w)
	if w.WindowID != w0 {
		t.Errorf("select_window last = %+v", w)
	}
	wantErr(t, c, "select_window", map[string]any{"session_id": sid}, "needs window_id, window_index or direction")
	wantErr(t, c, "select_window", map[string]any{"session_id": sid, "window_index": "7"}, "no window at index 7")

	c.OK("rename_window", map[string]any{"window_id": w1, "new_name": "logs #S"}, &w)
	if w.WindowName != "logs #S" {
		t.Errorf("rename_window = %+v", w)
	}
	wantErr(t, c, "rename_window", map[string]any{"window_id": w1, "new_name": ""}, "empty")

	c.Tmx.SplitWindow(p0)
	c.OK("select_layout", map[string]any{"window_id": w0, "layout": "even-horizontal"}, &w)
	layout := w.WindowLayout
	c.OK("select_layout", map[string]any{"window_id": w0, "layout": "even-vertical"}, &w)
	if w.WindowLayout == layout {
		t.Errorf("even-vertical did not change the layout %s", layout)
	}
	c.OK("select_layout", map[string]any{"window_id": w0, "layout": layout}, &w)
	if w.WindowLayout != layout {
		t.Errorf("layout string: got %s want %s", w.WindowLayout, layout)
	}
	wantErr(t, c, "select_layout", map[string]any{"window_id": w0, "layout": "spiral"}, "neither a built-in layout")
	wantErr(t, c, "select_layout", map[string]any{"window_id": w0, "layout": "abcd,80x24,0,0,5"}, "tmux refused layout")

	c.OK("resize_window", map[string]any{"window_id": w0, "width": 100, "height": 30}, &w)
	if w.WindowWidth != 100 || w.WindowHeight != 30 {
		t.Errorf("resize_window = %+v", w)
	}
	wantErr(t, c, "resize_window", map[string]any{"window_id": w0}, "needs width or height")

	c.OK("move_window", map[string]any{"window_id": w1, "destination_index": "5"}, &w)
	if w.WindowIndex != 5 || w.WindowID != w1 {
		t.Errorf("move_window to 5 = %+v", w)
	}
	c.OK("move_window", map[string]any{"window_id": w1, "destination_session": "taken"}, &w)
	if w.SessionID == sid || w.WindowID != w1 {
		t.Errorf("move_window to session taken = %+v", w)
	}
	wantErr(t, c, "move_window", map[string]any{"window_id": w0, "destination_index": "x"}, "not a window index")
	wantErr(t, c, "move_window", map[string]any{"window_id": w0, "destination_session": "nope"}, "no session is named")
	wantErr(t, c, "move_window", map[string]any{"window_id": w1, "destination_index": "0"}, "in use")
}

// TestSelfProtection runs the server as if inside a pane of the test's tmux server: it must
// refuse to kill, respawn or clear its own pane, window, session or server.
func TestSelfProtection(t *testing.T) {
	c0 := destructive(t)
	sid, own := c0.Tmx.NewSession("own")
	other := c0.Tmx.SplitWindow(own)
	otherWin := c0.Tmx.NewWindow(sid)
	osid, _ := c0.Tmx.NewSession("other")
	pid := c0.Tmx.Tmux("display-message", "-p", "#{pid}")
	c := startOn(t, c0.Tmx, "LIBTMUX_SAFETY=destructive",
		fmt.Sprintf("TMUX=%s,%s,%s", c0.Tmx.Socket, pid, strings.TrimPrefix(sid, "$")), "TMUX_PANE="+own)

	var p paneX
	c.OK("get_pane_info", map[string]any{"pane_id": own}, &p)
	if p.IsCaller == nil || !*p.IsCaller {
		t.Fatalf("is_caller of the own pane = %v", p.IsCaller)
	}
	wid := c.fmt(own, "#{window_id}")
	refusals := []struct {
		tool string
		args map[string]any
	}{
		{"kill_pane", map[string]any{"pane_id": own}},
		{"respawn_pane", map[string]any{"pane_id": own}},
		{"clear_pane", map[string]any{"pane_id": own}},
		{"clear_pane", map[string]any{"session_id": sid}}, // resolves to the own pane
		{"paste_buffer", map[string]any{"pane_id": own, "buffer_name": "libtmux_mcp_0123456789abcdef0123456789abcdef_x"}},
		{"kill_window", map[string]any{"window_id": wid}},
		{"kill_session", map[string]any{"session_id": sid}},
		{"kill_session", map[string]any{"session_name": "own"}},
		{"kill_server", map[string]any{}},
		{"call_destructive_tools_batch", map[string]any{"operations": []any{map[string]any{"tool": "kill_pane", "arguments": map[string]any{"pane_id": own}}}}},
	}
	for _, r := range refusals {
		res := c.Call(r.tool, r.args)
		msg := text(res)
		if r.tool == "call_destructive_tools_batch" {
			if res.IsError || !strings.Contains(msg, "refusing") {
				t.Errorf("batch kill of the own pane: %s", msg)
			}
			continue
		}
		if !res.IsError || !strings.Contains(msg, "refusing") || !strings.Contains(msg, "\n\n") {
			t.Errorf("%s(%v): want a refusal, got %s", r.tool, r.args, msg)
		}
	}
	if !c.paneExists(own) {
		t.Fatalf("own pane is gone")
	}
	// Everything else stays reachable.
	c.OK("clear_pane", map[string]any{"pane_id": other}, nil)
	c.OK("kill_pane", map[string]any{"pane_id": other}, nil)
	c.OK("kill_window", map[string]any{"window_id": c.fmt(otherWin, "#{window_id}")}, nil)
	c.OK("kill_session", map[string]any{"session_id": osid}, nil)

	// TMUX without TMUX_PANE: the server cannot tell its pane, so it refuses every pane kill there.
	c2 := startOn(t, c0.Tmx, "LIBTMUX_SAFETY=destructive", fmt.Sprintf("TMUX=%s,%s,%s", c0.Tmx.Socket, pid, "0"))
	p2 := c0.Tmx.SplitWindow(own)
	wantErr(t, c2, "kill_pane", map[string]any{"pane_id": p2}, "cannot tell")
	wantErr(t, c2, "kill_session", map[string]any{"session_id": sid}, "cannot tell")

	// Another tmux server (another socket) may be killed.
	otherTmux := func(args ...string) error {
		cmd := exec.Command("tmux", append([]string{"-L", "e2e-other", "-f", c0.Tmx.Conf}, args...)...)
		cmd.Env = c0.Tmx.Env
		return cmd.Run()
	}
	if err := otherTmux("new-session", "-d", "-s", "x"); err != nil {
		t.Fatalf("starting another tmux server: %v", err)
	}
	t.Cleanup(func() { otherTmux("kill-server") })
	res := c.Call("kill_server", map[string]any{"socket_name": "e2e-other"})
	if res.IsError {
		t.Fatalf("kill_server of another server: %s", text(res))
	}
	if otherTmux("has-session") == nil {
		t.Errorf("the other tmux server survived kill_server")
	}
}
