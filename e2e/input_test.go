package e2e

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

type sendResult struct {
	PaneID string `json:"pane_id"`
	Sent   string `json:"sent"`
}

// screenHas waits until the pane shows s.
func screenHas(c *Client, pane, s string) string {
	c.t.Helper()
	return c.Tmx.WaitFor(pane, func(screen string) bool { return strings.Contains(screen, s) })
}

func TestSendKeysTextAndKeys(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	var r sendResult
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "echo hello-$((40+2))"}, &r)
	if r.PaneID != pane || !strings.Contains(r.Sent, "Enter") {
		t.Errorf("send_keys = %+v", r)
	}
	screenHas(c, pane, "hello-42")

	// Text that starts with '-' is typed, not read as a flag.
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "-n dash-text", "enter": false}, nil)
	screenHas(c, pane, "$ -n dash-text")
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "C-u", "enter": false}, nil)

	// Multi-line text: each line runs.
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "echo line-$((1))\necho line-$((2))"}, nil)
	screenHas(c, pane, "line-2")
	screenHas(c, pane, "line-1")

	// A key name is sent as the key: C-c interrupts sleep.
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "sleep 100"}, nil)
	c.Tmx.WaitFor(pane, func(string) bool {
		return c.Tmx.Tmux("display-message", "-p", "-t", pane, "#{pane_current_command}") == "sleep"
	})
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "C-c", "enter": false}, &r)
	if r.Sent != "keys C-c" {
		t.Errorf("sent = %q", r.Sent)
	}
	c.Tmx.WaitFor(pane, func(string) bool {
		return c.Tmx.Tmux("display-message", "-p", "-t", pane, "#{pane_current_command}") == "bash"
	})

	// Several key names: Up recalls history, then Enter.
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "echo again-$((7*6))"}, nil)
	screenHas(c, pane, "again-42")
	c.Tmx.Tmux("send-keys", "-t", pane, "clear", "Enter")
	c.Tmx.WaitFor(pane, func(s string) bool { return !strings.Contains(s, "again-42") })
	// "clear" was the last command: Up Up recalls the echo.
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "Up Up Enter", "enter": false}, &r)
	if r.Sent != "keys Up Up Enter" {
		t.Errorf("sent = %q", r.Sent)
	}
	screenHas(c, pane, "again-42")

	// literal=true types a key name as text.
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "C-c", "literal": true, "enter": false}, nil)
	screenHas(c, pane, "$ C-c")
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "C-u", "enter": false}, nil)

	// suppress_history prefixes a space.
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "echo quiet", "suppress_history": true, "enter": false}, nil)
	screenHas(c, pane, "$  echo quiet")
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "C-u", "enter": false}, nil)

	// Target resolution: the session's active pane.
	c.OK("send_keys", map[string]any{"session_name": "s", "keys": "echo via-session"}, &r)
	if r.PaneID != pane {
		t.Errorf("resolved %s, want %s", r.PaneID, pane)
	}
	screenHas(c, pane, "via-session")
}

func TestSendKeysRefusals(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	// The shell at its first prompt: nothing else changes the screen (a "clear" typed first
	// left a moment where the old prompt passed for the new one, and the screen then changed).
	c.Tmx.WaitPrompt(pane)
	before := c.Tmx.Tmux("capture-pane", "-p", "-t", pane)
	for _, k := range []string{"Shift+Tab", "C-", "Ctrl-C", "<Enter>", "Esc", "S-Tab"} {
		msg := c.Fail("send_keys", map[string]any{"pane_id": pane, "keys": k, "enter": false})
		if !strings.Contains(msg, "not a tmux key name") || !strings.Contains(msg, "Valid key names") || !strings.Contains(msg, "BTab") {
			t.Errorf("%q: %s", k, msg)
		}
	}
	msg := c.Fail("send_keys", map[string]any{"pane_id": pane, "keys": "Shift+Tab"})
	if !strings.Contains(msg, "use BTab") {
		t.Errorf("Shift+Tab should suggest BTab: %s", msg)
	}
	if msg := c.Fail("send_keys", map[string]any{"pane_id": pane, "keys": "", "enter": false}); !strings.Contains(msg, "nothing to send") {
		t.Errorf("empty: %s", msg)
	}
	time.Sleep(100 * time.Millisecond)
	if after := c.Tmx.Tmux("capture-pane", "-p", "-t", pane); strings.TrimSpace(after) != strings.TrimSpace(before) {
		t.Errorf("refused calls typed something:\n%s", after)
	}
}

