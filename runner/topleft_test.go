package runner

import (
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// TestEngineRedrawTopLeft: a typed line drawn from the screen's top left corner (an empty
// prompt on a fresh or cleared screen; mksh's sideways scrolling of a long line, drawn from
// column 0) is erased without clearing the whole screen, which tmux (scroll-on-clear) would
// first copy into the history, typed line and all.
func TestEngineRedrawTopLeft(t *testing.T) {
	tmx, ts := realEngine(t)
	for _, sh := range testtmux.ShellNames() {
		su := testtmux.Config(sh, "clean")
		inShell(t, tmx, su.Name(), su, nil, func(t *testing.T, r *Runner, p *testtmux.ShellPane) {
			emptyPrompt := "PS1="
			if su.Fish {
				emptyPrompt = "function fish_prompt; end"
			}
			p.Type(emptyPrompt)
			p.WaitState("the empty prompt", func(screen, before string) bool {
				return strings.Contains(screen, emptyPrompt) && before == ""
			})
			// A reset terminal: the cursor in the top left corner, nothing in the history.
			p.S.Tmux("send-keys", "-R", "-t", p.ID)
			p.S.Tmux("clear-history", "-t", p.ID)
			res, err := engineRun(t, r, ts, p, "echo hi", 20*time.Second)
			if err != nil || res.Outcome != Completed || res.Output != "hi" {
				t.Fatalf("run: %+v %v", res, err)
			}
			all := p.S.Tmux("capture-pane", "-p", "-t", p.ID, "-S", "-")
			if wrapperShown.MatchString(all) || !strings.Contains(all, "echo hi") {
				t.Errorf("the history or the screen shows the typed line, or not the command:\n%s", all)
			}
		})
	}
}
