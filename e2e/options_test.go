package e2e

import (
	"strings"
	"testing"
	"time"
)

type optionOut struct {
	Option string  `json:"option"`
	Value  *string `json:"value"`
	Target string  `json:"target"`
}

func TestShowAndSetOption(t *testing.T) {
	c := start(t)
	sid, p := c.Tmx.NewSession("s")
	wid := c.fmt(p, "#{window_id}")
	var o optionOut
	c.OK("show_option", map[string]any{"option": "status", "global_": true}, &o)
	if o.Value == nil || *o.Value != "off" || o.Target != "global" {
		t.Errorf("global status = %+v", o)
	}
	// Without global_, the effective (inherited) value of the first session.
	c.OK("show_option", map[string]any{"option": "history-limit"}, &o)
	if o.Value == nil || *o.Value != "5000" || o.Target != sid {
		t.Errorf("history-limit = %+v", o)
	}
	c.OK("show_option", map[string]any{"option": "mode-keys", "scope": "window", "target": wid}, &o)
	if o.Value == nil || o.Target != wid {
		t.Errorf("mode-keys of %s = %+v", wid, o)
	}
	c.OK("show_option", map[string]any{"option": "@unset"}, &o)
	if o.Value != nil {
		t.Errorf("unset user option = %q, want null", *o.Value)
	}
	c.OK("show_option", map[string]any{"option": "escape-time", "scope": "server"}, &o)
	if o.Value == nil || o.Target != "server" {
		t.Errorf("escape-time = %+v", o)
	}

	var set struct {
		Option, Value, Status, Target string
	}
	lit := "x #{pane_id} ;'\" $(id)"
	c.OK("set_option", map[string]any{"option": "@note", "value": lit, "scope": "session", "target": "s"}, &set)
	if set.Status != "set" || set.Target != sid {
		t.Errorf("set_option = %+v", set)
	}
	if got := c.Tmx.Tmux("show-options", "-v", "-t", sid, "@note"); got != lit {
		t.Errorf("@note = %q, want %q", got, lit)
	}
	c.OK("show_option", map[string]any{"option": "@note", "target": sid}, &o)
	if o.Value == nil || *o.Value != lit {
		t.Errorf("show_option @note = %+v", o)
	}
	c.OK("set_option", map[string]any{"option": "mode-keys", "value": "vi", "scope": "window", "target": wid}, nil)
	if got := c.Tmx.Tmux("show-options", "-wv", "-t", wid, "mode-keys"); got != "vi" {
		t.Errorf("mode-keys = %q", got)
	}
	c.OK("set_option", map[string]any{"option": "remain-on-exit", "value": "on", "scope": "pane", "target": p}, nil)
	if got := c.Tmx.Tmux("show-options", "-pv", "-t", p, "remain-on-exit"); got != "on" {
		t.Errorf("remain-on-exit = %q", got)
	}
	c.OK("set_option", map[string]any{"option": "@g", "value": "1", "global_": true}, nil)
	if got := c.Tmx.Tmux("show-options", "-gv", "@g"); got != "1" {
		t.Errorf("@g = %q", got)
	}

	wantErr(t, c, "set_option", map[string]any{"option": "after-new-window", "value": "run-shell 'touch /tmp/x'", "global_": true}, "is a hook")
	wantErr(t, c, "set_option", map[string]any{"option": "status-right", "value": "#(id)"}, "shell job")
	secret := "hunter2-not-a-number"
	msg := c.Fail("set_option", map[string]any{"option": "history-limit", "value": secret, "global_": true})
	if strings.Contains(msg, secret) || !strings.Contains(msg, "history-limit") {
		t.Errorf("a refused value must not be echoed: %q", msg)
	}
	wantErr(t, c, "show_option", map[string]any{"option": "no-such-option"}, "no option")
	wantErr(t, c, "show_option", map[string]any{"option": "status;kill-server"}, "not a valid option name")
	wantErr(t, c, "show_option", map[string]any{"option": "#{pane_id}"}, "not a valid option name")
	wantErr(t, c, "show_option", map[string]any{"option": "status", "target": sid, "global_": true}, "exclude each other")
	wantErr(t, c, "show_option", map[string]any{"option": "status", "scope": "server", "target": sid}, "no target")
	wantErr(t, c, "show_option", map[string]any{"option": "status", "scope": "session", "target": wid}, "not a session")
	wantErr(t, c, "show_option", map[string]any{"option": "status", "scope": "galaxy"}, "scope")
	wantErr(t, c, "show_option", map[string]any{"option": "status", "target": "%99"}, "status is a session option")
	wantErr(t, c, "show_option", map[string]any{"option": "remain-on-exit", "target": "%99"}, "no pane has id")
	wantErr(t, c, "show_option", map[string]any{"option": "status", "target": "nope"}, "no session is named")
}

