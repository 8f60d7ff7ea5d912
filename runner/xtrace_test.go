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

// traceOf is how each shell traces "echo <word>" run through the wrapper: the command's own
// trace is its output too (tracing is on because the user asked for it), as the shell writes
// it there (bash repeats PS4's + for the source and the eval, ++ inline; zsh names the eval).
// fish's command runs in a child fish, which fish_trace (a shell variable) does not reach.
var traceOf = map[string]string{
	"bash": `\+\+\+? `, "zsh": `\+\(eval\):\d+> `, "dash": `\+ `, "ash": `\+ `, "ksh": `\+ `, "mksh": `\+ `,
}

// TestEngineXtrace: with tracing turned on at the prompt (set -x; fish: set fish_trace 1), runs
// return exactly the command's output and its own trace, with their status; the screen shows
// none of the wrapper's lines; and the shell still traces what is typed at its prompt after
// them, also after a run typed inline because the shell could not read the script.
func TestEngineXtrace(t *testing.T) {
	tmx, ts := realEngine(t)
	for _, tb := range tables {
		for _, sh := range testtmux.ShellNames() {
			configs := []string{"clean", "strict"}
			if sh == "fish" {
				configs = configs[:1]
			}
			for _, config := range configs {
				su := testtmux.Config(sh, config)
				inShell(t, tmx, tb.name+"/"+su.Name(), su, tb.table, func(t *testing.T, r *Runner, p *testtmux.ShellPane) {
					xtraceCases(t, r, ts, p)
				})
			}
		}
	}
}

// xtraceCases turns tracing on in p and runs TestEngineXtrace's cases.
func xtraceCases(t *testing.T, r *Runner, ts *tmux.Server, p *testtmux.ShellPane) {
	traceOn(t, p)
	xtraceRun(t, r, ts, p, "echo one", []string{"echo one", "one"}, 0)
	xtraceRun(t, r, ts, p, "echo two; false", []string{"echo two", "two", "false", ""}, 1)
	screen := p.S.Tmux("capture-pane", "-p", "-t", p.ID, "-S", "-100")
	// What the redraw erases stops at the typed line: the lines above it stay.
	if cleanScreen[p.Setup.Name()] && (wrapperShown.MatchString(screen) || !strings.Contains(screen, traceCmd(p)) ||
		!regexp.MustCompile(`(?m)^one\s*$`).MatchString(screen)) {
		t.Errorf("the screen shows the wrapper's lines, or lost the lines above them:\n%s", screen)
	}
	promptTraces(t, p, "typed")
	if p.Setup.Shell == "ash" {
		return // busybox ash's line editor takes at most 1023 bytes: no inline run there
	}
	r.beforeSend = func(path string) { os.Remove(path) } // as if on another machine
	xtraceRun(t, r, ts, p, "echo inline", []string{"echo inline", "inline"}, 0)
	promptTraces(t, p, "again")
}

// cleanScreen lists the set-ups whose screen shows nothing of the wrapper with tracing on (see
// docs/running-commands.md). zsh's realistic start-up file has a preexec hook, traced between
// Enter and the wrapper: the typed line is then left on the screen, not misdrawn.
var cleanScreen = map[string]bool{
	"bash/clean": true, "bash/strict": true, "dash/clean": true, "dash/strict": true, "ash/clean": true,
	"ash/strict": true, "zsh/clean": true, "ksh/clean": true, "ksh/strict": true, "mksh/clean": true,
	"mksh/strict": true, "fish/clean": true,
}

// wrapperShown matches what the wrapper's lines, typed or traced, would show.
var wrapperShown = regexp.MustCompile(`tmx|tmux-mcp-|/dev/null|set \+x|set -g fish_trace|> begin|source `)

// traceCmd is what turns tracing on in p's shell.
func traceCmd(p *testtmux.ShellPane) string {
	if p.Setup.Fish {
		return "set fish_trace 1"
	}
	return "set -x"
}

// traceOn turns tracing on at p's prompt, as a person would, and waits for the next prompt.
func traceOn(t *testing.T, p *testtmux.ShellPane) {
	t.Helper()
	on := traceCmd(p)
	p.Type(on)
	p.WaitState("the prompt after "+on, func(screen, before string) bool {
		return strings.Contains(screen, on) && p.Setup.Prompt.MatchString(before)
	})
}

// xtraceRun runs cmd in p and checks its status and output: want lists, by pairs, a command
// whose trace the shell writes ("" for none) and a line of output ("" for none).
func xtraceRun(t *testing.T, r *Runner, ts *tmux.Server, p *testtmux.ShellPane, cmd string, want []string, status int) {
	t.Helper()
	var re []string
	for i := 0; i < len(want); i += 2 {
		if tr, ok := traceOf[p.Setup.Shell]; ok && want[i] != "" {
			re = append(re, tr+regexp.QuoteMeta(want[i]))
		}
		if i+1 < len(want) && want[i+1] != "" {
			re = append(re, regexp.QuoteMeta(want[i+1]))
		}
	}
	res, err := engineRun(t, r, ts, p, cmd, 20*time.Second)
	if err != nil || res.Outcome != Completed || res.ExitStatus == nil || *res.ExitStatus != status ||
		!regexp.MustCompile(`\A`+strings.Join(re, "\n")+`\z`).MatchString(res.Output) {
		t.Fatalf("%q: %+v %v, want output %q, status %d; screen:\n%s", cmd, res, err, strings.Join(re, "\n"), status,
			p.S.Tmux("capture-pane", "-p", "-t", p.ID))
	}
}

// promptTraces types "echo <word>" at p's prompt and waits until the shell traced it: tracing
// is on, as the user left it.
func promptTraces(t *testing.T, p *testtmux.ShellPane, word string) {
	t.Helper()
	re := regexp.MustCompile(`(?m)^(\+|\+zsh:\d+>|>) echo ` + word + `\s*$`)
	p.WaitPrompt()
	p.Type("echo " + word)
	p.WaitState("the trace of echo "+word, func(screen, _ string) bool { return re.MatchString(screen) })
}

// TestEngineXtracePS4: in ksh93 and mksh, whose trace of the typed line stays until the redraw
// erases it, a PS4 with an expansion (its width unknown to the wrapper) leaves the typed line
// and that trace as they are: the command is not drawn over them.
func TestEngineXtracePS4(t *testing.T) {
	tmx, ts, r := realRunner(t)
	for _, sh := range []string{"ksh", "mksh"} {
		su := testtmux.Config(sh, "clean")
		t.Run(sh, func(t *testing.T) {
			su.Require(t)
			t.Parallel()
			p := tmx.StartShell(t, su)
			defer p.Kill()
			p.Type(`PS4='+$LINENO: '`)
			traceOn(t, p)
			res, err := engineRun(t, r, ts, p, "echo one", 20*time.Second)
			screen := p.S.Tmux("capture-pane", "-p", "-t", p.ID)
			if err != nil || res.Outcome != Completed || !regexp.MustCompile(`\A\+\d+: echo one\none\z`).MatchString(res.Output) {
				t.Fatalf("%+v %v; screen:\n%s", res, err, screen)
			}
			if regexp.MustCompile(`(?m)^\+\d*echo one`).MatchString(screen) {
				t.Errorf("the command is drawn over the trace:\n%s", screen)
			}
		})
	}
}
