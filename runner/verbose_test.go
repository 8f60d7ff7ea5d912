package runner

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestEngineVerbose: with verbose mode turned on at the prompt (set -v; zsh: setopt verbose),
// runs return exactly the command's output with its status (the command runs without verbose,
// so nothing of its text or the wrapper's is echoed into it); the screen shows none of the
// wrapper's lines; and the shell still echoes what is typed at its prompt after them, also
// after a run typed inline because the shell could not read the script (which must not end a
// shell with set -e). fish has no verbose mode.
func TestEngineVerbose(t *testing.T) {
	tmx, ts := realEngine(t)
	for _, tb := range tables {
		for _, sh := range testtmux.ShellNames() {
			if sh == "fish" {
				continue
			}
			for _, config := range []string{"clean", "strict"} {
				su := testtmux.Config(sh, config)
				inShell(t, tmx, tb.name+"/"+su.Name(), su, tb.table, func(t *testing.T, r *Runner, p *testtmux.ShellPane) {
					verboseCases(t, r, ts, p)
				})
			}
		}
	}
}

// verboseCases turns verbose mode on in p and runs TestEngineVerbose's cases.
func verboseCases(t *testing.T, r *Runner, ts *tmux.Server, p *testtmux.ShellPane) {
	on := "set -v"
	if p.Setup.Shell == "zsh" {
		on = "setopt verbose"
	}
	p.Type(on)
	p.WaitState("the prompt after "+on, func(screen, before string) bool {
		return strings.Contains(screen, on) && p.Setup.Prompt.MatchString(before)
	})
	verboseRun(t, r, ts, p, "echo one", "one", 0)
	verboseRun(t, r, ts, p, "echo two; false", "two", 1)
	verboseRun(t, r, ts, p, "case $- in *v*) echo verbose;; *) echo quiet;; esac", "quiet", 0)
	screen := p.S.Tmux("capture-pane", "-p", "-t", p.ID, "-S", "-100")
	if wrapperShown.MatchString(screen) || !strings.Contains(screen, on) ||
		!regexp.MustCompile(`(?m)^one\s*$`).MatchString(screen) || strings.Count(screen, "echo one") != 1 {
		t.Errorf("the screen shows the wrapper's lines or the command twice, or lost the lines above them:\n%s", screen)
	}
	promptEchoes(t, p, "typed")
	if p.Setup.Shell == "ash" {
		return // busybox ash's line editor takes at most 1023 bytes: no inline run there
	}
	r.beforeSend = func(path string) { os.Remove(path) } // as if on another machine
	verboseRun(t, r, ts, p, "echo inline", "inline", 0)
	promptEchoes(t, p, "again")
}

// verboseRun runs cmd in p and checks that it returned exactly out with status.
func verboseRun(t *testing.T, r *Runner, ts *tmux.Server, p *testtmux.ShellPane, cmd, out string, status int) {
	t.Helper()
	res, err := engineRun(t, r, ts, p, cmd, 20*time.Second)
	if err != nil || res.Outcome != Completed || res.ExitStatus == nil || *res.ExitStatus != status || res.Output != out {
		t.Fatalf("%q: %+v %v, want output %q, status %d; screen:\n%s", cmd, res, err, out, status,
			p.S.Tmux("capture-pane", "-p", "-t", p.ID))
	}
}

// promptEchoes types "echo <word>" at p's prompt and waits until the shell echoed the line it
// read (a line of its own, below the typed one): verbose mode is on, as the user left it.
func promptEchoes(t *testing.T, p *testtmux.ShellPane, word string) {
	t.Helper()
	re := regexp.MustCompile(`(?m)^echo ` + word + `\s*$`)
	p.WaitPrompt()
	p.Type("echo " + word)
	p.WaitState("the echo of echo "+word, func(screen, _ string) bool { return re.MatchString(screen) })
}

// TestEngineStrictInline: in a shell with set -e (typed at its prompt), a run whose script the shell cannot read
// (typed inline instead) completes with its output and status, and the shell lives on with
// errexit on: the failed "." does not end it (bash, zsh and mksh exited there). bash is not
// left in the POSIX mode the typed line turned on.
func TestEngineStrictInline(t *testing.T) {
	tmx, ts := realEngine(t)
	for _, sh := range []string{"bash", "zsh", "dash", "mksh", "ksh"} {
		inShell(t, tmx, sh, testtmux.Config(sh, "clean"), nil, func(t *testing.T, r *Runner, p *testtmux.ShellPane) {
			p.Type("set -e")
			errexitOn(t, p, "before")
			r.beforeSend = func(path string) { os.Remove(path) } // as if on another machine
			verboseRun(t, r, ts, p, "echo inline; false", "inline", 1)
			verboseRun(t, r, ts, p, "echo again", "again", 0)
			errexitOn(t, p, "after")
			if sh == "bash" {
				// The typed line turned POSIX mode on; the inline wrapper turns it off.
				p.Type(`case :$SHELLOPTS: in *:posix:*) echo posix-on;; *) echo posix-off;; esac`)
				p.WaitState("the shell's POSIX mode", func(screen, _ string) bool {
					return regexp.MustCompile(`(?m)^posix-o(n|ff)\s*$`).MatchString(screen)
				})
				if screen := p.S.Tmux("capture-pane", "-p", "-t", p.ID); !regexp.MustCompile(`(?m)^posix-off\s*$`).MatchString(screen) {
					t.Errorf("bash is left in POSIX mode:\n%s", screen)
				}
			}
		})
	}
}

// errexitOn waits until p's shell says it has errexit on.
func errexitOn(t *testing.T, p *testtmux.ShellPane, when string) {
	t.Helper()
	p.WaitPrompt()
	p.Type("case $- in *e*) echo errexit-on-" + when + ";; esac")
	p.WaitState("errexit on "+when, func(screen, _ string) bool {
		return regexp.MustCompile(`(?m)^errexit-on-` + when + `\s*$`).MatchString(screen)
	})
}

// TestEngineVerboseXtrace: with verbose mode and tracing both on, a run returns the command's
// trace and output, and the screen shows nothing of the wrapper (in ksh93 and mksh the typed
// line's traced "set +ev" too is erased).
func TestEngineVerboseXtrace(t *testing.T) {
	tmx, ts := realEngine(t)
	for _, sh := range []string{"bash", "zsh", "dash", "mksh", "ksh", "ash"} {
		inShell(t, tmx, sh, testtmux.Config(sh, "clean"), nil, func(t *testing.T, r *Runner, p *testtmux.ShellPane) {
			p.Type("set -v")
			traceOn(t, p)
			xtraceRun(t, r, ts, p, "echo one", []string{"echo one", "one"}, 0)
			xtraceRun(t, r, ts, p, "echo two", []string{"echo two", "two"}, 0)
			screen := p.S.Tmux("capture-pane", "-p", "-t", p.ID, "-S", "-100")
			if wrapperShown.MatchString(screen) || !regexp.MustCompile(`(?m)^one\s*$`).MatchString(screen) {
				t.Errorf("the screen shows the wrapper's lines, or lost the lines above them:\n%s", screen)
			}
			promptEchoes(t, p, "typed")
		})
	}
}
