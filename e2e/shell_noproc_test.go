package e2e

import (
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/termstate"
	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// noProc is the binary's environment with its process table hidden (termstate.HideEnv): what
// tmux-mcp has on macOS and the BSDs where it reads no /proc, and for a pane on another host.
// Only tmux's own view (current command, pane pid and tty) and the tty's mode are left.
var noProc = termstate.HideEnv + "=1"

// noProcSetups are the set-ups of a shell TestShellNoProc runs: the realistic one (rc), and
// where the shell has them the default fish (no config), the right prompt with vi key
// bindings and the strict one (set -eu). The engine's own tests (runner TestEngineSetups) run
// every set-up both ways; through the binary a representative part keeps CI within its time.
func noProcSetups(shell string) []testtmux.Setup {
	var out []testtmux.Setup
	for _, su := range testtmux.Configs(shell) {
		switch {
		case su.Config == "rc", su.Config == "rprompt",
			su.Config == "clean" && su.Fish,
			su.Config == "strict" && (shell == "bash" || shell == "zsh"):
			out = append(out, su)
		}
	}
	return out
}

// noProcHijacks are the definitions TestShellNoProc makes before runs: a function named
// printf (one that made runs time out in zsh without /proc) and one named command.
var noProcHijacks = []hijack{{"function", "printf"}, {"function", "command"}}

// TestShellNoProc: the shell matrix through the binary with its process table hidden, as on
// macOS, the BSDs or a pane on another host. In each shell's set-ups of noProcSetups the mixed
// runs complete and leave no trace (as TestShellNoTraces); a user function named printf or
// command is defeated or named (as TestShellHijack); fish and ksh started through sh -c run at
// once (as TestShellStartedThrough, fewer times: the POSIX framing was typed into fish); zsh
// with HIST_IGNORE_SPACE records nothing (as TestShellHistoryIgnoreSpace). What waits for
// input without the table is TestRunWaitsForInput's.
func TestShellNoProc(t *testing.T) {
	for _, shell := range testtmux.ShellNames() {
		t.Run(shell, func(t *testing.T) {
			testtmux.RequireShell(t, testtmux.Config(shell, "clean").Argv)
			t.Parallel()
			sc := startShellClient(t, noProc)
			for _, su := range noProcSetups(shell) {
				t.Run(su.Config, func(t *testing.T) {
					t.Parallel()
					tracesCase(t, sc, su)
				})
			}
			su := testtmux.Config(shell, "rc")
			for _, h := range noProcHijacks {
				if su.Fish && h.name == "command" {
					continue // fish reserves it
				}
				t.Run("hijack-"+h.kind+"-"+h.name, func(t *testing.T) {
					t.Parallel()
					hijackCase(t, sc, su, h)
				})
			}
		})
	}
	for _, su := range []testtmux.Setup{
		testtmux.Started("fish", "sh-c", "sh", "-c", "fish"),
		testtmux.Started("ksh", "sh-c-child", "sh", "-c", "ksh; exit $?"),
	} {
		t.Run(su.Name(), func(t *testing.T) {
			su.Require(t)
			t.Parallel()
			startedThrough(t, startShellClient(t, noProc), su, 6)
		})
	}
	t.Run("zsh-ignorespace", func(t *testing.T) {
		t.Parallel()
		ignoreSpaceCase(t, noProc)
	})
}
