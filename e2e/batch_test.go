package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/server"
)

type toolsBatchResult struct {
	Results []struct {
		Index             int             `json:"index"`
		Tool              string          `json:"tool"`
		Success           bool            `json:"success"`
		Error             *string         `json:"error"`
		StructuredContent json.RawMessage `json:"structured_content"`
		ElapsedSeconds    float64         `json:"elapsed_seconds"`
	} `json:"results"`
	Succeeded              int  `json:"succeeded"`
	Failed                 int  `json:"failed"`
	StoppedAt              *int `json:"stopped_at"`
	ResponseTruncated      bool `json:"response_truncated"`
	ResponseTruncatedBytes int  `json:"response_truncated_bytes"`
}

func op(tool string, args map[string]any) map[string]any {
	return map[string]any{"tool": tool, "arguments": args}
}

func batch(c *Client, tool string, onError string, ops ...map[string]any) toolsBatchResult {
	c.t.Helper()
	args := map[string]any{"operations": ops}
	if onError != "" {
		args["on_error"] = onError
	}
	var out toolsBatchResult
	c.OK(tool, args, &out)
	if len(out.Results) > 0 && out.Results[len(out.Results)-1].Index != len(out.Results)-1 {
		c.t.Errorf("%s: rows out of order: %+v", tool, out.Results)
	}
	return out
}

func inCatalog(name string) bool {
	return slices.ContainsFunc(server.Catalog(), func(t server.ToolInfo) bool { return t.Name == name })
}

