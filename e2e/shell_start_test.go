package e2e

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// runTally counts a series of runs by what went wrong, for one readable failure.
type runTally struct {
	mu       sync.Mutex
	total    int
	kinds    map[string]int
	examples map[string]string
}

func (r *runTally) add(a attempt, ok bool) { r.addKind(a, ok, "") }

// addKind is add with the kind of failure given ("" to classify it by the attempt).
func (r *runTally) addKind(a attempt, ok bool, kind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total++
	if ok {
		return
	}
	switch {
	case kind != "":
	case strings.Contains(a.errText, "not a shell"):
		kind = `"not a shell" refusal`
	case a.busy():
		kind = "refused as busy"
	case a.errText != "":
		kind = "other tool error"
	case a.outcome == "completed":
		kind = "wrong status or output"
	default:
		kind = a.outcome
	}
	if r.kinds == nil {
		r.kinds, r.examples = map[string]int{}, map[string]string{}
	}
	r.kinds[kind]++
	if r.examples[kind] == "" {
		r.examples[kind] = a.String()
	}
}

// report fails t with the counts and one example of each kind of failure.
func (r *runTally) report(t *testing.T) {
	t.Helper()
	for kind, n := range r.kinds {
		t.Errorf("%d of %d runs: %s, e.g. %s", n, r.total, kind, r.examples[kind])
	}
}

// TestShellStartedThrough: fish and ksh93 started through sh -c (exec'd, or
// as sh's child) or env, and run at once after the window is created, 20 times each: every
// run completes with its status and output (never framed as POSIX in fish, never refused as
// "not a shell" while the shell starts), and the pane takes a second run.
func TestShellStartedThrough(t *testing.T) {
	forms := []testtmux.Setup{
		testtmux.Started("fish", "sh-c", "sh", "-c", "fish"),
		testtmux.Started("fish", "sh-c-child", "sh", "-c", "fish; exit $?"),
		testtmux.Started("fish", "env", "env", "PS1=$ ", "fish"),
		testtmux.Started("ksh", "sh-c", "sh", "-c", "ksh"),
		testtmux.Started("ksh", "sh-c-child", "sh", "-c", "ksh; exit $?"),
		testtmux.Started("ksh", "env", "env", "PS1=$ ", "ksh"),
	}
	for _, su := range forms {
		t.Run(su.Name(), func(t *testing.T) {
			su.Require(t)
			t.Parallel()
			startedThrough(t, startShellClient(t), su, 20)
		})
	}
}

// startedThrough starts su n times (a few at once), runs at once in each, then a second run:
// each completes with its status and output.
func startedThrough(t *testing.T, sc *shellClient, su testtmux.Setup, n int) {
	var tally runTally
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4) // a few at once: 20 fish starting together would swamp 2 cores
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			p := sc.Tmx.StartShellNoWait(t, su)
			defer p.Kill()
			want := fmt.Sprintf("started-%d", i)
			a := sc.try(tools[i%2], p.ID, "echo "+want+"; sh -c 'exit 4'", runTimeout)
			kind := ""
			if screen := capture(sc.Tmx, p.ID); su.Fish && strings.Contains(screen, " . '") {
				kind = "POSIX framing typed into fish"
			}
			tally.addKind(a, a.ok(4, want), kind)
			b := sc.tryWhenFree(tools[(i+1)%2], p.ID, "echo second", 10*time.Second)
			tally.add(b, b.ok(0, "second"))
		}()
	}
	wg.Wait()
	tally.report(t)
}

// TestShellEnvBackToBack: panes started as `env PS1='$ ' <shell>` take 100
// back-to-back runs, never refused as "not a shell" though tmux may name the pane's start
// command (env) for a moment after each command ends.
func TestShellEnvBackToBack(t *testing.T) {
	for _, shell := range testtmux.ShellNames() {
		argv := append([]string{"env", "PS1=$ "}, testtmux.Config(shell, "rc").Argv...)
		su := testtmux.Started(shell, "env", argv...)
		t.Run(shell, func(t *testing.T) {
			testtmux.RequireShell(t, su.Argv[2:])
			t.Parallel()
			sc := startShellClient(t)
			p := sc.Tmx.StartShell(t, su)
			var tally runTally
			for i := 0; i < 100; i++ {
				want := fmt.Sprintf("r%d", i)
				a := sc.try(tools[i%2], p.ID, "echo "+want, runTimeout)
				tally.add(a, a.ok(0, want))
				if a.outcome == "timed_out" {
					p.Keys("C-c")
					sc.tryWhenFree("run_shell_command", p.ID, "true", 10*time.Second)
				}
			}
			tally.report(t)
		})
	}
}

// TestShellBusybox: busybox ash and busybox sh are shells (their process is
// busybox), and runs in them report their status.
func TestShellBusybox(t *testing.T) {
	for _, su := range []testtmux.Setup{
		testtmux.Started("ash", "busybox-ash", "busybox", "ash"),
		testtmux.Started("ash", "busybox-sh", "busybox", "sh"),
	} {
		t.Run(su.Config, func(t *testing.T) {
			su.Require(t)
			t.Parallel()
			sc := startShellClient(t)
			p := sc.Tmx.StartShell(t, su)
			for i, ck := range []struct {
				cmd    string
				status int
				want   string
			}{{"echo hi", 0, "hi"}, {"echo bye; exit 7", 7, "bye"}} {
				if a := sc.try(tools[i%2], p.ID, ck.cmd, runTimeout); !a.ok(ck.status, ck.want) {
					t.Errorf("%v; want exit %d, output %q", a, ck.status, ck.want)
				}
			}
		})
	}
}

// TestRunWhileShellStarts: run_shell_command made as soon as a zsh pane was created, whose
// start-up files take longer than a shell is otherwise waited for (5 s), runs once the shell
// shows its prompt, within its timeout; with a timeout too short for the start it is refused
// saying the shell is still starting, with the way forward (wait for the prompt, or a longer
// timeoutMs; not C-c).
func TestRunWhileShellStarts(t *testing.T) {
	testtmux.RequireShell(t, []string{"zsh"})
	sc := startShellClient(t)
	p := sc.Tmx.StartShellNoWait(t, testtmux.SlowStart("zsh", "8"))
	if a := sc.try("run_shell_command", p.ID, "echo started", 60*time.Second); !a.ok(0, "started") {
		t.Errorf("run while the shell starts: %s", a)
	}
	p = sc.Tmx.StartShellNoWait(t, testtmux.SlowStart("zsh", "60"))
	defer p.Kill()
	a := sc.try("run_shell_command", p.ID, "echo too-soon", time.Second)
	for _, want := range []string{"still starting", "its start-up files run sleep", "longer timeoutMs", "do not send C-c"} {
		if !strings.Contains(a.errText, want) {
			t.Errorf("run with a timeout shorter than the start: %s; want a refusal saying %q", a, want)
		}
	}
}
