package runner

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
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

// TestEngineRenameWindow: liquidprompt in tmux names the window with screen's ESC k sequence,
// its title and the line it runs, which tmux takes with allow-rename on: while a run waits for
// input, the window's name holds the command where the typed line was, never the typed line;
// after it, the prompt's own name again.
func TestEngineRenameWindow(t *testing.T) {
	tmx, ts := realEngine(t)
	for _, sh := range []string{"bash", "zsh"} {
		su := testtmux.Liquidprompt(sh)
		inShell(t, tmx, su.Name(), su, nil, func(t *testing.T, r *Runner, p *testtmux.ShellPane) {
			p.S.Tmux("set-option", "-w", "-t", p.ID, "allow-rename", "on")
			name := func() string { return p.S.Tmux("display-message", "-p", "-t", p.ID, "#{window_name}") }
			p.Keys("Enter") // a prompt drawn now names the window
			p.WaitState("the prompt's window name", func(string, string) bool { return strings.Contains(name(), "[") })
			// No quote, $ or backslash: tmux shows those escaped in a window's name (\$x).
			const cmd = `printf 'name: '; head -n 1`
			res, err := engineRun(t, r, ts, p, cmd, 2*time.Minute)
			if err != nil || !res.StillRunning || !res.WaitingForInput {
				t.Fatalf("%+v %v", res, err)
			}
			var during string
			p.WaitState("the command in the window's name", func(string, string) bool {
				during = name()
				return !strings.Contains(during, "tmux-mcp-")
			})
			if !strings.HasSuffix(during, "± "+cmd) || !strings.HasPrefix(during, "[") {
				t.Errorf("while the run waits, the window is named %q, want liquidprompt's title then %q", during, "± "+cmd)
			}
			k := keyOf(t, ts, tmux.Pane{PaneID: p.ID})
			if err := r.Input(k, "bob", func() error {
				_, err := p.S.TryTmux("send-keys", "-t", p.ID, "bob", "Enter")
				return err
			}); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if fin := r.Await(ctx, r.Last(k), nil); fin.Outcome != Completed || !strings.HasSuffix(fin.Output, "bob") {
				t.Fatalf("after the answer: %+v", fin)
			}
			p.WaitState("the prompt's window name again", func(string, string) bool {
				n := name()
				return strings.HasPrefix(n, "[") && !strings.Contains(n, "printf")
			})
		})
	}
}
