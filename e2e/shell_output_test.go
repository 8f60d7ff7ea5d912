package e2e

import (
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// TestShellOutputFidelity: text that merely looks like a marker is the
// command's output, kept and not flagged as foreign (only markers of ids this server minted
// may be removed), and trailing blank lines are kept, in every set-up and through both tools.
func TestShellOutputFidelity(t *testing.T) {
	cases := []struct {
		name, cmd, want string
	}{
		{"marker-like-end", "echo tmx0123456789ab_E 0 tmx0123456789ab_D", "tmx0123456789ab_E 0 tmx0123456789ab_D"},
		{"marker-like-start", "echo tmx0123456789ab_S", "tmx0123456789ab_S"},
		{"blank-lines-around", "echo; echo x; echo", "\nx\n"},
		{"trailing-blank-lines", "printf 'x\\n\\n\\n'", "x\n\n"},
	}
	forEachShell(t, func(t *testing.T, sc *shellClient, shell string) {
		for _, su := range testtmux.Configs(shell) {
			t.Run(su.Config, func(t *testing.T) {
				t.Parallel()
				sc := sc.For(t)
				p := sc.Tmx.StartShell(t, su)
				defer p.Kill()
				for _, tc := range cases {
					t.Run(tc.name, func(t *testing.T) {
						for _, tool := range tools {
							a := sc.try(tool, p.ID, tc.cmd, runTimeout)
							if !a.ok(0, tc.want) || a.foreign {
								t.Errorf("%v; want exit 0, output %q, foreignOutputSuspected false", a, tc.want)
							}
							if a.errText != "" || a.outcome != "completed" {
								t.FailNow()
							}
						}
					})
				}
			})
		}
	})
}
