package server

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

// Tool results fit their full output schemas, inferred from the result types (nested objects,
// required fields and all), not only the one-level schemas tools/list advertises (which e2e
// checks every result against): a call of each tool here, on a private tmux server.
func TestResultsFitOutputSchemas(t *testing.T) {
	srv, tmx, pane := newTestServer(t, policy.Destructive)
	tmx.Tmux("split-window", "-d", "-t", pane)
	ctx := context.Background()
	calls := []struct {
		tool string
		args string
	}{
		{"list_servers", `{}`},
		{"list_sessions", `{}`},
		{"get_server_info", `{}`},
		{"list_windows", `{}`},
		{"get_session_info", `{}`},
		{"list_panes", `{}`},
		{"get_window_info", `{}`},
		{"get_pane_info", `{"pane_id":"` + pane + `"}`},
		{"capture_pane", `{"pane_id":"` + pane + `"}`},
		{"capture_since", `{"pane_id":"` + pane + `"}`},
		{"search_panes", `{"pattern":"$"}`},
		{"display_message", `{"pane_id":"` + pane + `","format_string":"#{pane_id}"}`},
		{"find_pane_by_position", `{"corner":"top-left"}`},
		{"screenshot_pane", `{"pane_id":"` + pane + `"}`},
		{"wait_for_text", `{"pane_id":"` + pane + `","timeout":0.1}`},
		{"list_recordings", `{}`},
		{"show_option", `{"option":"status"}`},
		{"show_environment", `{}`},
		{"show_hooks", `{}`},
		{"show_hook", `{"hook_name":"pane-died"}`},
		{"send_keys", `{"pane_id":"` + pane + `","keys":"true"}`},
		{"send_keys_batch", `{"operations":[{"pane_id":"` + pane + `","keys":"true"}]}`},
		{"set_option", `{"option":"@x","value":"1"}`},
		{"set_environment", `{"name":"X","value":"1"}`},
		{"rename_window", `{"new_name":"w"}`},
		{"select_layout", `{"layout":"tiled"}`},
		{"resize_pane", `{"pane_id":"` + pane + `","zoom":false}`},
		{"set_pane_title", `{"pane_id":"` + pane + `","title":"t"}`},
		{"create_window", `{}`},
		{"load_buffer", `{"content":"x"}`},
		{"signal_channel", `{"channel":"c"}`},
		{"call_readonly_tools_batch", `{"operations":[{"tool":"list_sessions"}]}`},
	}
	for _, call := range calls {
		tool := srv.tools[call.tool]
		if tool == nil {
			t.Fatalf("%s is not offered", call.tool)
		}
		res, err := srv.Call(ctx, call.tool, json.RawMessage(call.args))
		if err != nil || res.IsError {
			t.Errorf("%s(%s): %v %s", call.tool, call.args, err, resultText(res))
			continue
		}
		out := tool.fullOutput()
		if out == nil {
			t.Errorf("%s has no output schema to check", call.tool)
			continue
		}
		r, err := out.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: %v", call.tool, err)
		}
		var v any
		Structured(res, &v)
		if err := r.Validate(v); err != nil {
			t.Errorf("%s: the result does not fit its output schema: %v\n%.600s", call.tool, err, res.StructuredContent)
		}
	}
}
