package runner

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestEnginePrompts: in the prompt frameworks' set-ups (liquidprompt in bash and zsh,
// powerlevel9k on one row and on two; 80x24), runs of a failing command, of one printing more
// lines than the pane has, of one taking 2 s and of one longer than the pane is wide complete
// with their output and status, and the scrollback shows each command after its prompt, as
// typed, with its output below and nothing of the wrapper.
func TestEnginePrompts(t *testing.T) {
	tmx, ts := realEngine(t)
	for _, su := range promptSetups() {
		inShell(t, tmx, su.Name(), su, nil, func(t *testing.T, r *Runner, p *testtmux.ShellPane) {
			promptRuns(t, r, ts, p)
		})
	}
}

func promptRuns(t *testing.T, r *Runner, ts *tmux.Server, p *testtmux.ShellPane) {
	var lines []string
	for i := 1; i <= 40; i++ {
		lines = append(lines, "l"+strconv.Itoa(i))
	}
	long := strings.Repeat("w", 100)
	for _, c := range []struct {
		cmd, out string
		status   int
	}{
		{"echo failing; sh -c 'exit 3'", "failing", 3},
		{"for i in $(seq 1 40); do echo l$i; done", strings.Join(lines, "\n"), 0},
		{"sleep 2; echo slept", "slept", 0},
		{"echo " + long, long, 0},
	} {
		res, err := engineRun(t, r, ts, p, c.cmd, 30*time.Second)
		all := p.S.Tmux("capture-pane", "-p", "-J", "-t", p.ID, "-S", "-")
		if err != nil || res.Outcome != Completed || res.Output != c.out || res.ExitStatus == nil || *res.ExitStatus != c.status {
			t.Fatalf("%q: %+v %v; scrollback:\n%s", c.cmd, res, err, lastLines(all, 30))
		}
		if bad := narrowShown.FindString(all); bad != "" {
			t.Fatalf("%q: the scrollback shows %q of the wrapper:\n%s", c.cmd, bad, lastLines(all, 60))
		}
		if !shownAsTyped(all, c.cmd, c.out) {
			t.Errorf("%q is not shown after its prompt, with its output below:\n%s", c.cmd, lastLines(all, 50))
		}
	}
}
