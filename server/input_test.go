package server

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

func resultText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestInputRefusesReservedPane: a pane held by an unfinished run refuses input naming the run,
// except interrupt keys, which are how the run is stopped.
func TestInputRefusesReservedPane(t *testing.T) {
	s, tmx, pane := newTestServer(t, policy.Mutating)
	ctx := context.Background()
	ts, err := s.tmuxDefault()
	if err != nil {
		t.Fatal(err)
	}
	id, err := ts.Identity(ctx)
	if err != nil {
		t.Fatal(err)
	}
	k := paneKey{daemon: id, pane: pane}
	if err := s.state.reserve(k, `run_shell_command "make all"`); err != nil {
		t.Fatal(err)
	}
	call := func(tool string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		raw, _ := json.Marshal(args)
		res, err := s.Call(ctx, tool, raw)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"send_keys", map[string]any{"pane_id": pane, "keys": "echo hi"}},
		{"send_keys", map[string]any{"pane_id": pane, "keys": "C-c"}}, // with Enter: not only an interrupt
		{"paste_text", map[string]any{"pane_id": pane, "text": "echo hi"}},
	} {
		res := call(tc.tool, tc.args)
		if msg := resultText(res); !res.IsError || !strings.Contains(msg, `run_shell_command "make all"`) || !strings.Contains(msg, "busy") {
			t.Errorf("%s(%v) into a reserved pane: %s", tc.tool, tc.args, msg)
		}
	}
	res := call("send_keys_batch", map[string]any{"operations": []any{map[string]any{"pane_id": pane, "keys": "ls"}}})
	if msg := resultText(res); res.IsError || !strings.Contains(msg, "make all") {
		t.Errorf("batch row into a reserved pane: %s", msg)
	}
	if res := call("send_keys", map[string]any{"pane_id": pane, "keys": "C-c", "enter": false}); res.IsError {
		t.Errorf("C-c into a reserved pane must be allowed: %s", resultText(res))
	}
	tmx.WaitFor(pane, func(s string) bool { return strings.Contains(s, "^C") })
	s.state.release(k)
	if res := call("send_keys", map[string]any{"pane_id": pane, "keys": "echo free"}); res.IsError {
		t.Errorf("after release: %s", resultText(res))
	}
	tmx.WaitFor(pane, func(s string) bool { return strings.Contains(s, "\nfree") })
}