func TestSendKeysDeadPane(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	other := c.Tmx.SplitWindow(pane)
	c.Tmx.Tmux("set-option", "-p", "-t", other, "remain-on-exit", "on")
	c.Tmx.Tmux("send-keys", "-t", other, "exit", "Enter")
	c.Tmx.WaitFor(other, func(string) bool {
		return c.Tmx.Tmux("display-message", "-p", "-t", other, "#{pane_dead}") == "1"
	})
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"send_keys", map[string]any{"pane_id": other, "keys": "echo x"}},
		{"paste_text", map[string]any{"pane_id": other, "text": "echo x"}},
	} {
		if msg := c.Fail(tc.tool, tc.args); !strings.Contains(msg, "is dead") || !strings.Contains(msg, "respawn_pane") {
			t.Errorf("%s into a dead pane: %s", tc.tool, msg)
		}
	}
	var out keysBatchResult
	c.OK("send_keys_batch", map[string]any{"operations": []any{map[string]any{"pane_id": other, "keys": "x"}}}, &out)
	if out.Failed != 1 || out.Results[0].Error == nil || !strings.Contains(*out.Results[0].Error, "respawn_pane") {
		t.Errorf("batch into a dead pane: %+v", out)
	}
}

type keysBatchResult struct {
	Results []struct {
		Index          int     `json:"index"`
		PaneID         *string `json:"pane_id"`
		Success        bool    `json:"success"`
		Error          *string `json:"error"`
		ElapsedSeconds float64 `json:"elapsed_seconds"`
	} `json:"results"`
	Succeeded int  `json:"succeeded"`
	Failed    int  `json:"failed"`
	StoppedAt *int `json:"stopped_at"`
}

func TestSendKeysBatch(t *testing.T) {
	c := start(t)
	_, p1 := c.Tmx.NewSession("s")
	p2 := c.Tmx.SplitWindow(p1)
	ops := []any{
		map[string]any{"pane_id": p1, "keys": "echo one-$((1))"},
		map[string]any{"pane_id": "%999", "keys": "echo never"},
		map[string]any{"pane_id": p2, "keys": "echo two-$((2))"},
		map[string]any{"pane_id": p2, "keys": "Shift+Tab"},
		map[string]any{"pane_id": p1, "keys": "echo three-$((3))"},
	}
	var out keysBatchResult
	c.OK("send_keys_batch", map[string]any{"operations": ops}, &out)
	if out.Succeeded != 1 || out.Failed != 1 || out.StoppedAt == nil || *out.StoppedAt != 1 || len(out.Results) != 2 {
		t.Fatalf("stop: %+v", out)
	}
	if r := out.Results[0]; !r.Success || r.PaneID == nil || *r.PaneID != p1 || r.Error != nil {
		t.Errorf("row 0: %+v", r)
	}
	if r := out.Results[1]; r.Success || r.PaneID != nil || r.Error == nil || !strings.Contains(*r.Error, "%999") {
		t.Errorf("row 1: %+v", r)
	}
	screenHas(c, p1, "one-1")

	c.OK("send_keys_batch", map[string]any{"operations": ops, "on_error": "continue"}, &out)
	if out.Succeeded != 3 || out.Failed != 2 || out.StoppedAt != nil || len(out.Results) != 5 {
		t.Fatalf("continue: %+v", out)
	}
	for i, want := range []bool{true, false, true, false, true} {
		if r := out.Results[i]; r.Index != i || r.Success != want {
			t.Errorf("row %d: %+v", i, r)
		}
	}
	if e := out.Results[3].Error; e == nil || !strings.Contains(*e, "BTab") {
		t.Errorf("row 3 should refuse Shift+Tab: %v", e)
	}
	screenHas(c, p2, "two-2")
	screenHas(c, p1, "three-3")

	// Per-row flags: enter=false leaves the text pending; literal types a key name as text.
	c.OK("send_keys_batch", map[string]any{"operations": []any{
		map[string]any{"pane_id": p2, "keys": "C-c", "literal": true, "enter": false},
		map[string]any{"pane_id": p2, "keys": " typed", "literal": true, "enter": false},
	}}, &out)
	if out.Succeeded != 2 {
		t.Errorf("flags: %+v", out)
	}
	screenHas(c, p2, "$ C-c typed")

	// Strict rows and bounds.
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"operations": []any{}}, "operations"},
		{map[string]any{"operations": []any{map[string]any{"keys": "x", "bogus": 1}}}, "bogus"},
		{map[string]any{"operations": []any{map[string]any{"pane_id": p1}}}, "keys"},
		{map[string]any{"operations": []any{map[string]any{"keys": "x", "enter": "yes"}}}, "enter"},
		{map[string]any{"operations": make([]any, 65)}, "operations"},
		{map[string]any{"operations": []any{map[string]any{"keys": "x"}}, "on_error": "ignore"}, "on_error"},
		{map[string]any{"operations": []any{map[string]any{"keys": "x"}}, "timeout": -1}, "timeout"},
	} {
		if msg := c.Fail("send_keys_batch", tc.args); !strings.Contains(msg, tc.want) {
			t.Errorf("%v: %s", tc.args, msg)
		}
	}
}

