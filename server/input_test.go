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
	call := func(tool string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		raw, _ := json.Marshal(args)
		res, err := s.Call(ctx, tool, raw)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// A run that outlives its call holds the pane.
	if res := call("run_shell_command", map[string]any{"paneId": pane, "command": "sleep 30 # make all", "timeoutMs": 300}); res.IsError {
		t.Fatal(resultText(res))
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"send_keys", map[string]any{"pane_id": pane, "keys": "echo hi"}},
		{"send_keys", map[string]any{"pane_id": pane, "keys": "C-c Enter"}}, // not only an interrupt
		{"paste_text", map[string]any{"pane_id": pane, "text": "echo hi"}},
	} {
		res := call(tc.tool, tc.args)
		if msg := resultText(res); !res.IsError || !strings.Contains(msg, `run_shell_command "sleep 30 # make all"`) || !strings.Contains(msg, "busy") {
			t.Errorf("%s(%v) into a reserved pane: %s", tc.tool, tc.args, msg)
		}
	}
	res := call("send_keys_batch", map[string]any{"operations": []any{map[string]any{"pane_id": pane, "keys": "ls"}}})
	if msg := resultText(res); res.IsError || !strings.Contains(msg, "make all") {
		t.Errorf("batch row into a reserved pane: %s", msg)
	}
	// Enter never follows a key name: C-c alone is only the interrupt.
	if res := call("send_keys", map[string]any{"pane_id": pane, "keys": "C-c"}); res.IsError {
		t.Errorf("C-c into a reserved pane must be allowed: %s", resultText(res))
	}
	tmx.WaitFor(pane, func(s string) bool { return strings.Contains(s, "^C") })
	// C-c ended the run: the pane is free.
	if res := call("wait_for_run", map[string]any{"pane_id": pane, "timeout": 10}); res.IsError {
		t.Errorf("wait_for_run: %s", resultText(res))
	}
	if res := call("send_keys", map[string]any{"pane_id": pane, "keys": "echo free"}); res.IsError {
		t.Errorf("after the run ended: %s", resultText(res))
	}
	tmx.WaitFor(pane, func(s string) bool { return strings.Contains(s, "\nfree") })
}
