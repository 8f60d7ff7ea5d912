package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// TestCommandsPromptHooks: bash with the shell integration and a user's start-up files whose
// preexec hook (a DEBUG trap printing OSC 133 C) also runs for every command of the prompt's
// PROMPT_COMMAND (the integration's, direnv's hook, history -a and -n), entering a directory
// whose .envrc direnv loads (and says so): list_commands lists the commands typed and the
// run, each with its status and output, and nothing else.
func TestCommandsPromptHooks(t *testing.T) {
	su := testtmux.Plugins("bash")[0]
	su.Require(t)
	c := start(t)
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
	c.OK("split_window", map[string]any{"session_id": sess, "shell": "bash", "shell_integration": true, "start_directory": home, "environment": env}, &p)
	waitMarks(t, c, p.PaneID)
	// A person types at the prompt (bash-completion takes a while to load).
	for deadline := time.Now().Add(30 * time.Second); !strings.HasSuffix(strings.TrimSpace(c.Tmx.Tmux("capture-pane", "-p", "-t", p.PaneID)), "❯"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no prompt:\n%s", c.Tmx.Tmux("capture-pane", "-p", "-t", p.PaneID))
		}
	}
	personTypes(c.Tmx, p.PaneID, "false")
	waitCommands(t, c, p.PaneID, 1, ended)
	personTypes(c.Tmx, p.PaneID, "cd "+testtmux.ProjectDir)
	waitCommands(t, c, p.PaneID, 2, ended)
	var rc struct {
		Output string `json:"output"`
	}
	c.OK("run_shell_command", map[string]any{"paneId": p.PaneID, "command": "echo ran"}, &rc)
	personTypes(c.Tmx, p.PaneID, "make")
	l := waitCommands(t, c, p.PaneID, 4, ended)
	type row struct {
		cmd    string
		status int
		out    string
	}
	want := []row{{"false", 1, ""}, {"cd proj", 0, ""}, {"echo ran", 0, "ran"}, {"make", 0, "built with loaded"}}
	for i, ci := range l.Commands {
		var o cmdOutput
		c.OK("get_command_output", map[string]any{"pane_id": p.PaneID, "id": ci.ID}, &o)
		st := -1
		if ci.ExitStatus != nil {
			st = *ci.ExitStatus
		}
		// The user's prompt puts its B before its "❯ ", which the command line then begins with.
		got := row{strings.TrimPrefix(ci.Command, "❯ "), st, strings.Join(o.Lines, "\n")}
		if i >= len(want) || got != want[i] {
			t.Errorf("command %d: %+v, want %+v", i, got, want[min(i, len(want)-1)])
		}
	}
	if len(l.Commands) != len(want) {
		t.Errorf("%d commands listed, want %d: %+v", len(l.Commands), len(want), l.Commands)
	}
}
