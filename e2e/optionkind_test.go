package e2e

import (
	"strings"
	"testing"
)

// TestOptionTargetKind: a target of another kind than the scope needs is refused, naming the
// kind it needs, and nothing is set; so is an option of another scope than the one asked for.
// Before, {"scope":"pane","target":"$0"} set the option on session $0's active pane.
func TestOptionTargetKind(t *testing.T) {
	c := start(t)
	sid, p := c.Tmx.NewSession("s")
	wid := c.fmt(p, "#{window_id}")
	for _, tool := range []string{"set_option", "show_option", "show_hooks"} {
		for _, k := range []struct {
			scope, target, says string
		}{
			{"pane", sid, "pane"},
			{"pane", "s", "pane"},
			{"pane", wid, "pane"},
			{"window", sid, "window"},
			{"window", "s", "window"},
			{"window", p, "window"},
			{"session", wid, "session"},
			{"session", p, "session"},
		} {
			args := map[string]any{"option": "@kind", "value": "x", "scope": k.scope, "target": k.target}
			switch tool {
			case "show_option":
				delete(args, "value")
			case "show_hooks":
				args = map[string]any{"scope": k.scope, "target": k.target}
			}
			msg := c.Fail(tool, args)
			if !strings.Contains(msg, "scope "+k.scope) || !strings.Contains(msg, k.says) {
				t.Errorf("%s scope %s target %s: %s", tool, k.scope, k.target, msg)
			}
		}
	}
	// An option of another scope than the one asked for, or than the target's kind.
	for _, k := range []struct {
		args map[string]any
		says string
	}{
		{map[string]any{"option": "status", "value": "off", "scope": "pane", "target": p}, "session option"},
		{map[string]any{"option": "status", "value": "off", "scope": "window", "target": wid}, "session option"},
		{map[string]any{"option": "status", "value": "off", "target": p}, "session option"},
		{map[string]any{"option": "status", "value": "off", "target": wid}, "session option"},
		{map[string]any{"option": "mode-keys", "value": "vi", "scope": "session", "target": sid}, "window option"},
		{map[string]any{"option": "mode-keys", "value": "vi", "target": sid}, "window option"},
		{map[string]any{"option": "escape-time", "value": "10", "scope": "session", "target": sid}, "server option"},
		{map[string]any{"option": "escape-time", "value": "10", "target": sid}, "server option"},
		{map[string]any{"option": "status", "value": "off", "scope": "server"}, "session option"},
	} {
		if msg := c.Fail("set_option", k.args); !strings.Contains(msg, k.says) {
			t.Errorf("set_option %v: %s", k.args, msg)
		}
	}
	if got := c.Tmx.Tmux("show-options", "-v", "-t", sid, "status"); got != "" {
		t.Errorf("status was set on the session: %q", got)
	}
	for _, target := range []string{sid, wid, p} {
		for _, flag := range []string{"", "-w", "-p"} {
			args := []string{"show-options", "-v", "-t", target, "@kind"}
			if flag != "" {
				args = []string{"show-options", flag, "-v", "-t", target, "@kind"}
			}
			if got, err := c.Tmx.TryTmux(args...); err == nil && strings.TrimSpace(got) != "" {
				t.Errorf("@kind was set on %s (%s): %q", target, flag, got)
			}
		}
	}
	// What matches is taken; a user option without scope follows its target's kind.
	c.OK("set_option", map[string]any{"option": "@kind", "value": "pane", "target": p}, nil)
	if got := c.Tmx.Tmux("show-options", "-pv", "-t", p, "@kind"); got != "pane" {
		t.Errorf("@kind on the pane = %q", got)
	}
	c.OK("set_option", map[string]any{"option": "@kind", "value": "win", "target": wid}, nil)
	if got := c.Tmx.Tmux("show-options", "-wv", "-t", wid, "@kind"); got != "win" {
		t.Errorf("@kind on the window = %q", got)
	}
	c.OK("set_option", map[string]any{"option": "remain-on-exit", "value": "on", "target": p}, nil)
	if got := c.Tmx.Tmux("show-options", "-pv", "-t", p, "remain-on-exit"); got != "on" {
		t.Errorf("remain-on-exit on the pane = %q", got)
	}
	c.OK("set_option", map[string]any{"option": "mode-keys", "value": "vi", "scope": "window", "target": wid}, nil)
	c.OK("set_option", map[string]any{"option": "status", "value": "on", "target": "s"}, nil)
	// set_environment takes a session only.
	for _, id := range []string{wid, p} {
		if msg := c.Fail("set_environment", map[string]any{"name": "K", "value": "v", "session_id": id}); !strings.Contains(msg, "session id") {
			t.Errorf("set_environment session_id %s: %s", id, msg)
		}
	}
}
