package e2e

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRemoteHostComesBack: with two hosts, one's sshd is killed during a run and started again
// on its port. The next list_sessions on it works: at once, or, within the short time a slow
// failure is remembered, with an error that says it was remembered and when the host is asked
// again; the other host is served throughout. The run's error and wait_for_run then say the
// command may live on there (never to run it again), and a run in that pane is refused, typing
// nothing, until the shell shows its prompt again.
func TestRemoteHostComesBack(t *testing.T) {
	t.Parallel()
	c, net, hosts := startHosts(t, 2)
	h1, h2 := hosts[0], hosts[1]
	_, pane := h1.tmx.NewSession("far")
	h2.tmx.NewSession("other")
	c.OK("list_sessions", map[string]any{"host": "h1"}, nil)
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		done <- c.Call("run_command", map[string]any{"host": "h1", "pane_id": pane, "command": "sleep 20.0419; echo late", "timeout": 30})
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !running("sleep\x0020.0419\x00") {
		if time.Now().After(deadline) {
			t.Fatalf("the command did not start; screen:\n%s", h1.tmx.Tmux("capture-pane", "-p", "-t", pane))
		}
		time.Sleep(20 * time.Millisecond)
	}
	h1.sshd.Kill()
	select {
	case res := <-done:
		if !res.IsError {
			t.Fatalf("a run whose connection dropped succeeded: %s", text(res))
		}
		// The command lives on there: the error must not send the agent to run it again.
		if msg := text(res); strings.Contains(msg, "run the command in a live one") || !strings.Contains(msg, "capture_pane") {
			t.Errorf("a dropped run's error does not say the command may live on: %s", msg)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the run did not end when the connection dropped")
	}
	// Calls while the host is down fail naming it (for a second and a half: a failure is then
	// fresh, or at most a second old, when the host comes back); the other host answers.
	for begin := time.Now(); time.Since(begin) < 1500*time.Millisecond; {
		if msg := c.Fail("list_sessions", map[string]any{"host": "h1"}); !strings.Contains(msg, `host "h1"`) {
			t.Errorf("a call while the host is down: %s", msg)
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.OK("list_sessions", map[string]any{"host": "h2"}, nil)
	h1.sshd.Restart() // returns once sshd takes connections
	back := time.Now()
	res := c.Call("list_sessions", map[string]any{"host": "h1"})
	if res.IsError {
		msg := text(res)
		t.Logf("the first call after the host came back: %s", msg)
		if !strings.Contains(msg, "remembered") || !strings.Contains(msg, "asked again") {
			t.Errorf("a failure given again without saying it was remembered: %s", msg)
		}
		// At most a second or two: the call after that reconnects.
		time.Sleep(2*time.Second - time.Since(back))
		res = c.Call("list_sessions", map[string]any{"host": "h1"})
		if res.IsError {
			t.Fatalf("2 s after the host came back, list_sessions still fails: %s", text(res))
		}
	}
	if out, err := exec.Command("ssh", "-F", net.Config, "h1", "true").CombinedOutput(); err != nil {
		t.Errorf("ssh h1 true, once the host is back: %v %s", err, out)
	}
	var waited struct {
		Outcome string `json:"outcome"`
		Note    string `json:"note"`
	}
	c.OK("wait_for_run", map[string]any{"host": "h1", "pane_id": pane, "timeout": 0}, &waited)
	if waited.Outcome != "pane_died" || !strings.Contains(waited.Note, "connection") {
		t.Errorf("wait_for_run on the pane once back does not say the connection dropped: %+v", waited)
	}
	// The command still runs there, silent: a run must not type into it (it would read the
	// line as its input), but once C-c ends it, the shell's prompt lets runs in again.
	if msg := c.Fail("run_command", map[string]any{"host": "h1", "pane_id": pane, "command": "echo typed-into-sleep"}); !strings.Contains(msg, "lost from view") {
		t.Errorf("a run in the pane whose command may still run: %s", msg)
	}
	if screen := h1.tmx.Tmux("capture-pane", "-p", "-t", pane); strings.Contains(screen, "typed-into-sleep") || strings.Contains(screen, "tmux-mcp") {
		t.Errorf("a line was typed into the running command:\n%s", screen)
	}
	h1.tmx.Tmux("send-keys", "-t", pane, "C-c", "")
	var again struct {
		Output []string `json:"output"`
	}
	c.OK("run_command", map[string]any{"host": "h1", "pane_id": pane, "command": "echo again"}, &again)
	if len(again.Output) != 1 || again.Output[0] != "again" {
		t.Errorf("a run once the lost command ended: %+v", again)
	}
	var sessions struct {
		Sessions []struct {
			SessionName string `json:"session_name"`
		} `json:"sessions"`
	}
	c.OK("list_sessions", map[string]any{"host": "h1"}, &sessions)
	if len(sessions.Sessions) != 1 || sessions.Sessions[0].SessionName != "far" {
		t.Errorf("sessions on h1 once back: %+v", sessions)
	}
}

// TestRemoteRespawnNotLost: a run on another host that respawn_pane ended was not lost with a
// connection: wait_for_run says nothing of one, and the respawned shell takes a run at once.
func TestRemoteRespawnNotLost(t *testing.T) {
	t.Parallel()
	c, _, hosts := startHosts(t, 1, "LIBTMUX_SAFETY=destructive")
	_, pane := hosts[0].tmx.NewSession("far")
	on := map[string]any{"host": "h1", "pane_id": pane}
	c.OK("run_command", with(on, "command", "sleep 30", "timeout", 1), nil)
	c.OK("respawn_pane", with(on, "kill", true), nil)
	var waited struct {
		Outcome string `json:"outcome"`
		Note    string `json:"note"`
	}
	c.OK("wait_for_run", with(on, "timeout", 5), &waited)
	if waited.Outcome != "pane_died" || waited.Note != "" {
		t.Errorf("wait_for_run after respawn_pane: %+v", waited)
	}
	var again struct {
		Output []string `json:"output"`
	}
	c.OK("run_command", with(on, "command", "echo respawned"), &again)
	if len(again.Output) != 1 || again.Output[0] != "respawned" {
		t.Errorf("a run in the respawned pane: %+v", again)
	}
}

// with returns a copy of args with more key, value pairs.
func with(args map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range args {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}
