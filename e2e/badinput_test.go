package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// badCall is one row of the bad-input corpus (testdata/badinput/*.json): a call that must be a
// tool error whose text contains want (any of several, separated by |).
type badCall struct {
	Tool      string `json:"tool"`
	Arguments any    `json:"arguments"`
	Want      string `json:"want"`
	file      string
}

// Placeholders in the corpus: "<BIG>" is a 10 MB string, "<LONG>" a 128 KiB one; the others
// name objects of the fixture built by the test. (10 MB calls take seconds each on a slow
// machine, so only a few rows use <BIG>.)
const (
	bigPlaceholder  = "<BIG>"
	longPlaceholder = "<LONG>"
)

func loadBadInput(t *testing.T) []badCall {
	files, err := filepath.Glob("../testdata/badinput/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	var all []badCall
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var rows []badCall
		if err := json.Unmarshal(b, &rows); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i := range rows {
			rows[i].file = filepath.Base(f)
		}
		all = append(all, rows...)
	}
	return all
}

func substitute(v any, repl *strings.Replacer, big string) any {
	switch x := v.(type) {
	case string:
		switch x {
		case bigPlaceholder:
			return big
		case longPlaceholder:
			return big[:128<<10]
		}
		return repl.Replace(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = substitute(e, repl, big)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = substitute(e, repl, big)
		}
		return out
	}
	return v
}

// tmuxState is what the corpus must leave unchanged: sessions, windows, panes (and what they
// show), buffers, options, environment and hooks.
func tmuxState(t *testing.T, c *Client) string {
	t.Helper()
	var b strings.Builder
	for _, args := range [][]string{
		{"list-sessions", "-F", "#{session_id} #{session_name} #{session_windows}"},
		{"list-windows", "-a", "-F", "#{window_id} #{window_index} #{window_name} #{window_layout} #{window_zoomed_flag} #{window_active} #{session_id}"},
		{"list-panes", "-a", "-F", "#{pane_id} #{pane_index} #{pane_pid} #{pane_title} #{pane_active} #{pane_in_mode} #{pane_dead} #{pane_width}x#{pane_height} #{history_size}"},
		{"list-buffers", "-F", "#{buffer_name} #{buffer_size}"},
		{"show-options", "-g"}, {"show-options", "-gw"}, {"show-options", "-s"},
		{"show-environment", "-g"}, {"show-hooks", "-g"}, {"show-hooks", "-gw"},
	} {
		b.WriteString(c.Tmx.Tmux(args...) + "\n")
	}
	for _, id := range strings.Fields(c.Tmx.Tmux("list-panes", "-a", "-F", "#{pane_id}")) {
		b.WriteString(id + ":\n" + c.Tmx.Tmux("capture-pane", "-p", "-t", id) + "\n")
		b.WriteString(c.Tmx.Tmux("show-options", "-p", "-t", id) + "\n")
	}
	for _, id := range strings.Fields(c.Tmx.Tmux("list-sessions", "-F", "#{session_id}")) {
		b.WriteString(c.Tmx.Tmux("show-options", "-t", id) + "\n" + c.Tmx.Tmux("show-environment", "-t", id) + "\n")
	}
	return b.String()
}

func TestBadInputCorpus(t *testing.T) {
	rows := loadBadInput(t)
	if len(rows) < 200 {
		t.Fatalf("the corpus has %d calls, want at least 200", len(rows))
	}
	c := destructive(t)
	sid, p0 := c.Tmx.NewSession("bad")
	c.Tmx.SplitWindow(p0)
	p2 := c.Tmx.NewWindow(sid)
	c.Tmx.NewSession("other")
	c.Tmx.Tmux("set-buffer", "-b", "clipboard", "user data")
	c.Tmx.Tmux("set-option", "-g", "@user", "keep")
	w0, w1 := c.fmt(p0, "#{window_id}"), c.fmt(p2, "#{window_id}")
	repl := strings.NewReplacer("<PANE>", p0, "<WINDOW2>", w1, "<WINDOW>", w0, "<SESSION_NAME>", "bad",
		"<SESSION_PREFIX>", "ba", "<SESSION>", sid, "<OTHER_NAME>", "other", "<USER_BUFFER>", "clipboard")
	big := strings.Repeat("a", 10<<20)

	// Every tool the destructive tier offers has rows.
	offered := c.listTools()
	covered := map[string]int{}
	for _, r := range rows {
		if _, ok := offered[r.Tool]; !ok {
			t.Errorf("%s: corpus row for %s, which is not offered", r.file, r.Tool)
		}
		covered[r.Tool]++
	}
	for name := range offered {
		if covered[name] < 3 {
			t.Errorf("the corpus has %d rows for %s, want at least 3", covered[name], name)
		}
	}

	// A new window's name follows its program for a moment (automatic-rename): wait until
	// the state holds still before taking it as the reference.
	before := tmuxState(t, c)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		time.Sleep(300 * time.Millisecond)
		again := tmuxState(t, c)
		if again == before {
			break
		}
		before = again
	}
	start := time.Now()
	for i, r := range rows {
		args := substitute(r.Arguments, repl, big)
		t0 := time.Now()
		res := c.Call(r.Tool, args)
		if d := time.Since(t0); d > 200*time.Millisecond {
			t.Logf("%s row %d: %s took %v", r.file, i, r.Tool, d)
		}
		msg := text(res)
		shown := msg
		if len(shown) > 300 {
			shown = shown[:300] + "..."
		}
		if !res.IsError {
			t.Errorf("%s row %d: %s(%.200v) succeeded: %s", r.file, i, r.Tool, r.Arguments, shown)
			continue
		}
		if res.StructuredContent != nil {
			t.Errorf("%s row %d: %s: a tool error carries structuredContent", r.file, i, r.Tool)
		}
		if !slices.ContainsFunc(strings.Split(r.Want, "|"), func(w string) bool { return strings.Contains(msg, w) }) {
			t.Errorf("%s row %d: %s(%.200v): error %q does not mention %q", r.file, i, r.Tool, r.Arguments, shown, r.Want)
		}
		if !strings.Contains(msg, "\n\n") || strings.HasSuffix(msg, "\n\n") || strings.HasPrefix(msg, "\n") {
			t.Errorf("%s row %d: %s: error has no hint after a blank line: %q", r.file, i, r.Tool, shown)
		}
		if len(msg) > 4096 {
			t.Errorf("%s row %d: %s: error is %d bytes long (an echo of the input?)", r.file, i, r.Tool, len(msg))
		}
	}
	t.Logf("%d malformed calls over %d tools in %v", len(rows), len(covered), time.Since(start))
	if after := tmuxState(t, c); after != before {
		t.Errorf("tmux state changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	var list struct{ Sessions []session }
	c.OK("list_sessions", nil, &list)
	if len(list.Sessions) != 2 {
		t.Errorf("sessions after the corpus: %+v", list.Sessions)
	}
}