func TestSendKeysBatchTimeout(t *testing.T) {
	c := start(t)
	_, p1 := c.Tmx.NewSession("s")
	c.OK("list_sessions", nil, nil) // the control connection is up
	proc, err := os.FindProcess(atoi(c.Tmx.Tmux("display-message", "-p", "#{pid}")))
	if err != nil {
		t.Fatal(err)
	}
	proc.Signal(sigStop)
	defer proc.Signal(sigCont)
	ops := []any{
		map[string]any{"pane_id": p1, "keys": "echo a"},
		map[string]any{"pane_id": p1, "keys": "echo b"},
		map[string]any{"pane_id": p1, "keys": "echo c"},
	}
	begin := time.Now()
	var out keysBatchResult
	// Should the call hang, SIGQUIT makes the server print its goroutines into the test log.
	dbg := time.AfterFunc(8*time.Second, func() { c.cmd.Process.Signal(syscall.SIGQUIT) })
	c.OK("send_keys_batch", map[string]any{"operations": ops, "timeout": 0.5, "on_error": "continue"}, &out)
	dbg.Stop()
	if d := time.Since(begin); d > 3*time.Second {
		t.Errorf("a batch with timeout 0.5 s took %v", d)
	}
	if out.Failed != 3 || len(out.Results) != 3 {
		t.Fatalf("%+v", out)
	}
	for i, r := range out.Results {
		if r.Error == nil || !strings.Contains(*r.Error, "exceeded its timeout of 0.5s") {
			t.Errorf("row %d: %v", i, r.Error)
		}
	}
	proc.Signal(sigCont)
	c.OK("send_keys", map[string]any{"pane_id": p1, "keys": "echo alive-$((1))"}, nil)
	screenHas(c, p1, "alive-1")
}

