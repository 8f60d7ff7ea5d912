package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// TestInspectorModern drives tmux-mcp with the MCP Inspector's CLI in its modern protocol era
// (2026-07-28) over stdio and HTTP, when TMUX_MCP_INSPECTOR names its command (as for
// TestInspectorStrict): a tool listed and called (its result carries 2026-07-28's serverInfo
// in _meta) and resources listed.
func TestInspectorModern(t *testing.T) {
	inspector := strings.Fields(os.Getenv("TMUX_MCP_INSPECTOR"))
	if len(inspector) == 0 {
		t.Skip("TMUX_MCP_INSPECTOR is not set (e.g. TMUX_MCP_INSPECTOR='npx -y @modelcontextprotocol/inspector@2.12.0')")
	}
	tmx := testtmux.New(t)
	_, pane := tmx.NewSession("inspector")
	tmx.WaitPrompt(pane)
	home := t.TempDir() // the Inspector keeps its settings under HOME
	url := startHTTPBinary(t, tmx)
	targets := map[string][]string{
		"stdio": {"--cli", binary, "-e", "LIBTMUX_SOCKET_PATH=" + tmx.Socket},
		"http":  {"--cli", "--transport", "http", "--server-url", url, "--header", "Authorization: Bearer " + e2eToken},
	}
	for name, target := range targets {
		t.Run(name, func(t *testing.T) {
			for _, m := range []struct {
				args []string
				want string
			}{
				{[]string{"--method", "tools/list"}, `"list_panes"`},
				{[]string{"--method", "tools/call", "--tool-name", "list_panes"}, pane},
				{[]string{"--method", "tools/call", "--tool-name", "list_sessions"}, "io.modelcontextprotocol/serverInfo"},
				{[]string{"--method", "resources/list"}, "tmux://panes/"},
			} {
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				args := append(append(append([]string{}, inspector[1:]...), target...), "--protocol-era", "modern")
				cmd := exec.CommandContext(ctx, inspector[0], append(args, m.args...)...)
				cmd.Env = append(os.Environ(), "HOME="+home)
				if os.Getenv("npm_config_cache") == "" {
					if h, err := os.UserHomeDir(); err == nil {
						cmd.Env = append(cmd.Env, "npm_config_cache="+filepath.Join(h, ".npm"))
					}
				}
				out, err := cmd.CombinedOutput()
				cancel()
				if err != nil || !strings.Contains(string(out), m.want) {
					t.Errorf("%v: %v, want %s in:\n%.1500s", m.args, err, m.want, out)
				}
			}
		})
	}
}
