package runner

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/termstate"
	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestRunWhileShellStarts: a run made as soon as its pane was created, in a shell whose
// start-up files take longer than a shell is otherwise waited for (shellWait), waits for its
// prompt within the run's timeout and runs, with the process table and without it (where a
// pane that shows nothing yet says the shell is starting); with a timeout too short for the
// start, it is refused saying the shell is still starting, and nothing is typed.
func TestRunWhileShellStarts(t *testing.T) {
	tmx, ts := realEngine(t)
	for _, tb := range tables {
		for _, shell := range []string{"bash", "zsh", "fish"} {
			su := testtmux.SlowStart(shell, "8")
			t.Run(tb.name+"/"+shell, func(t *testing.T) {
				su.Require(t)
				t.Parallel()
				r := New()
				r.table = tb.table
				defer r.Close()
				p := tmx.StartShellNoWait(t, su)
				defer p.Kill()
				res, err := engineRun(t, r, ts, p, "echo after-start", 60*time.Second)
				if err != nil || res.Outcome != Completed || res.Output != "after-start" {
					t.Fatalf("run while the shell starts: %+v %v; screen:\n%s", res, err, p.S.Tmux("capture-pane", "-p", "-t", p.ID))
				}
			})
		}
		for _, shell := range []string{"bash", "zsh"} {
			refusedStarting(t, tmx, ts, tb.table, tb.name+"/refused/"+shell, testtmux.SlowStart(shell, "60"))
		}
	}
}

// refusedStarting: a run with a timeout shorter than su's start is refused saying the shell
// is still starting, and types nothing.
func refusedStarting(t *testing.T, tmx *testtmux.Server, ts *tmux.Server, table *termstate.Table, name string, su testtmux.Setup) {
	t.Run(name, func(t *testing.T) {
		su.Require(t)
		t.Parallel()
		r := New()
		r.table = table
		defer r.Close()
		p := tmx.StartShellNoWait(t, su)
		defer p.Kill()
		res, err := engineRun(t, r, ts, p, "echo too-soon", time.Second)
		var ref *Refusal
		if !errors.As(err, &ref) || ref.Reason != ShellBusy || ref.Starting <= 0 || !strings.Contains(err.Error(), "still starting") {
			t.Fatalf("run with a timeout shorter than the start: %+v %v, want a refusal saying the shell is still starting", res, err)
		}
		if screen := p.S.Tmux("capture-pane", "-p", "-t", p.ID); strings.Contains(screen, "too-soon") {
			t.Errorf("the refused run typed its line:\n%s", screen)
		}
	})
}