func TestEnvironment(t *testing.T) {
	c := start(t)
	sid, _ := c.Tmx.NewSession("s")
	var set struct {
		Name, Value, Status, Target string
	}
	c.OK("set_environment", map[string]any{"name": "MCP_E2E", "value": "a b;c", "session_id": sid}, &set)
	if set.Status != "set" || set.Target != sid {
		t.Errorf("set_environment = %+v", set)
	}
	c.Tmx.Tmux("set-environment", "-r", "-t", sid, "MCP_GONE")
	var env struct {
		Variables map[string]any `json:"variables"`
		Target    string         `json:"target"`
	}
	c.OK("show_environment", map[string]any{"session_name": "s"}, &env)
	if env.Variables["MCP_E2E"] != "a b;c" || env.Variables["MCP_GONE"] != true || env.Target != sid {
		t.Errorf("show_environment = %+v", env)
	}
	c.OK("set_environment", map[string]any{"name": "MCP_GLOBAL", "value": "g"}, &set)
	if set.Target != "global" {
		t.Errorf("global set: %+v", set)
	}
	c.OK("show_environment", nil, &env)
	if env.Variables["MCP_GLOBAL"] != "g" || env.Target != "global" {
		t.Errorf("global show: target %s, MCP_GLOBAL=%v", env.Target, env.Variables["MCP_GLOBAL"])
	}
	wantErr(t, c, "set_environment", map[string]any{"name": "1BAD", "value": "x"}, "not a valid variable name")
	wantErr(t, c, "set_environment", map[string]any{"name": "A=B", "value": "x"}, "not a valid variable name")
	wantErr(t, c, "set_environment", map[string]any{"name": "OK", "value": "a\x00b"}, "NUL")
	wantErr(t, c, "set_environment", map[string]any{"name": "OK"}, "value")
	wantErr(t, c, "show_environment", map[string]any{"session_id": "$99"}, "no session has id")
}

type hooksOut struct {
	Entries []struct {
		HookName string `json:"hook_name"`
		Index    *int   `json:"index"`
		Command  string `json:"command"`
	} `json:"entries"`
	Target string `json:"target"`
}

func TestHooks(t *testing.T) {
	c := start(t)
	_, p := c.Tmx.NewSession("s")
	wid := c.fmt(p, "#{window_id}")
	c.Tmx.Tmux("set-hook", "-g", "after-new-window", "display-message one")
	c.Tmx.Tmux("set-hook", "-ga", "after-new-window", "display-message two")
	c.Tmx.Tmux("set-hook", "-gw", "pane-exited", "display-message gone")
	c.Tmx.Tmux("set-hook", "-w", "-t", wid, "window-renamed", "display-message local")
	var h hooksOut
	c.OK("show_hooks", nil, &h)
	got := map[string]int{}
	for _, e := range h.Entries {
		got[e.HookName]++
	}
	if got["after-new-window"] != 2 || got["pane-exited"] != 1 || got["window-renamed"] != 0 || h.Target != "global" {
		t.Errorf("global hooks (both trees) = %+v", h)
	}
	if e := h.Entries[0]; e.HookName != "after-new-window" || e.Index == nil || *e.Index != 0 || e.Command != "display-message one" {
		t.Errorf("first entry = %+v", e)
	}
	c.OK("show_hooks", map[string]any{"scope": "window", "target": wid}, &h)
	if len(h.Entries) != 1 || h.Entries[0].HookName != "window-renamed" || h.Target != wid {
		t.Errorf("window hooks = %+v", h)
	}
	c.OK("show_hook", map[string]any{"hook_name": "pane-exited"}, &h)
	if len(h.Entries) != 1 || h.Entries[0].Command != "display-message gone" {
		t.Errorf("show_hook pane-exited = %+v", h)
	}
	c.OK("show_hook", map[string]any{"hook_name": "session-created"}, &h)
	if len(h.Entries) != 0 {
		t.Errorf("an unset hook has no entries: %+v", h)
	}
	wantErr(t, c, "show_hook", map[string]any{"hook_name": "no-such-hook"}, "no hook")
	wantErr(t, c, "show_hook", map[string]any{"hook_name": "pane-died;kill-server"}, "not a valid hook name")
	wantErr(t, c, "show_hook", map[string]any{}, "hook_name")
	wantErr(t, c, "show_hooks", map[string]any{"scope": "pane", "target": "%99"}, "no pane has id")
}

