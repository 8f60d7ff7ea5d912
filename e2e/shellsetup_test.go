package e2e

import (
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// TestShellSetupsReady checks the fixtures themselves: every set-up of the matrix reaches its
// prompt and runs a line typed as a person would, without tmux-mcp involved.
func TestShellSetupsReady(t *testing.T) {
	for _, shell := range testtmux.ShellNames() {
		t.Run(shell, func(t *testing.T) {
			testtmux.RequireShell(t, testtmux.Config(shell, "clean").Argv)
			t.Parallel()
			tmx := testtmux.New(t)
			for _, su := range testtmux.Configs(shell) {
				t.Run(su.Config, func(t *testing.T) {
					p := tmx.StartShell(t, su)
					defer p.Kill()
					if su.Fish {
						p.Type("echo hello-(math 6 \\* 7)")
					} else {
						p.Type("echo hello-$((6*7))")
					}
					p.WaitState("the typed line's output", func(screen, before string) bool {
						return hasLine(screen, "hello-42") && su.Prompt.MatchString(before)
					})
				})
			}
		})
	}
}
