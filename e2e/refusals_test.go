package e2e

// What tools take and refuse at their edges: guards, names, paths, numbers, and the
// arguments libtmux-mcp clients send.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/format"
)

// setOwnTitle makes the pane's program set the pane's title with an OSC 2 sequence, as any
// program in a pane can, and waits until tmux has it. tmux 3.7 and later turn a "#(" in a title
// a pane sets into "_(": there the title is checked to be so and set with select-pane -T, as a
// program with access to tmux can (tmux/format's hostile fixture does the same).
func setOwnTitle(t *testing.T, c *Client, pane, title string) {
	t.Helper()
	c.Tmx.Tmux("send-keys", "-t", pane, "-l", `printf '\033]2;%s\033\\' '`+title+`'`)
	c.Tmx.Tmux("send-keys", "-t", pane, "Enter")
	defused := strings.Replace(title, "#(", "_(", 1)
	deadline := time.Now().Add(10 * time.Second)
	for got := c.fmt(pane, "#{pane_title}"); got != title; got = c.fmt(pane, "#{pane_title}") {
		if got == defused && defused != title {
			c.Tmx.Tmux("select-pane", "-t", pane, "-T", format.Escape(title))
			continue
		}
		if time.Now().After(deadline) {
			t.Fatalf("pane %s did not set its title to %q", pane, title)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestDisplayMessageValueExpansion: a pane sets its own title to a shell job; the formats that
// once expanded it (the guard took the first : or } after #{ for the end of the
// modifiers, but tmux skips nested #{…}) are refused, naming what and where, and nothing runs.
func TestDisplayMessageValueExpansion(t *testing.T) {
	c := start(t)
	_, p := c.Tmx.NewSession("title")
	marker := filepath.Join(c.Tmx.Dir, "ran")
	setOwnTitle(t, c, p, "#(touch "+marker+")")
	c.Tmx.Tmux("set-option", "-g", "@evil", "#(touch "+marker+")")
	for _, tt := range []struct{ f, want string }{
		{"#{s/#{pane_id}/x/;E:pane_title}", "the E: modifier at byte 19"},
		{"#{?#{pane_id},#{s/#{pane_id}//;E:pane_title},}", "the E: modifier at byte 32"},
		{"#{s/#{pane_id}/x/;T:pane_title}", "the T: modifier at byte 19"},
		{"#{s/x/#{@evil}/:pane_id}", "# in an argument of s/…/…/"},
		{"#{=##}", "reads on past the end"},
		{"#%p(touch " + marker + ")", "strftime"},
	} {
		msg := c.Fail("display_message", map[string]any{"format_string": tt.f, "pane_id": p})
		if !strings.Contains(msg, "format_string") || !strings.Contains(msg, tt.want) || !strings.Contains(msg, "\n\n") {
			t.Errorf("%q: %s", tt.f, msg)
		}
	}
	var r struct{ Result string }
	c.OK("display_message", map[string]any{"format_string": "#{pane_title}|#{=5:pane_title}|#{s/touch/x/:pane_title}|#{l:#(id)}", "pane_id": p}, &r)
	if !strings.HasPrefix(r.Result, "#(touch ") || !strings.Contains(r.Result, "|#(x ") || !strings.HasSuffix(r.Result, "|#(id)") {
		t.Errorf("plain formats: %q", r.Result)
	}
	time.Sleep(300 * time.Millisecond) // a job would have run by now
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a shell job ran")
	}
}

// TestNamesRoundTrip: names and titles come back as given (#[x] became ##[x] and
// get_session_info could not find the session it had just created), or are refused naming
// what tmux would have stored instead.
func TestNamesRoundTrip(t *testing.T) {
	c := destructive(t)
	c.Tmx.NewSession("base")
	for i, name := range []string{"#[x]", "##[x", "a#b", "#{pane_id}", "x#", "#(id)", "é ü"} {
		var s session
		c.OK("create_session", map[string]any{"session_name": name, "window_name": name}, &s)
		if s.SessionName != name {
			t.Errorf("create_session %q: named %q", name, s.SessionName)
		}
		var info struct {
			session
			Windows []window `json:"windows"`
		}
		c.OK("get_session_info", map[string]any{"session_name": name}, &info)
		if info.SessionID != s.SessionID || len(info.Windows) != 1 || info.Windows[0].WindowName != name {
			t.Errorf("get_session_info %q: %+v", name, info)
		}
		renamed := name + "-" + string(rune('a'+i))
		c.OK("rename_session", map[string]any{"session_id": s.SessionID, "new_name": renamed}, &s)
		var w window
		c.OK("rename_window", map[string]any{"window_id": info.Windows[0].WindowID, "new_name": renamed}, &w)
		var p paneX
		c.OK("set_pane_title", map[string]any{"pane_id": s.ActivePaneID, "title": renamed}, &p)
		if s.SessionName != renamed || w.WindowName != renamed || p.PaneTitle != renamed {
			t.Errorf("renamed to %q: session %q, window %q, title %q", renamed, s.SessionName, w.WindowName, p.PaneTitle)
		}
	}
	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"create_session", map[string]any{"session_name": "${HOME}"}, `session_name "${HOME}" holds "${", which tmux stores as \${`},
		{"create_session", map[string]any{"session_name": `a\`}, "a backslash"},
		{"create_session", map[string]any{"session_name": "$x"}, `"$x"`},
		{"create_session", map[string]any{"window_name": "a\tb"}, "control character (byte 0x09)"},
		{"create_window", map[string]any{"window_name": `C:\dir`}, "a backslash"},
		{"rename_session", map[string]any{"session_name": "base", "new_name": "$USER"}, "new_name"},
		{"rename_window", map[string]any{"session_name": "base", "new_name": "a\x1bb"}, "control character"},
		{"set_pane_title", map[string]any{"session_name": "base", "title": "a\x01b"}, "control character"},
	} {
		if msg := c.Fail(tt.tool, tt.args); !strings.Contains(msg, tt.want) || !strings.Contains(msg, "\n\n") {
			t.Errorf("%s(%q): %s", tt.tool, tt.args, msg)
		}
	}
	// $ before anything but a letter, _ or { is kept as it is.
	var s session
	c.OK("create_session", map[string]any{"session_name": "cost $5 $"}, &s)
	if s.SessionName != "cost $5 $" {
		t.Errorf("named %q", s.SessionName)
	}
}

// TestStartDirectory: a start directory tmux could not enter is refused before tmux is asked
// (the pane started elsewhere without a word), and one holding #[ is entered.
func TestStartDirectory(t *testing.T) {
	c := destructive(t)
	_, p := c.Tmx.NewSession("dirs")
	file := filepath.Join(c.Tmx.Home, "file")
	os.WriteFile(file, nil, 0o600)
	before := c.Tmx.Tmux("list-panes", "-a", "-F", "#{pane_id}")
	for _, tool := range []string{"create_session", "create_window", "split_window", "respawn_pane"} {
		for dir, want := range map[string]string{
			"tmp":                   "relative path",
			"~/x":                   "relative path",
			"/nonexistent/tmux-mcp": "does not exist",
			file:                    "is a file, not a directory",
		} {
			args := map[string]any{"start_directory": dir}
			if tool == "respawn_pane" {
				args["pane_id"] = p
			}
			if msg := c.Fail(tool, args); !strings.Contains(msg, "start_directory") || !strings.Contains(msg, want) {
				t.Errorf("%s(%q): %s", tool, dir, msg)
			}
		}
	}
	if after := c.Tmx.Tmux("list-panes", "-a", "-F", "#{pane_id}"); after != before {
		t.Errorf("panes changed: %q -> %q", before, after)
	}
	dir := filepath.Join(c.Tmx.Home, "d#[x] #{y}")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	var s session
	c.OK("create_session", map[string]any{"session_name": "in-dir", "start_directory": dir}, &s)
	c.Tmx.WaitPrompt(s.ActivePaneID)
	if got := c.fmt(s.ActivePaneID, "#{pane_current_path}"); got != dir {
		t.Errorf("the pane started in %q, want %q", got, dir)
	}
	msg := c.Fail("pipe_pane", map[string]any{"pane_id": p, "output_path": "pane.log"})
	if !strings.Contains(msg, "output_path") || !strings.Contains(msg, "relative path") {
		t.Errorf("pipe_pane relative: %s", msg)
	}
}

// TestCanonicalNumbers: numbers given as text are taken in their one form only.
func TestCanonicalNumbers(t *testing.T) {
	c := destructive(t)
	sid, p := c.Tmx.NewSession("nums")
	c.Tmx.NewWindow(sid)
	for _, idx := range []string{"+1", " 0", "0\n", "-0", "00", "1.0", "", "0x1"} {
		if msg := c.Fail("select_window", map[string]any{"session_id": sid, "window_index": idx}); !strings.Contains(msg, "window_index") || !strings.Contains(msg, "plain digits") {
			t.Errorf("window_index %q: %s", idx, msg)
		}
	}
	for _, idx := range []string{"+1", "", " 3"} {
		if msg := c.Fail("move_window", map[string]any{"session_id": sid, "destination_index": idx}); !strings.Contains(msg, "destination_index") {
			t.Errorf("destination_index %q: %s", idx, msg)
		}
	}
	for _, size := range []any{" 5", "5 ", "05", "+5", "5%%", " 50%", 0, 2.5} {
		if msg := c.Fail("split_window", map[string]any{"pane_id": p, "size": size}); !strings.Contains(msg, "size got") {
			t.Errorf("size %q: %s", size, msg)
		}
	}
	if msg := c.Fail("select_layout", map[string]any{"session_id": sid, "layout": "even-horizontal\n"}); !strings.Contains(msg, "layout") {
		t.Errorf("layout with a newline: %s", msg)
	}
	var w window
	c.OK("select_window", map[string]any{"session_id": sid, "window_index": "1"}, &w)
	c.OK("move_window", map[string]any{"session_id": sid, "window_index": "1", "destination_index": "7"}, &w)
	if w.WindowIndex != 7 {
		t.Errorf("moved to %d", w.WindowIndex)
	}
	if c.Tmx.Tmux("list-panes", "-t", p, "-F", "#{pane_id}") != p {
		t.Errorf("a split happened")
	}
}

// TestSetOptionTarget: a session or window target of a pane or window option is refused,
// naming the kind the scope needs (never silently re-aimed at the active one);
// without a target, the first session's active pane or window is used and reported; #( is
// taken in user options, which tmux never expands on its own.
func TestSetOptionTarget(t *testing.T) {
	c := destructive(t)
	sid, p := c.Tmx.NewSession("opts")
	wid := c.fmt(p, "#{window_id}")
	var out struct{ Target string }
	for _, k := range []struct{ scope, target, says string }{
		{"pane", sid, "not a pane (scope pane)"}, {"window", "opts", "not a window (scope window)"}, {"pane", wid, "not a pane (scope pane)"},
	} {
		if msg := c.Fail("set_option", map[string]any{"option": "@mark", "value": "x", "scope": k.scope, "target": k.target}); !strings.Contains(msg, k.says) {
			t.Errorf("scope %s, target %s: %s", k.scope, k.target, msg)
		}
	}
	c.OK("set_option", map[string]any{"option": "@mark", "value": "pane", "scope": "pane"}, &out)
	if out.Target != p || c.Tmx.Tmux("show-options", "-pqv", "-t", p, "@mark") != "pane" {
		t.Errorf("pane option without a target: reported %q", out.Target)
	}
	c.OK("set_option", map[string]any{"option": "@mark", "value": "window", "scope": "window"}, &out)
	if out.Target != wid || c.Tmx.Tmux("show-options", "-wqv", "-t", wid, "@mark") != "window" {
		t.Errorf("window option without a target: reported %q", out.Target)
	}
	c.OK("set_option", map[string]any{"option": "@cmd", "value": "#(make test)", "global_": true}, nil)
	if got := c.Tmx.Tmux("show-options", "-gqv", "@cmd"); got != "#(make test)" {
		t.Errorf("@cmd = %q", got)
	}
	if msg := c.Fail("set_option", map[string]any{"option": "status-left", "value": "#(id)", "global_": true}); !strings.Contains(msg, "#(") {
		t.Errorf("status-left: %s", msg)
	}
}

// TestResourceMiss: a resource that names nothing there says what is missing and what to do
// instead (tmux://sessions/a%2Fb and URIs that match no template got a bare "Resource not found").
func TestResourceMiss(t *testing.T) {
	c := start(t)
	c.Tmx.NewSession("res")
	for uri, want := range map[string][2]string{
		"tmux://sessions/a%2Fb":           {`no session is named "a/b"`, "Sessions: res"},
		"tmux://sessions/nope/windows/3":  {`no session is named "nope"`, "Sessions: res"},
		"tmux://sessions/res/windows/9":   {"no window at index 9", "Windows of res: @"},
		"tmux://panes/%2599":              {"no pane %99", "Panes: %"},
		"tmux://panes/%99/content":        {"no pane %99", "list_panes"},
		"tmux://sessions/res/windows/+1":  {`window index "+1"`, "resources/templates/list"},
		"tmux://sessions/res/windows/007": {`window index "007"`, "resources/templates/list"},
		"tmux://elsewhere":                {"no resource has the path", "resources/templates/list"},
	} {
		_, err := readResource(t, c, uri)
		if err == nil || !strings.Contains(err.Error(), want[0]) || !strings.Contains(err.Error(), want[1]) {
			t.Errorf("%s: %v", uri, err)
		}
	}
}

// TestRunWithoutTMUXPane: inside the tmux server with TMUX set but TMUX_PANE unset, the run tools
// refuse like the other input tools (any pane may be this server's own); force=true accepts it.
func TestRunWithoutTMUXPane(t *testing.T) {
	c0 := start(t)
	sid, p := c0.Tmx.NewSession("own")
	pid := c0.fmt(p, "#{pid}")
	c := startOn(t, c0.Tmx, fmt.Sprintf("TMUX=%s,%s,%s", c0.Tmx.Socket, pid, strings.TrimPrefix(sid, "$")))
	for tool, args := range map[string]map[string]any{
		"run_shell_command": {"paneId": p, "command": "echo ran"},
		"run_command":       {"pane_id": p, "command": "echo ran"},
	} {
		if msg := c.Fail(tool, args); !strings.Contains(msg, "cannot tell which pane is its own") || !strings.Contains(msg, "\n\n") {
			t.Errorf("%s: %s", tool, msg)
		}
	}
	var out runOut
	c.OK("run_shell_command", map[string]any{"paneId": p, "command": "echo ran", "force": true}, &out)
	if out.Output != "ran" {
		t.Errorf("forced: %+v", out)
	}
}

// TestPasteBufferReservedPane: paste_buffer is refused in a pane a run holds, as send_keys and
// paste_text are (the run's output became the pasted text, and the rest of the line was run).
func TestPasteBufferReservedPane(t *testing.T) {
	c := start(t, "LIBTMUX_MCP_WAIT_MAX_SECONDS=1")
	_, p := c.Tmx.NewSession("paste")
	res := c.Call("run_shell_command", map[string]any{"paneId": p, "command": "sleep 3", "timeoutMs": 300})
	if res.IsError {
		t.Fatal(text(res))
	}
	var ref struct {
		BufferName string `json:"buffer_name"`
	}
	c.OK("load_buffer", map[string]any{"content": "echo pasted"}, &ref)
	if msg := c.Fail("paste_buffer", map[string]any{"buffer_name": ref.BufferName, "pane_id": p}); !strings.Contains(msg, "busy") || !strings.Contains(msg, "sleep 3") {
		t.Errorf("paste into the reserved pane: %s", msg)
	}
	c.OK("send_keys", map[string]any{"pane_id": p, "keys": "C-c", "enter": false, "literal": false}, nil)
}

// TestShellLimit: split_window and respawn_pane take the same longest shell command.
func TestShellLimit(t *testing.T) {
	c := start(t)
	_, p := c.Tmx.NewSession("shell")
	long := "echo " + strings.Repeat("x", 70_000)
	for tool, args := range map[string]map[string]any{
		"split_window": {"pane_id": p, "shell": long},
		"respawn_pane": {"pane_id": p, "shell": long},
	} {
		if msg := c.Fail(tool, args); !strings.Contains(msg, "shell is 70005 bytes long; at most 65536") {
			t.Errorf("%s: %s", tool, msg)
		}
	}
	if n := c.Tmx.Tmux("list-panes", "-t", p, "-F", "#{pane_id}"); n != p {
		t.Errorf("panes: %q", n)
	}
}

// TestLibtmuxArguments: capture_since takes null for max_lines and max_bytes (no limit; it
// failed with "<invalid reflect.Value>"), and wait_for_text takes libtmux-mcp's interval.
func TestLibtmuxArguments(t *testing.T) {
	c := start(t)
	_, p := c.Tmx.NewSession("compat")
	var first sinceOut
	c.OK("capture_since", map[string]any{"pane_id": p, "max_lines": nil, "max_bytes": nil}, &first)
	c.Tmx.Tmux("send-keys", "-t", p, "seq 1 700", "Enter")
	c.Tmx.WaitFor(p, func(s string) bool { return strings.Contains(s, "700\n") })
	var all sinceOut
	c.OK("capture_since", map[string]any{"cursor": first.Cursor, "max_lines": nil, "max_bytes": nil}, &all)
	if all.Truncated || !contains(all.Lines, "1") || !contains(all.Lines, "700") {
		t.Errorf("no limits: truncated=%v, %d lines", all.Truncated, len(all.Lines))
	}
	var lim sinceOut
	c.OK("capture_since", map[string]any{"cursor": first.Cursor}, &lim)
	if !lim.Truncated || len(lim.Lines) != 500 {
		t.Errorf("the default 500 lines: truncated=%v, %d lines", lim.Truncated, len(lim.Lines))
	}
	var r waitResult
	c.OK("wait_for_text", map[string]any{"pane_id": p, "patterns": []string{"never"}, "timeout": 0.2, "interval": 0.05}, &r)
	if r.Outcome != "timeout" {
		t.Errorf("wait with interval: %+v", r)
	}
	if msg := c.Fail("wait_for_text", map[string]any{"pane_id": p, "timeout": 0.2, "interval": "fast"}); !strings.Contains(msg, "interval got") {
		t.Errorf("interval \"fast\": %s", msg)
	}
}
