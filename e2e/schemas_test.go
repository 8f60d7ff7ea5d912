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

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/schemalint"
)

// The schemas tools/list advertises at every tier (and with run_command's other default) pass
// the MCP Inspector's --strict portability rules, which internal/schemalint encodes from the
// Inspector's source: no type arrays such as ["null","string"], every property typed, no bare
// true or false in place of a schema. The seeded schemas pass as they are.
func TestToolsListPortable(t *testing.T) {
	for _, env := range [][]string{
		{"LIBTMUX_SAFETY=readonly"}, {"LIBTMUX_SAFETY=mutating"}, {"LIBTMUX_SAFETY=destructive"},
		{"LIBTMUX_SAFETY=destructive", "LIBTMUX_SUPPRESS_HISTORY=0"},
	} {
		c := start(t, env...)
		tools := c.listTools()
		if len(tools) == 0 {
			t.Fatalf("%v: no tools", env)
		}
		for name, tool := range tools {
			for _, f := range schemalint.Tool(tool.InputSchema, tool.OutputSchema) {
				t.Errorf("%v: %s: %s", env, name, f)
			}
		}
	}
}

// TestInspectorStrict runs the MCP Inspector's own check when TMUX_MCP_INSPECTOR names its
// command (e.g. "npx -y @modelcontextprotocol/inspector@2.12.0", or "node
// …/clients/cli/build/index.js"): `--cli tmux-mcp --method tools/list --strict` must report no
// finding at any tier. It needs Node and the package, so it is skipped otherwise;
// TestToolsListPortable checks the same rules without them.
func TestInspectorStrict(t *testing.T) {
	inspector := strings.Fields(os.Getenv("TMUX_MCP_INSPECTOR"))
	if len(inspector) == 0 {
		t.Skip("TMUX_MCP_INSPECTOR is not set (e.g. TMUX_MCP_INSPECTOR='npx -y @modelcontextprotocol/inspector@2.12.0')")
	}
	home := t.TempDir() // the Inspector keeps its settings under HOME
	for _, tier := range []string{"readonly", "mutating", "destructive"} {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		args := append(inspector[1:], "--cli", binary, "-e", "LIBTMUX_SAFETY="+tier,
			"-e", "LIBTMUX_SOCKET_PATH="+filepath.Join(home, "no-server"), "--method", "tools/list", "--strict")
		cmd := exec.CommandContext(ctx, inspector[0], args...)
		cmd.Env = append(os.Environ(), "HOME="+home)
		if os.Getenv("npm_config_cache") == "" {
			if h, err := os.UserHomeDir(); err == nil {
				cmd.Env = append(cmd.Env, "npm_config_cache="+filepath.Join(h, ".npm")) // npx's own cache, not a new one
			}
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		cancel()
		if err != nil {
			t.Fatalf("%s: the Inspector failed: %v\n%s", tier, err, stderr.String())
		}
		var list struct{ Tools []struct{ Name string } }
		if err := json.Unmarshal(out, &list); err != nil || len(list.Tools) == 0 {
			t.Fatalf("%s: the Inspector printed no tool list (%v): %.300s", tier, err, out)
		}
		// The Inspector prints its findings on stderr, or a one-line count; none is printed
		// when there are none.
		if s := stderr.String(); strings.Contains(s, "Warning:") || strings.Contains(s, "Error:") || strings.Contains(s, "portability") {
			t.Errorf("%s: the Inspector reports portability problems:\n%s", tier, s)
		}
		t.Logf("%s: %d tools, no portability finding", tier, len(list.Tools))
	}
}

// Arguments libtmux-mcp takes null for are still taken as null, though tools/list now
// advertises their plain types: null means the default, as leaving them out does.
func TestNullArgumentsAccepted(t *testing.T) {
	c := start(t)
	c.Tmx.NewSession("nulls")
	var pane struct {
		PaneID string `json:"pane_id"`
	}
	c.OK("get_pane_info", map[string]any{"session_name": "nulls", "pane_id": nil, "session_id": nil, "window_id": nil, "socket_name": nil}, &pane)
	target := func(more map[string]any) map[string]any {
		m := map[string]any{"pane_id": pane.PaneID, "session_name": nil, "session_id": nil, "window_id": nil, "socket_name": nil}
		for k, v := range more {
			m[k] = v
		}
		return m
	}
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"list_sessions", map[string]any{"filters": nil, "socket_name": nil}},
		{"list_windows", map[string]any{"session_name": nil, "session_id": nil, "filters": nil, "socket_name": nil}},
		{"list_panes", map[string]any{"window_id": nil, "window_index": nil, "session_name": "nulls", "session_id": nil, "filters": nil}},
		{"get_window_info", map[string]any{"window_id": nil, "window_index": nil, "session_name": "nulls", "session_id": nil}},
		{"capture_pane", target(map[string]any{"start": nil, "end": nil, "max_lines": nil})},
		{"capture_since", target(map[string]any{"cursor": nil, "max_lines": nil, "max_bytes": nil})},
		{"search_panes", map[string]any{"pattern": "x", "session_name": nil, "session_id": nil, "content_start": nil, "content_end": nil, "limit": nil}},
		{"wait_for_text", target(map[string]any{"patterns": nil, "stop": nil, "cursor": nil, "interval": nil, "timeout": 0.1})},
		{"show_option", map[string]any{"option": "mode-keys", "scope": nil, "target": nil, "socket_name": nil}},
		{"show_environment", map[string]any{"session_name": nil, "session_id": nil}},
		{"split_window", map[string]any{"pane_id": pane.PaneID, "size": nil, "direction": nil, "shell": nil, "start_directory": nil, "environment": nil}},
	} {
		c.OK(call.tool, call.args, nil)
	}
}

// resolveOutputs resolves every advertised output schema, for checkOutput.
func (c *Client) resolveOutputs() map[string]*jsonschema.Resolved {
	out := map[string]*jsonschema.Resolved{}
	for tool, err := range c.CS.Tools(context.Background(), nil) {
		if err != nil {
			c.t.Errorf("tools/list: %v", err)
			return out
		}
		if tool.OutputSchema == nil {
			continue
		}
		b, _ := json.Marshal(tool.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			c.t.Errorf("%s: output schema: %v", tool.Name, err)
			continue
		}
		s.Schema = "" // run_shell_command's seed names draft-07; its keywords mean the same here
		r, err := s.Resolve(nil)
		if err != nil {
			c.t.Errorf("%s: output schema: %v", tool.Name, err)
			continue
		}
		out[tool.Name] = r
	}
	return out
}

// checkOutput checks a successful result against the output schema tools/list advertises for
// its tool, as clients that validate structured content (the TypeScript SDK's) do: every
// result an e2e test takes with OK is checked.
func (c *Client) checkOutput(tool string, res *mcp.CallToolResult) {
	if c.outputs == nil {
		return
	}
	r, ok := c.outputs()[tool]
	if !ok {
		return
	}
	b, _ := json.Marshal(res.StructuredContent)
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		c.t.Errorf("%s: structured content: %v", tool, err)
		return
	}
	if err := r.Validate(v); err != nil {
		c.t.Errorf("%s: the result does not fit its advertised output schema: %v\n%.500s", tool, err, b)
	}
}
