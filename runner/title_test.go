package runner

import (
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// TestEngineRetitle: a shell whose preexec hook titles the pane with the line it runs (the rc
// set-ups: bash's DEBUG trap, zsh's preexec) has the command as the title after a run, as
// typed, never the typed line; a command holding what tmux would read as a format (#{...},
// ##) is not expanded.
func TestEngineRetitle(t *testing.T) {
	tmx, ts := realEngine(t)
	for _, sh := range []string{"bash", "zsh"} {
		inShell(t, tmx, sh, testtmux.Config(sh, "rc"), nil, func(t *testing.T, r *Runner, p *testtmux.ShellPane) {
			const cmd = "echo '#{pane_id} ## #[bold]'"
			if res, err := engineRun(t, r, ts, p, cmd, 20*time.Second); err != nil || res.Outcome != Completed {
				t.Fatalf("%+v %v", res, err)
			}
			var title string
			p.WaitState("the command as the title", func(string, string) bool {
				title = p.S.Tmux("display-message", "-p", "-t", p.ID, "#{pane_title}")
				return strings.HasPrefix(title, "echo '") && !strings.Contains(title, "tmux-mcp-")
			})
			if title != cmd {
				t.Errorf("the pane's title is %q, want %q", title, cmd)
			}
		})
	}
}
