package e2e

import (
	"regexp"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// interruptRe is the output of the interrupted command: "armed", then "got" from its trap.
// The terminal's echo of the keystroke (^C) may come between: it is not asserted either way.
var interruptRe = regexp.MustCompile(`^armed\n(\^C\n?)?got$`)

// TestShellCommandTrapsInterrupt: a command's own INT trap sees the C-c
// a person (or send_keys) types while it runs: `trap 'echo got; exit 3' INT; echo armed;
// sleep 5` ends at once with exit 3 and "got" after "armed", and the pane is free for the
// next run. ksh93 is the one that broke (under a nested frame the trap never fired and the
// pane stayed busy); every POSIX shell is held to the same. The C-c is sent once "armed" is on
// the screen (ksh93's sleep is a builtin: no process to wait for). fish has no trap builtin
// of this kind and is left out.
func TestShellCommandTrapsInterrupt(t *testing.T) {
	for _, shell := range testtmux.ShellNames() {
		if shell == "fish" {
			continue
		}
		t.Run(shell, func(t *testing.T) {
			testtmux.RequireShell(t, testtmux.Config(shell, "clean").Argv)
			t.Parallel()
			sc := startShellClient(t)
			for _, config := range []string{"clean", "rc"} {
				t.Run(config, func(t *testing.T) {
					sc := sc.For(t)
					p := sc.Tmx.StartShell(t, testtmux.Config(shell, config))
					defer p.Kill()
					done := make(chan attempt, 1)
					go func() {
						done <- sc.try("run_shell_command", p.ID, "trap 'echo got; exit 3' INT; echo armed; sleep 5", 20*time.Second)
					}()
					if !waitArmed(t, p, done) {
						return
					}
					p.Keys("C-c")
					a := <-done
					if a.errText != "" || a.outcome != "completed" || a.status != 3 || !interruptRe.MatchString(a.output) {
						t.Errorf("C-c to the command: %v; want exit 3, output \"armed\\ngot\"", a)
					}
					if b := sc.tryWhenFree("run_shell_command", p.ID, "echo free", 10*time.Second); !b.ok(0, "free") {
						t.Errorf("the pane after the interrupted run: %v", b)
					}
				})
			}
		})
	}
}

// waitArmed waits until the screen shows the line "armed", or the run returned first (then
// it fails t with what came back and returns false).
func waitArmed(t *testing.T, p *testtmux.ShellPane, done <-chan attempt) bool {
	t.Helper()
	deadline := time.Now().Add(testtmux.PromptWait)
	for {
		if screen, err := p.Poll(0, func(screen, _ string) bool { return hasLine(screen, "armed") }); err == nil {
			return true
		} else if time.Now().After(deadline) {
			t.Errorf("\"armed\" not on the screen: %v\n%s", err, screen)
			return false
		}
		select {
		case a := <-done:
			t.Errorf("the run returned before the command was armed: %v", a)
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
}
