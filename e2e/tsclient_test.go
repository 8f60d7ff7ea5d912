package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// TestTSClient drives tmux-mcp with the TypeScript client v2 (@modelcontextprotocol/client), in
// its auto mode and pinned to 2026-07-28, over stdio and HTTP: tools listed and called,
// progress, resources listed, read (a blank pane included) and subscribed to, a prompt,
// completion (testdata/tsclient.mjs). TMUX_MCP_TSCLIENT names node and a directory whose
// node_modules holds the client (.ci/conformance.sh sets it when Node and the npm registry are
// there).
func TestTSClient(t *testing.T) {
	cfg := strings.Fields(os.Getenv("TMUX_MCP_TSCLIENT"))
	if len(cfg) != 2 {
		t.Skip("TMUX_MCP_TSCLIENT is not set to 'NODE DIR' (.ci/conformance.sh sets it when Node and the npm registry are there)")
	}
	node, dir := cfg[0], cfg[1]
	script, err := os.ReadFile("testdata/tsclient.mjs")
	if err != nil {
		t.Fatal(err)
	}
	// Node resolves a module's imports from the module's own directory.
	run := filepath.Join(dir, "tmux-mcp-tsclient-"+strings.ReplaceAll(t.Name(), "/", "-")+".mjs")
	if err := os.WriteFile(run, script, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(run) })
	for _, transport := range []string{"stdio", "http"} {
		for _, mode := range []string{"auto", "pin"} {
			t.Run(transport+"/"+mode, func(t *testing.T) {
				tmx := testtmux.New(t)
				_, pane := tmx.NewSession("ts")
				tmx.WaitPrompt(pane)
				blank := tmx.Tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", pane, "sleep 600") // shows nothing
				serverEnv := append(append([]string{}, tmx.Env...), "LIBTMUX_SOCKET_PATH="+tmx.Socket, "LIBTMUX_SAFETY=mutating")
				env := append(os.Environ(), "TS_TRANSPORT="+transport, "TS_MODE="+mode, "TS_PANE="+pane, "TS_BLANK="+blank)
				if transport == "http" {
					env = append(env, "TS_URL="+startHTTPBinary(t, tmx, "LIBTMUX_SAFETY=mutating"), "TS_TOKEN="+e2eToken)
				} else {
					m := map[string]string{}
					for _, kv := range serverEnv {
						k, v, _ := strings.Cut(kv, "=")
						m[k] = v
					}
					b, _ := json.Marshal(m)
					env = append(env, "TS_BINARY="+binary, "TS_ENV="+string(b))
				}
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, node, run)
				cmd.Env = env
				out, err := cmd.CombinedOutput()
				t.Logf("%s", out)
				if err != nil {
					t.Fatalf("the TypeScript client: %v", err)
				}
			})
		}
	}
}