func TestPasteText(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	c.Tmx.Tmux("set-buffer", "-b", "mine", "user clipboard")
	text := "printf '%s|%s\\n' \"it's\" 'say \"hi\"'\necho `echo back`-$((6*7))\n"
	var out struct {
		PaneID string `json:"pane_id"`
		Bytes  int    `json:"bytes"`
	}
	c.OK("paste_text", map[string]any{"pane_id": pane, "text": text, "bracket": false}, &out)
	if out.PaneID != pane || out.Bytes != len(text) {
		t.Errorf("paste_text = %+v", out)
	}
	screenHas(c, pane, `it's|say "hi"`)
	screenHas(c, pane, "back-42")
	if bufs := c.Tmx.Tmux("list-buffers", "-F", "#{buffer_name}"); bufs != "mine" {
		t.Errorf("buffers after paste: %q", bufs)
	}
	if got := c.Tmx.Tmux("show-buffer", "-b", "mine"); got != "user clipboard" {
		t.Errorf("the user's buffer changed: %q", got)
	}

	// Bracketed paste: bash shows the lines and runs nothing until Enter.
	c.OK("paste_text", map[string]any{"pane_id": pane, "text": "echo bracketed-$((1))\necho bracketed-$((2))"}, nil)
	screenHas(c, pane, "echo bracketed-$((2))")
	if s := c.Tmx.Tmux("capture-pane", "-p", "-t", pane); strings.Contains(s, "\nbracketed-1\n") {
		t.Errorf("bracketed paste ran a line:\n%s", s)
	}
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "Enter", "enter": false}, nil)
	screenHas(c, pane, "\nbracketed-2\n")
	if bufs := c.Tmx.Tmux("list-buffers", "-F", "#{buffer_name}"); bufs != "mine" {
		t.Errorf("buffers after paste: %q", bufs)
	}

	// Refusals: nothing loaded, nothing left behind.
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pane_id": pane, "text": ""}, "empty"},
		{map[string]any{"pane_id": pane, "text": "a\x00b"}, "NUL"},
		{map[string]any{"pane_id": pane, "text": strings.Repeat("x", 10<<20)}, "at most"},
		{map[string]any{"pane_id": "%999", "text": "x"}, "no pane has id %999"},
		{map[string]any{"pane_id": "%1'", "text": "x"}, "not a pane id"},
	} {
		if msg := c.Fail("paste_text", tc.args); !strings.Contains(msg, tc.want) {
			t.Errorf("%.60v: %s", tc.args, msg)
		}
	}
	if bufs := c.Tmx.Tmux("list-buffers", "-F", "#{buffer_name}"); bufs != "mine" {
		t.Errorf("buffers after refusals: %q", bufs)
	}
}

func TestInputCallerPane(t *testing.T) {
	tmx := testtmux.New(t)
	sid, mine := tmx.NewSession("s")
	other := tmx.SplitWindow(mine)
	pid := tmx.Tmux("display-message", "-p", "#{pid}")
	c := startOn(t, tmx, fmt.Sprintf("TMUX=%s,%s,%s", tmx.Socket, pid, strings.TrimPrefix(sid, "$")), "TMUX_PANE="+mine)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"send_keys", map[string]any{"pane_id": mine, "keys": "echo x"}},
		{"send_keys", map[string]any{"pane_id": mine, "keys": "C-c", "enter": false}},
		{"paste_text", map[string]any{"pane_id": mine, "text": "echo x"}},
	} {
		if msg := c.Fail(tc.tool, tc.args); !strings.Contains(msg, "runs in") {
			t.Errorf("%s into the caller's pane: %s", tc.tool, msg)
		}
	}
	var out keysBatchResult
	c.OK("send_keys_batch", map[string]any{"on_error": "continue", "operations": []any{
		map[string]any{"pane_id": mine, "keys": "echo x"},
		map[string]any{"pane_id": other, "keys": "echo fine-$((1))"},
	}}, &out)
	if out.Failed != 1 || out.Succeeded != 1 || out.Results[0].Error == nil || !strings.Contains(*out.Results[0].Error, "runs in") {
		t.Errorf("batch: %+v", out)
	}
	c.OK("send_keys", map[string]any{"pane_id": other, "keys": "echo other-$((2))"}, nil)
	screenHas(c, other, "other-2")
	screenHas(c, other, "fine-1")
	if s := tmx.Tmux("capture-pane", "-p", "-t", mine); strings.Contains(s, "echo") {
		t.Errorf("the caller's pane received input:\n%s", s)
	}
	// Inside this tmux server but without TMUX_PANE: the server cannot tell its own pane, so
	// it refuses input everywhere on that server.
	unsure := startOn(t, tmx, fmt.Sprintf("TMUX=%s,%s,%s", tmx.Socket, pid, strings.TrimPrefix(sid, "$")))
	if msg := unsure.Fail("send_keys", map[string]any{"pane_id": other, "keys": "echo x"}); !strings.Contains(msg, "cannot tell which pane") {
		t.Errorf("unsure: %s", msg)
	}
}

