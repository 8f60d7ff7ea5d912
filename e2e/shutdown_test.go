package e2e

import (
	"strings"
	"testing"
	"time"
)

// Closing stdin ends the server within a second and leaves no tmux clients behind.
func TestStdinClosedExits(t *testing.T) {
	c := start(t)
	c.Tmx.NewSession("s")
	c.OK("list_sessions", nil, nil)
	if out := c.Tmx.Tmux("list-clients", "-F", "#{client_control_mode}"); !strings.Contains(out, "1") {
		t.Fatalf("expected the server's control client, got %q", out)
	}
	begin := time.Now()
	c.CS.Close()
	if c.cmd.ProcessState == nil {
		c.cmd.Wait()
	}
	if d := time.Since(begin); d > time.Second {
		t.Errorf("server took %v to exit after stdin closed", d)
	}
	if c.cmd.ProcessState != nil && !c.cmd.ProcessState.Success() {
		t.Errorf("exit status %v", c.cmd.ProcessState)
	}
	deadline := time.Now().Add(time.Second)
	for {
		out := c.Tmx.Tmux("list-clients", "-F", "#{client_pid}")
		if strings.TrimSpace(out) == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("clients left behind: %q", out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
