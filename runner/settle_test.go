package runner

import (
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// slowPrompt is bash whose prompt hook takes a while, as a git prompt in a large repository
// or a prompt renderer does.
var slowPrompt = testtmux.Config("bash", "clean").WithRC("slow-prompt", []string{"bash"}, ".bashrc", "PROMPT_COMMAND='sleep 0.5'")

// TestEngineBackAtPrompt: a completed run returns once the shell reads its command line again,
// after its prompt hooks, with and without the process table: C-r sent right after the result
// opens readline's history search, rather than being taken by the terminal (its reprint key
// in canonical mode, echoed as "^R") while the hooks still run.
func TestEngineBackAtPrompt(t *testing.T) {
	tmx, ts := realEngine(t)
	setups := append([]testtmux.Setup{slowPrompt, testtmux.Liquidprompt("bash")}, testtmux.Plugins("bash")...)
	for _, tb := range tables {
		for _, su := range setups {
			if su.Config == "plugins" || su.Config == "plugins-vi" {
				continue // fzf's C-r: its screen is checked in TestEnginePlugins
			}
			t.Run(tb.name+"/"+su.Name(), func(t *testing.T) {
				su.Require(t)
				t.Parallel()
				r := New()
				r.table = tb.table
				t.Cleanup(r.Close)
				p := tmx.StartShell(t, su)
				defer p.Kill()
				res, err := engineRun(t, r, ts, p, "echo done", 20*time.Second)
				if err != nil || res.Outcome != Completed || res.Output != "done" {
					t.Fatalf("%+v %v", res, err)
				}
				p.Keys("C-r")
				screen := p.WaitState("readline's history search", func(screen, _ string) bool {
					return strings.Contains(screen, "reverse-i-search")
				})
				if strings.Contains(screen, "^R") {
					t.Errorf("the terminal echoed C-r:\n%s", screen)
				}
			})
		}
	}
}
