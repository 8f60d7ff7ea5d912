package control

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// privateTmux is a tmux server of its own for one test: its socket lives in
// a temporary directory and it is killed at cleanup.
type privateTmux struct {
	dir  string
	sock string
	cfg  string
	env  []string
}

// startTmux starts a private server with one detached session "s" running
// a clean bash; it skips the test when tmux is missing.
func startTmux(tb testing.TB) *privateTmux {
	tb.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		tb.Skip("tmux not installed")
	}
	// A short directory keeps the socket path under the sun_path limit.
	dir, err := os.MkdirTemp("", "tm")
	if err != nil {
		tb.Fatal(err)
	}
	tm := &privateTmux{dir: dir, sock: filepath.Join(dir, "sock"), cfg: filepath.Join(dir, "tmux.conf")}
	if err := os.WriteFile(tm.cfg, []byte("set -g default-command 'bash --noprofile --norc'\n"), 0o600); err != nil {
		tb.Fatal(err)
	}
	// No locale, as MCP clients start servers; -u (command) is how the engine reads UTF-8 then.
	tm.env = testtmux.Env(dir, dir)
	tb.Cleanup(func() {
		exec.Command("tmux", "-S", tm.sock, "kill-server").Run()
		if os.Getenv("DEBUGTMUX") != "" && tb.Failed() {
			tb.Logf("kept %s", dir)
			return
		}
		os.RemoveAll(dir)
	})
	pre := []string{}
	if os.Getenv("DEBUGTMUX") != "" {
		pre = append(pre, "-vv")
	}
	if out, err := tm.command(append(pre, "new-session", "-d", "-s", "s", "-x", "80", "-y", "24",
		"bash --noprofile --norc")...).CombinedOutput(); err != nil {
		tb.Fatalf("new-session: %v: %s", err, out)
	}
	return tm
}

// command is a spawned tmux client of the private server, with -u as the engine's.
func (tm *privateTmux) command(args ...string) *exec.Cmd {
	cmd := exec.Command("tmux", append([]string{"-u", "-S", tm.sock, "-f", tm.cfg}, args...)...)
	cmd.Env = tm.env
	cmd.Dir = tm.dir
	return cmd
}

// attach starts `tmux -C attach -t s` and a Conn over its pipes and makes
// one round trip; cleanup closes it and waits for the process.
func (tm *privateTmux) attach(tb testing.TB, opts Options) *Conn {
	tb.Helper()
	c := tm.attachTo(tb, "s", opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Do(ctx, []string{"display-message", "-p", "ready"}); err != nil {
		tb.Fatalf("control client not ready: %v", err)
	}
	return c
}

// attachTo starts `tmux -C attach -t session` and a Conn over its pipes.
// With DEBUGTMUX set in the environment, tmux logs (-vv) into the test's
// directory, which is kept when the test fails.
func (tm *privateTmux) attachTo(tb testing.TB, session string, opts Options) *Conn {
	tb.Helper()
	args := []string{"-C", "attach", "-t", session}
	if os.Getenv("DEBUGTMUX") != "" {
		args = append([]string{"-vv"}, args...)
	}
	cmd := tm.command(args...)
	cmd.Dir = tm.dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	c := NewConn(stdout, stdin, opts)
	tb.Cleanup(func() {
		c.Close()
		select {
		case <-c.Done():
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
		}
		cmd.Wait()
	})
	return c
}