type bufferRef struct {
	BufferName  string `json:"buffer_name"`
	LogicalName string `json:"logical_name"`
}

type bufferContent struct {
	BufferName            string `json:"buffer_name"`
	Content               string `json:"content"`
	ContentTruncated      bool   `json:"content_truncated"`
	ContentTruncatedLines int    `json:"content_truncated_lines"`
}

func TestBuffers(t *testing.T) {
	c := start(t)
	_, p := c.Tmx.NewSession("s")
	content := "line 1; kill-server\n'quoted' \"double\" #{pane_id} $(id) `id`\n\ttab and ünïcödé\n"
	var ref bufferRef
	c.OK("load_buffer", map[string]any{"content": content, "logical_name": "notes.v1"}, &ref)
	if !strings.HasPrefix(ref.BufferName, "libtmux_mcp_") || !strings.HasSuffix(ref.BufferName, "_notes.v1") || ref.LogicalName != "notes.v1" {
		t.Fatalf("load_buffer = %+v", ref)
	}
	var bc bufferContent
	c.OK("show_buffer", map[string]any{"buffer_name": ref.BufferName}, &bc)
	if bc.Content != content || bc.ContentTruncated {
		t.Errorf("show_buffer = %q, want %q", bc.Content, content)
	}
	c.OK("show_buffer", map[string]any{"buffer_name": ref.BufferName, "max_lines": 1}, &bc)
	if bc.Content != "\ttab and ünïcödé\n" || !bc.ContentTruncated || bc.ContentTruncatedLines != 2 {
		t.Errorf("show_buffer max_lines=1 = %+v", bc)
	}

	var def bufferRef
	c.OK("load_buffer", map[string]any{"content": "echo pasted-$((6*7))"}, &def)
	if def.LogicalName != "buf" {
		t.Errorf("default logical name = %+v", def)
	}
	c.OK("paste_buffer", map[string]any{"buffer_name": def.BufferName, "pane_id": p}, nil)
	c.Tmx.Tmux("send-keys", "-t", p, "Enter")
	c.Tmx.WaitFor(p, func(s string) bool { return strings.Contains(s, "pasted-42") })

	c.OK("delete_buffer", map[string]any{"buffer_name": def.BufferName}, nil)
	wantErr(t, c, "show_buffer", map[string]any{"buffer_name": def.BufferName}, "does not exist")
	wantErr(t, c, "delete_buffer", map[string]any{"buffer_name": def.BufferName}, "does not exist")
	wantErr(t, c, "paste_buffer", map[string]any{"buffer_name": def.BufferName, "pane_id": p}, "does not exist")

	// Buffers outside the namespace are out of reach, even when they exist.
	c.Tmx.Tmux("set-buffer", "-b", "clipboard", "secret")
	for _, name := range []string{"clipboard", "buffer0", "libtmux_mcp_xyz_a", "libtmux_mcp_0123456789abcdef0123456789abcdef_", "libtmux_mcp_0123456789abcdef0123456789abcdef_a;b", ref.BufferName + "\n"} {
		wantErr(t, c, "show_buffer", map[string]any{"buffer_name": name}, "namespace")
		wantErr(t, c, "delete_buffer", map[string]any{"buffer_name": name}, "namespace")
		wantErr(t, c, "paste_buffer", map[string]any{"buffer_name": name, "pane_id": p}, "namespace")
	}
	wantErr(t, c, "load_buffer", map[string]any{"content": "x", "logical_name": "a/b"}, "logical_name")
	wantErr(t, c, "load_buffer", map[string]any{"content": strings.Repeat("x", 5<<20)}, "bytes long")
	wantErr(t, c, "load_buffer", map[string]any{}, "content")

	// The server deletes its buffers when it exits; other buffers stay.
	c.CS.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		out := c.Tmx.Tmux("list-buffers", "-F", "#{buffer_name}")
		if !strings.Contains(out, "libtmux_mcp_") {
			if !strings.Contains(out, "clipboard") {
				t.Errorf("another buffer was deleted: %q", out)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("buffers left after the server exited: %q", out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