func TestInputBadInput(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	begin := time.Now()
	cases := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"send_keys", map[string]any{"pane_id": "1", "keys": "x"}, "not a pane id"},
		{"send_keys", map[string]any{"pane_id": "%1; kill-server", "keys": "x"}, "not a pane id"},
		{"send_keys", map[string]any{"pane_id": "%999", "keys": "x"}, "no pane has id %999"},
		{"send_keys", map[string]any{"window_id": "@x", "keys": "x"}, "not a window id"},
		{"send_keys", map[string]any{"session_id": "$1;", "keys": "x"}, "not a session id"},
		{"send_keys", map[string]any{"session_name": "#{pane_id}", "keys": "x"}, "no session is named"},
		{"send_keys", map[string]any{"pane_id": pane}, "keys"},
		{"send_keys", map[string]any{"pane_id": pane, "keys": 5}, "keys"},
		{"send_keys", map[string]any{"pane_id": pane, "keys": "x", "enter": "no"}, "enter"},
		{"send_keys", map[string]any{"pane_id": pane, "keys": "x", "force": true}, `"force"`},
		{"send_keys", map[string]any{"pane_id": pane, "keys": "echo \x00 nul"}, "NUL"},
		{"send_keys", map[string]any{"pane_id": pane, "keys": strings.Repeat("y", 10<<20)}, "paste_text"},
		{"send_keys", map[string]any{"pane_id": pane, "keys": "x", "socket_name": "../x"}, "not a valid tmux socket name"},
		{"paste_text", map[string]any{"pane_id": pane}, "text"},
	}
	for _, tc := range cases {
		msg := c.Fail(tc.tool, tc.args)
		if !strings.Contains(msg, tc.want) || !strings.Contains(msg, "\n\n") {
			t.Errorf("%s(%.80v): %q lacks %q or a hint", tc.tool, tc.args, truncateMsg(msg), tc.want)
		}
	}
	if d := time.Since(begin); d > 30*time.Second {
		t.Errorf("bad input took %v", d)
	}
	// Injection attempts in text stay inert: typed as text, never run by tmux.
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "#{pane_id} ; kill-server ' \" $(true)", "enter": false}, nil)
	screenHas(c, pane, "#{pane_id} ; kill-server ' \" $(true)")
	c.OK("list_sessions", nil, nil)
}

func truncateMsg(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

func TestToolsListWaitInput(t *testing.T) {
	c := start(t)
	want := map[string]struct{ ro, open bool }{
		"send_keys": {false, true}, "send_keys_batch": {false, true}, "paste_text": {false, true},
		"wait_for_text": {true, false}, "wait_for_channel": {false, false}, "signal_channel": {false, false},
	}
	seen := 0
	for tool, err := range c.CS.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		w, ok := want[tool.Name]
		if !ok {
			continue
		}
		seen++
		a := tool.Annotations
		if tool.Title == "" || tool.OutputSchema == nil || a == nil || a.ReadOnlyHint != w.ro || a.OpenWorldHint == nil || *a.OpenWorldHint != w.open {
			t.Errorf("%s: title %q, annotations %+v", tool.Name, tool.Title, a)
		}
		in := tool.InputSchema.(map[string]any)
		if in["additionalProperties"] != false {
			t.Errorf("%s: input schema is not strict", tool.Name)
		}
	}
	if seen != len(want) {
		t.Errorf("%d of %d tools offered", seen, len(want))
	}
	// At the readonly tier only wait_for_text remains.
	ro := start(t, "LIBTMUX_SAFETY=readonly")
	var names []string
	for tool, err := range ro.CS.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := want[tool.Name]; ok {
			names = append(names, tool.Name)
		}
	}
	if len(names) != 1 || names[0] != "wait_for_text" {
		t.Errorf("readonly tier offers %v", names)
	}
}
