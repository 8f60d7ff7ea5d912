package server

import (
	"context"
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

func resultText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestInputRefusesReservedPane: a pane held by an unfinished run refuses input naming the run,
// except interrupt keys, which are how the run is stopped.
func TestInputRefusesReservedPane(t *testing.T) {
	s, tmx, pane := newTestServer(t, policy.Mutating)
	ctx := context.Background()
	call := func(tool string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		raw, _ := json.Marshal(args)
		res, err := s.Call(ctx, tool, raw)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// A run that outlives its call holds the pane.
	if res := call("run_shell_command", map[string]any{"paneId": pane, "command": "sleep 30 # make all", "timeoutMs": 300}); res.IsError {
		t.Fatal(resultText(res))
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"send_keys", map[string]any{"pane_id": pane, "keys": "echo hi"}},
		{"send_keys", map[string]any{"pane_id": pane, "keys": "C-c Enter"}}, // not only an interrupt
		{"paste_text", map[string]any{"pane_id": pane, "text": "echo hi"}},
	} {
		res := call(tc.tool, tc.args)
		if msg := resultText(res); !res.IsError || !strings.Contains(msg, `run_shell_command "sleep 30 # make all"`) || !strings.Contains(msg, "busy") {
			t.Errorf("%s(%v) into a reserved pane: %s", tc.tool, tc.args, msg)
		}
	}
	res := call("send_keys_batch", map[string]any{"operations": []any{map[string]any{"pane_id": pane, "keys": "ls"}}})
	if msg := resultText(res); res.IsError || !strings.Contains(msg, "make all") {
		t.Errorf("batch row into a reserved pane: %s", msg)
	}
	// Enter never follows a key name: C-c alone is only the interrupt.
	if res := call("send_keys", map[string]any{"pane_id": pane, "keys": "C-c"}); res.IsError {
		t.Errorf("C-c into a reserved pane must be allowed: %s", resultText(res))
	}
	tmx.WaitFor(pane, func(s string) bool { return strings.Contains(s, "^C") })
	// C-c ended the run: the pane is free.
	if res := call("wait_for_run", map[string]any{"pane_id": pane, "timeout": 10}); res.IsError {
		t.Errorf("wait_for_run: %s", resultText(res))
	}
	if res := call("send_keys", map[string]any{"pane_id": pane, "keys": "echo free"}); res.IsError {
		t.Errorf("after the run ended: %s", resultText(res))
	}
	tmx.WaitFor(pane, func(s string) bool { return strings.Contains(s, "\nfree") })
}

// TestSendKeysInterruptTaken: send_keys C-c to a shell at its prompt returns once the shell
// took it (started a new line for its prompt): an agent's next keys, sent at once, were read
// on a loaded machine before the signal, into the line bash then dropped ("echo hi" ran as
// "cho hi"), or added to a line it kept. Here the shell is stopped when the C-c comes (a child
// of sh, which tmux does not start again as it does a pane's own process): the call returns
// only once it ran again, and the next send_keys runs as typed.
func TestSendKeysInterruptTaken(t *testing.T) {
	s, tmx, _ := newTestServer(t, policy.Mutating)
	_, pane := tmx.NewSession("w", "sh", "-c", "bash --noprofile --norc; exit")
	ctx := context.Background()
	call := func(args map[string]any) {
		t.Helper()
		raw, _ := json.Marshal(args)
		if res, err := s.Call(ctx, "send_keys", raw); err != nil || res.IsError {
			t.Fatalf("send_keys %v: %v %v", args, res, err)
		}
	}
	out, err := exec.Command("pgrep", "-P", tmx.Tmux("display-message", "-p", "-t", pane, "#{pane_pid}")).Output()
	pid, err2 := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || err2 != nil {
		t.Skipf("the pane's bash: %q %v %v", out, err, err2)
	}
	call(map[string]any{"pane_id": pane, "keys": "echo partial", "enter": false})
	tmx.WaitFor(pane, func(s string) bool { return strings.Contains(s, "echo partial") })
	const stopped = 400 * time.Millisecond
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(stopped, func() { syscall.Kill(pid, syscall.SIGCONT) })
	began := time.Now()
	call(map[string]any{"pane_id": pane, "keys": "C-c"})
	if d := time.Since(began); d < stopped {
		t.Errorf("send_keys C-c returned after %v, while the shell could not take it", d)
	}
	call(map[string]any{"pane_id": pane, "keys": "echo taken"})
	tmx.WaitFor(pane, func(s string) bool { return strings.Contains(s, "\ntaken") })
	if screen := tmx.Tmux("capture-pane", "-p", "-t", pane); strings.Contains(screen, "\npartial") {
		t.Errorf("the dropped line ran:\n%s", screen)
	}
}

// A C-c is waited for (a new line from the shell) only when a shell at its prompt takes it:
// not while a run holds the pane (its command takes it; the wait ran its whole bound), not in
// fish (no new line at an empty prompt), not in a program.
func TestAtPrompt(t *testing.T) {
	for _, tc := range []struct {
		busy    bool
		program string
		want    bool
	}{
		{false, "bash", true}, {false, "zsh", true}, {true, "bash", false}, {false, "fish", false}, {false, "vim", false},
	} {
		if got := atPrompt(tc.busy, tc.program); got != tc.want {
			t.Errorf("atPrompt(%v, %q) = %v, want %v", tc.busy, tc.program, got, tc.want)
		}
	}
}
