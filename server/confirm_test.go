package server

import (
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

// LIBTMUX_MCP_CONFIRM: a named tool or tier asks the person first, on both generations; an
// accept runs it, a decline, a cancel or a client without elicitation refuses it naming the
// setting; a batch asks about its operations before any runs; other calls do not ask.
func TestConfirm(t *testing.T) {
	tmx := testtmux.New(t)
	_, pane := tmx.NewSession("s")
	tmx.WaitPrompt(pane)
	s, err := New(Options{SocketPath: tmx.Socket, Env: tmx.Env, Safety: policy.Mutating, Confirm: []string{"set_pane_title", "readonly"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	title := func() string {
		return strings.TrimSpace(tmx.Tmux("display-message", "-p", "-t", pane, "#{pane_title}"))
	}
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		yes := &pageClient{}
		cs := yes.connect(t, s, "stream", v)
		if res, text := callJSON(t, cs, "set_pane_title", map[string]any{"pane_id": pane, "title": "yes-" + v}); res.IsError || title() != "yes-"+v {
			t.Errorf("%s accepted: %s", v, text)
		}
		if len(yes.asked) != 1 || !strings.Contains(yes.asked[0], "set_pane_title on pane "+pane) {
			t.Errorf("%s asked %q", v, yes.asked)
		}
		// A mutating tool not named runs without a question.
		callJSON(t, cs, "select_pane", map[string]any{"pane_id": pane})
		if len(yes.asked) != 1 {
			t.Errorf("%s: select_pane asked: %q", v, yes.asked)
		}
		for _, action := range []string{"decline", "cancel"} {
			no := (&pageClient{formAction: action}).connect(t, s, "stream", v)
			res, text := callJSON(t, no, "set_pane_title", map[string]any{"pane_id": pane, "title": "no"})
			if !res.IsError || !strings.Contains(text, "LIBTMUX_MCP_CONFIRM") || title() == "no" {
				t.Errorf("%s %s: %s", v, action, text)
			}
		}
		// A batch asks before it runs anything: the tier readonly is named, so both of its
		// read-only operations ask, and set_pane_title too.
		b := &pageClient{}
		bs := b.connect(t, s, "stream", v)
		res, text := callJSON(t, bs, "call_mutating_tools_batch", map[string]any{"operations": []any{
			map[string]any{"tool": "get_pane_info", "arguments": map[string]any{"pane_id": pane}},
			map[string]any{"tool": "set_pane_title", "arguments": map[string]any{"pane_id": pane, "title": "batch-" + v}},
		}})
		if res.IsError || title() != "batch-"+v || len(b.asked) != 2 || !strings.Contains(text, `"succeeded":2`) {
			t.Errorf("%s batch: %s (asked %q)", v, text, b.asked)
		}
		nb := (&pageClient{formAction: "decline"}).connect(t, s, "stream", v)
		res, text = callJSON(t, nb, "call_mutating_tools_batch", map[string]any{"operations": []any{
			map[string]any{"tool": "set_pane_title", "arguments": map[string]any{"pane_id": pane, "title": "nope"}},
		}})
		if title() == "nope" || !strings.Contains(text, "LIBTMUX_MCP_CONFIRM") {
			t.Errorf("%s declined batch: %s", v, text)
		}
	}
	none := (&pageClient{noElicit: true}).connect(t, s, "stream", "2025-11-25")
	if res, text := callJSON(t, none, "set_pane_title", map[string]any{"pane_id": pane, "title": "none"}); !res.IsError || !strings.Contains(text, "LIBTMUX_MCP_CONFIRM") || title() == "none" {
		t.Errorf("no elicitation: %s", text)
	}
	if _, err := New(Options{SocketPath: tmx.Socket, Confirm: []string{"kill_everything"}}); err == nil || !strings.Contains(err.Error(), "LIBTMUX_MCP_CONFIRM") {
		t.Errorf("an unknown name: %v", err)
	}
}
