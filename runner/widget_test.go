package runner

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// TestRunDuringFzfWidget: with fzf's history search open (C-r in the zsh plugins set-up: a
// widget runs fzf in the shell's own process group, and tmux's current command still says
// zsh), a run types nothing and is refused naming fzf; once it is closed, the pane takes the
// next run.
func TestRunDuringFzfWidget(t *testing.T) {
	tmx, ts, r := realRunner(t)
	su := testtmux.ZshPlugins()[0]
	su.Require(t)
	testtmux.RequireShell(t, []string{"fzf"})
	p := tmx.StartShell(t, su)
	defer p.Kill()
	if res, err := engineRun(t, r, ts, p, "echo before", 20*time.Second); err != nil || res.Outcome != Completed {
		t.Fatalf("first run: %+v %v", res, err)
	}
	p.WaitPrompt()
	p.Keys("C-r")
	count := regexp.MustCompile(`(?m)^\s*\d+/\d+`) // fzf's match count
	p.WaitState("fzf's history search", func(screen, _ string) bool { return count.MatchString(screen) })
	res, err := engineRun(t, r, ts, p, "echo during", 20*time.Second)
	var rf *Refusal
	if !errors.As(err, &rf) || rf.Reason != ShellBusy || !strings.Contains(rf.Running, "fzf") {
		t.Fatalf("run during fzf: %+v %v, want a ShellBusy refusal naming fzf; screen:\n%s", res, err, p.S.Tmux("capture-pane", "-p", "-t", p.ID))
	}
	p.Keys("Escape")
	p.WaitPrompt()
	if res, err := engineRun(t, r, ts, p, "echo after", 20*time.Second); err != nil || res.Outcome != Completed || res.Output != "after" {
		t.Fatalf("after fzf: %+v %v; screen:\n%s", res, err, p.S.Tmux("capture-pane", "-p", "-t", p.ID))
	}
}
