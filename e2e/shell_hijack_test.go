package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// Names a wrapper or a typed line could use, defined by the user in the interactive shell (as
// users do: an alias or function named printf or source must not change what a run does). Fish reserves some (eval, set, builtin, command, status, string, read,
// return): defining them fails there, and the case says so and is skipped.
var (
	posixHijackNames = []string{"eval", "trap", ".", "source", "command", "builtin", "printf", "set", "unset", "exit", "return", "read", "history", "print"}
	fishHijackNames  = []string{"source", "printf", "functions", "exit", "trap", "history", "print", "eval", "fish", "emit", "status", "set"}
)

// hijack is one definition made in the interactive shell before a run: an alias or a
// function whose body prints and succeeds, the worst a definition can do to a frame that
// calls it (a success it did not see).
type hijack struct {
	kind string // alias or function
	name string
}

func (h hijack) definition(fish bool) string {
	body := "echo HIJACKED-" + h.name
	switch {
	case fish:
		return "function " + h.name + "; " + body + "; end"
	case h.kind == "alias":
		return "alias " + h.name + "='" + body + "'"
	}
	return h.name + "() { " + body + "; }"
}

// probe prints def-ok when the definition is in effect: a special builtin of dash, mksh,
// ksh93 or ash wins over a function of its name, and fish refuses reserved names.
func (h hijack) probe(fish bool) string {
	switch {
	case fish:
		return "builtin functions -q " + h.name + "; and echo def-ok; or echo def-missing"
	case h.kind == "alias":
		return "alias " + h.name + " >/dev/null 2>&1 && echo def-ok || echo def-missing"
	}
	return "type " + h.name + " 2>&1 | grep -q function && echo def-ok || echo def-missing"
}

// names reports whether a tool error names the definition: the name quoted, and what it is.
func (h hijack) namedBy(msg string) bool {
	quoted := strings.Contains(msg, `"`+h.name+`"`) || strings.Contains(msg, "'"+h.name+"'") || strings.Contains(msg, "`"+h.name+"`")
	return quoted && (strings.Contains(msg, "alias") || strings.Contains(msg, "function"))
}

func hijacksFor(fish bool) []hijack {
	var hs []hijack
	if fish {
		for _, n := range fishHijackNames {
			hs = append(hs, hijack{"function", n})
		}
		return hs
	}
	for _, kind := range []string{"alias", "function"} {
		for _, n := range posixHijackNames {
			hs = append(hs, hijack{kind, n})
		}
	}
	return hs
}

// TestShellHijack: with an alias or function named like a word the framing could use defined
// in the interactive shell, `exit 7`, `false` and `true` report 7, 1 and 0 with no output,
// or the run is refused with an error naming the definition; never another status, never a
// time-out, never the user's shell killed (pane_died), also with set -e in the interactive
// shell (the strict set-up). Where the command itself would call the definition (a
// function named exit and `exit 7`), `sh -c 'exit 7'` gives the status instead.
func TestShellHijack(t *testing.T) {
	forEachShell(t, func(t *testing.T, sc *shellClient, shell string) {
		// strict (fish: rc) in every shell, clean too in the two most users have: a
		// definition that subverts a run does so whatever the set-up, and CI's time is counted.
		configs := []string{"strict"}
		switch shell {
		case "fish":
			configs = []string{"rc"}
		case "bash", "zsh":
			configs = []string{"clean", "strict"}
		}
		for _, config := range configs {
			su := testtmux.Config(shell, config)
			t.Run(config, func(t *testing.T) {
				t.Parallel()
				for _, h := range hijacksFor(su.Fish) {
					t.Run(h.kind+"-"+h.name, func(t *testing.T) {
						t.Parallel()
						hijackCase(t, sc, su, h)
					})
				}
			})
		}
	})
}

func hijackCase(t *testing.T, sc *shellClient, su testtmux.Setup, h hijack) {
	sc = sc.For(t)
	p := sc.Tmx.StartShell(t, su)
	defer p.Kill()
	p.Type(h.definition(su.Fish))
	p.Type(h.probe(su.Fish))
	var defined bool
	screen := p.WaitState("the definition's probe", func(string, string) bool {
		// The pane's whole history, not its screen: a definition fish's prompt calls
		// (functions) makes each prompt print a screenful of errors, which on a loaded machine
		// scrolled the probe's answer away between two looks at the screen.
		all, err := p.S.TryTmux("capture-pane", "-p", "-S", "-", "-t", p.ID)
		ok, missing := err == nil && probeResult(all, "def-ok"), err == nil && probeResult(all, "def-missing")
		defined = ok
		return ok || missing
	})
	if !defined {
		t.Skipf("%s: a %s named %q has no effect in this shell:\n%s", su.Name(), h.kind, h.name, screen)
	}
	// A definition the shell's own prompt uses (fish_prompt's printf) breaks the prompt:
	// the user's doing, and no reason to skip the runs. They go once the prompt shows, or
	// after a grace.
	if _, err := p.Poll(3*time.Second, func(_, before string) bool { return su.Prompt.MatchString(before) }); err != nil {
		t.Logf("the %s breaks the shell's own prompt (%v)", h.kind, err)
	}
	exit7 := "exit 7"
	if h.name == "exit" && !su.Fish {
		exit7 = "sh -c 'exit 7'"
	}
	checks := []struct {
		cmd    string
		status int
	}{{exit7, 7}, {"false", 1}, {"true", 0}}
	for i, ck := range checks {
		a := sc.try(tools[i%2], p.ID, ck.cmd, runTimeout)
		if !p.Alive() {
			t.Fatalf("with a %s named %q: the user's shell died (errexit %v) during %v", h.kind, h.name, su.Errexit, a)
		}
		switch {
		case a.ok(ck.status, ""):
		case a.errText != "" && h.namedBy(a.errText):
			t.Logf("%s: refused, naming the %s: %s", ck.cmd, h.kind, a.errText)
		case a.outcome == "timed_out" || a.outcome == "pane_died":
			t.Fatalf("with a %s named %q: %v; want exit %d, or an error naming the %s\nscreen:\n%s", h.kind, h.name, a, ck.status, h.kind, capture(sc.Tmx, p.ID))
		case a.errText != "":
			t.Fatalf("with a %s named %q: %v; want exit %d with no output, or an error naming the %s", h.kind, h.name, a, ck.status, h.kind)
		default:
			t.Errorf("with a %s named %q: %v; want exit %d with no output, or an error naming the %s", h.kind, h.name, a, ck.status, h.kind)
		}
	}
}

// hasLine reports whether screen has a line that is exactly line (spaces around trimmed).
func hasLine(screen, line string) bool {
	for _, l := range strings.Split(screen, "\n") {
		if strings.TrimSpace(l) == line {
			return true
		}
	}
	return false
}

// probeResult reports whether screen shows the probe's output word: a line that ends with it
// and is not the echo of the probe itself (a shell without a line editor may print it after
// the next prompt, when the probe was typed ahead).
func probeResult(screen, word string) bool {
	for _, l := range strings.Split(screen, "\n") {
		if l = strings.TrimSpace(l); strings.HasSuffix(l, word) && !strings.Contains(l, "echo ") {
			return true
		}
	}
	return false
}
