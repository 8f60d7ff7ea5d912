package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// TestCommandsPromptHooks: bash and fish with the shell integration and a user's start-up
// files whose preexec hook prints OSC 133 C: bash's, a DEBUG trap, also for every command of
// the prompt's PROMPT_COMMAND (the integration's, direnv's hook, history -a and -n); fish's
// beside the integration's, with a right prompt (the time) on the command line's row. A person
// enters a directory whose .envrc direnv loads (and says so), and runs make there:
// list_commands lists the commands typed and the run, each with its status and output, and
// nothing else.
func TestCommandsPromptHooks(t *testing.T) {
	for _, shell := range []string{"bash", "fish"} {
		t.Run(shell, func(t *testing.T) {
			su := testtmux.Plugins(shell)[0]
			su.Require(t)
			t.Parallel()
			c := start(t)
			p := pluginsPane(t, c, su)
			personTypes(c.Tmx, p, "false")
			waitCommands(t, c, p, 1, ended)
			personTypes(c.Tmx, p, "cd "+testtmux.ProjectDir)
			waitCommands(t, c, p, 2, ended)
			var rc struct {
				Output string `json:"output"`
			}
			c.OK("run_shell_command", map[string]any{"paneId": p, "command": "echo ran"}, &rc)
			personTypes(c.Tmx, p, "make")
			l := waitCommands(t, c, p, 4, ended)
			want := []cmdRow{{"false", 1, ""}, {"cd proj", 0, ""}, {"echo ran", 0, "ran"}, {"make", 0, "built with loaded"}}
			for i, ci := range l.Commands {
				if got := commandRow(t, c, p, ci); i >= len(want) || got != want[i] {
					t.Errorf("command %d: %+v, want %+v", i, got, want[min(i, len(want)-1)])
				}
			}
			if len(l.Commands) != len(want) {
				t.Errorf("%d commands listed, want %d: %+v", len(l.Commands), len(want), l.Commands)
			}
		})
	}
}

// pluginsPane splits a pane running su's shell with the shell integration, in a HOME with su's
// files, and waits until it shows its prompt.
func pluginsPane(t *testing.T, c *Client, su testtmux.Setup) string {
	t.Helper()
	sess, _ := c.Tmx.NewSession("")
	home := filepath.Join(c.Tmx.Dir, "plugins-home") // removed once tmux and the shell ended
	if err := su.WriteHome(home); err != nil {
		t.Fatal(err)
	}
	env := map[string]any{}
	for _, kv := range su.Environ(home) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	var p pane
	c.OK("split_window", map[string]any{"session_id": sess, "shell": su.Shell, "shell_integration": true, "start_directory": home, "environment": env}, &p)
	waitMarks(t, c, p.PaneID)
	// A person types at the prompt (bash-completion takes a while to load).
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		rows := strings.Split(strings.TrimSpace(c.Tmx.Tmux("capture-pane", "-p", "-t", p.PaneID)), "\n")
		if strings.Contains(rows[len(rows)-1], "❯") {
			return p.PaneID
		}
		if time.Now().After(deadline) {
			t.Fatalf("no prompt:\n%s", strings.Join(rows, "\n"))
		}
	}
}

// cmdRow is a listed command's line, status and output.
type cmdRow struct {
	cmd    string
	status int
	out    string
}

func commandRow(t *testing.T, c *Client, pane string, ci cmdInfo) cmdRow {
	t.Helper()
	var o cmdOutput
	c.OK("get_command_output", map[string]any{"pane_id": pane, "id": ci.ID}, &o)
	st := -1
	if ci.ExitStatus != nil {
		st = *ci.ExitStatus
	}
	// bash's prompt puts its B before its "❯ ", which the command line then begins with.
	return cmdRow{strings.TrimPrefix(ci.Command, "❯ "), st, strings.Join(o.Lines, "\n")}
}