func TestBatchReadonly(t *testing.T) {
	c := start(t)
	sid, p := c.Tmx.NewSession("s")
	out := batch(c, "call_readonly_tools_batch", "",
		op("list_sessions", nil),
		op("get_pane_info", map[string]any{"pane_id": p}),
		op("show_option", map[string]any{"option": "status", "global_": true}),
	)
	if out.Succeeded != 3 || out.Failed != 0 || out.StoppedAt != nil || out.ResponseTruncated {
		t.Fatalf("readonly batch = %+v", out)
	}
	var pi pane
	json.Unmarshal(out.Results[1].StructuredContent, &pi)
	if pi.PaneID != p || pi.SessionID != sid {
		t.Errorf("row 1 structured_content = %s", out.Results[1].StructuredContent)
	}

	// A tool above the batch's tier, a batch tool, an unknown tool, a blocking tool and a
	// validation error are failed rows; on_error=continue runs the rest.
	ops := []map[string]any{
		op("create_session", map[string]any{"session_name": "nope"}),
		op("call_readonly_tools_batch", map[string]any{"operations": []any{op("list_sessions", nil)}}),
		op("no_such_tool", nil),
		op("get_pane_info", map[string]any{"pane_id": 5}),
		op("wait_for_text", map[string]any{"pane_id": p}),
		op("list_sessions", nil),
	}
	out = batch(c, "call_readonly_tools_batch", "continue", ops...)
	if out.Succeeded != 1 || out.Failed != 5 || out.StoppedAt != nil || len(out.Results) != 6 {
		t.Fatalf("continue batch = %+v", out)
	}
	blocking := "unknown tool"
	if inCatalog("wait_for_text") {
		blocking = "blocks"
	}
	for i, want := range []string{"above what call_readonly_tools_batch may call", "batch tools cannot call batch tools", "unknown tool", "pane_id", blocking} {
		r := out.Results[i]
		if r.Success || r.Error == nil || !strings.Contains(*r.Error, want) || r.StructuredContent != nil && string(r.StructuredContent) != "null" {
			t.Errorf("row %d (%s): want a failure mentioning %q, got %+v (error %v)", i, r.Tool, want, r, deref(r.Error))
		}
	}
	if _, err := c.Tmx.TryTmux("has-session", "-t", "=nope"); err == nil {
		t.Errorf("a refused nested create_session created a session")
	}
	// on_error=stop (the default) halts at the first failure.
	out = batch(c, "call_readonly_tools_batch", "", ops...)
	if len(out.Results) != 1 || out.StoppedAt == nil || *out.StoppedAt != 0 || out.Failed != 1 {
		t.Errorf("stop batch = %+v", out)
	}

	wantErr(t, c, "call_readonly_tools_batch", map[string]any{"operations": []any{}}, "operations")
	many := make([]any, 1001)
	for i := range many {
		many[i] = op("list_sessions", nil)
	}
	wantErr(t, c, "call_readonly_tools_batch", map[string]any{"operations": many}, "operations")
	wantErr(t, c, "call_readonly_tools_batch", map[string]any{"operations": []any{map[string]any{"tool": "list_sessions", "args": map[string]any{}}}}, "args")
	wantErr(t, c, "call_readonly_tools_batch", map[string]any{"operations": []any{op("list_sessions", nil)}, "on_error": "ignore"}, "on_error")
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func TestBatchTiers(t *testing.T) {
	// At the destructive tier, the mutating batch still stops at mutating tools.
	c := destructive(t)
	_, p := c.Tmx.NewSession("s")
	p1 := c.Tmx.SplitWindow(p)
	out := batch(c, "call_mutating_tools_batch", "continue",
		op("set_pane_title", map[string]any{"pane_id": p, "title": "t1"}),
		op("kill_pane", map[string]any{"pane_id": p1}),
	)
	// kill_pane is mutating, for what this server created only: not this pane.
	if out.Succeeded != 1 || out.Failed != 1 || !strings.Contains(deref(out.Results[1].Error), "not created by this server") {
		t.Fatalf("mutating batch at the destructive tier = %+v (%s)", out, deref(out.Results[1].Error))
	}
	if !c.paneExists(p1) {
		t.Fatalf("the mutating batch killed a pane")
	}
	out = batch(c, "call_destructive_tools_batch", "",
		op("select_pane", map[string]any{"pane_id": p}),
		op("kill_pane", map[string]any{"pane_id": p1}),
		op("list_panes", map[string]any{"session_name": "s"}),
	)
	if out.Succeeded != 3 || c.paneExists(p1) {
		t.Fatalf("destructive batch = %+v", out)
	}

	// At the mutating tier, destructive tools are not offered at all, batch or not, and
	// kill_pane kills only what this server created.
	m := start(t)
	_, mp := m.Tmx.NewSession("m")
	out = batch(m, "call_mutating_tools_batch", "continue", op("kill_pane", map[string]any{"pane_id": mp}), op("kill_server", nil))
	if out.Failed != 2 || !strings.Contains(deref(out.Results[0].Error), "not created by this server") || !strings.Contains(deref(out.Results[1].Error), "not offered") {
		t.Fatalf("kill_pane through a batch at the mutating tier = %+v", out)
	}
	if !m.paneExists(mp) {
		t.Fatal("the pane was killed")
	}
}

func TestBatchResponseLimit(t *testing.T) {
	c := start(t)
	c.Tmx.NewSession("s")
	var ref bufferRef
	c.OK("load_buffer", map[string]any{"content": strings.Repeat("0123456789abcdef\n", 20000)}, &ref) // 340 KB
	ops := []map[string]any{}
	for i := 0; i < 3; i++ {
		ops = append(ops, op("show_buffer", map[string]any{"buffer_name": ref.BufferName, "max_lines": nil}))
	}
	res := c.Call("call_readonly_tools_batch", map[string]any{"operations": ops})
	if res.IsError {
		t.Fatalf("batch: %s", text(res))
	}
	b, _ := json.Marshal(res)
	if len(b) > 1_000_000 {
		t.Errorf("response is %d bytes, over 1 MB", len(b))
	}
	var out toolsBatchResult
	sc, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(sc, &out)
	if !out.ResponseTruncated || out.ResponseTruncatedBytes < 340000 || out.Succeeded != 3 {
		t.Fatalf("truncation: %+v", out.ResponseTruncated)
	}
	if string(out.Results[0].StructuredContent) != "null" || string(out.Results[2].StructuredContent) == "null" {
		t.Errorf("rows lose structured_content from the first on: %d %d bytes", len(out.Results[0].StructuredContent), len(out.Results[2].StructuredContent))
	}
}
