package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// userRCs are a user's start-up files that set USER_RC, per shell.
var userRCs = map[string][2]string{
	"bash": {".bashrc", "export USER_RC=read\n"},
	"fish": {".config/fish/config.fish", "set -gx USER_RC read\n"},
}

// TestIntegrationOutlivesServer: a pane split_window started with shell_integration, by a
// tmux-mcp process that has ended since (here tmux-mcp call), starts its shell again
// (respawn-pane, as a person or respawn_pane does) with the user's own start-up files and the
// integration: its commands are listed by a server started later. (Not zsh: its integration
// comes with the environment, ZDOTDIR, which tmux's respawn-pane does not give again.)
func TestIntegrationOutlivesServer(t *testing.T) {
	for _, shell := range []string{"bash", "fish"} {
		t.Run(shell, func(t *testing.T) {
			testtmux.RequireShell(t, []string{shell})
			t.Parallel()
			tmx := testtmux.New(t)
			sess, _ := tmx.NewSession("")
			rc := userRCs[shell]
			path := filepath.Join(tmx.Home, rc[0])
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(rc[1]), 0o600); err != nil {
				t.Fatal(err)
			}
			args, _ := json.Marshal(map[string]any{"session_id": sess, "shell": shell, "shell_integration": true, "start_directory": tmx.Home})
			cmd := exec.Command(binary, "call", "split_window", string(args))
			cmd.Env = append(append([]string{}, tmx.Env...), "LIBTMUX_SOCKET_PATH="+tmx.Socket)
			out, err := cmd.Output()
			var p pane
			if err != nil || json.Unmarshal(out, &p) != nil || p.PaneID == "" {
				t.Fatalf("call split_window: %v\n%s", err, out)
			}
			tmx.Tmux("respawn-pane", "-k", "-t", p.PaneID)
			c := startOn(t, tmx)
			// The server follows the pane from now on: the next prompt's marks are seen.
			c.Call("list_commands", map[string]any{"pane_id": p.PaneID})
			personTypes(tmx, p.PaneID, "echo rc-$USER_RC")
			l := waitCommands(t, c, p.PaneID, 1, ended)
			var o cmdOutput
			c.OK("get_command_output", map[string]any{"pane_id": p.PaneID, "id": l.Commands[0].ID}, &o)
			if l.Commands[0].Command != "echo rc-$USER_RC" || len(o.Lines) != 1 || o.Lines[0] != "rc-read" {
				t.Errorf("after respawn: %+v, output %q", l.Commands[0], o.Lines)
			}
			if screen := tmx.Tmux("capture-pane", "-p", "-t", p.PaneID); strings.Contains(screen, "integration.fish") {
				t.Errorf("the shell could not read the integration:\n%s", screen)
			}
		})
	}
}
