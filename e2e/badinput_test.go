package e2e

import (
	"encoding/json"
	"fmt"
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

// Placeholders in the corpus: "<BIG>" is a 10 MB string, "<LONG>" a 128 KiB one, "<FILE>" a
// file (not a directory); the others name objects of the fixture built by the test. (10 MB
// calls take seconds each on a slow machine, so only a few rows use <BIG>.)
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

// goWords are words of Go's own messages (encoding/json, reflect, fmt, the schema validator)
// that an error shown to a client must not hold.
var goWords = func(msg string) string {
	for _, w := range []string{"Go value", "Go struct", "struct field", "map[", "interface {}", "interface{}",
		"reflect", "unmarshal", "invalid character", "float64", "int64", "[]string", "*string", "%!", "<nil>",
		"validating root", "validating /properties", "json: "} {
		if strings.Contains(msg, w) {
			return w
		}
	}
	return ""
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
		"<SESSION_PREFIX>", "ba", "<SESSION>", sid, "<OTHER_NAME>", "other", "<USER_BUFFER>", "clipboard", "<FILE>", c.Tmx.Conf)
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

	// A new window is named after its program only at automatic-rename's next check (its name
	// read "tmux", then "bash"): wait for that state before taking it as the reference.
	c.Tmx.WaitNames()
	before := tmuxState(t, c)
	start := time.Now()
	for i, r := range rows {
		args := substitute(r.Arguments, repl, big)
		res := c.Call(r.Tool, args)
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
		if w := goWords(msg); w != "" {
			t.Errorf("%s row %d: %s: error speaks Go (%q): %q", r.file, i, r.Tool, w, shown)
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

// propSchema is what TestMalformedArgumentsEveryTool reads of an advertised property schema.
type propSchema struct {
	Type       any                   `json:"type"` // a name or a list of names
	AnyOf      []propSchema          `json:"anyOf"`
	Enum       []any                 `json:"enum"`
	Pattern    string                `json:"pattern"`
	Items      *propSchema           `json:"items"`
	MinItems   int                   `json:"minItems"`
	Properties map[string]propSchema `json:"properties"`
	Required   []string              `json:"required"`
}

// types lists the JSON types the schema takes ("any" when it says none).
func (p propSchema) types() []string {
	var out []string
	switch x := p.Type.(type) {
	case string:
		out = append(out, x)
	case []any:
		for _, t := range x {
			out = append(out, fmt.Sprint(t))
		}
	}
	for _, a := range p.AnyOf {
		out = append(out, a.types()...)
	}
	return out
}

// valid is a value the schema takes, to fill the required arguments of a call.
func (p propSchema) valid() any {
	if len(p.Enum) > 0 {
		return p.Enum[0]
	}
	if p.Pattern == `^%\d+$` {
		return "%0"
	}
	switch t := p.types(); {
	case slices.Contains(t, "string"):
		return "x"
	case slices.Contains(t, "integer"), slices.Contains(t, "number"):
		return 1
	case slices.Contains(t, "boolean"):
		return false
	case slices.Contains(t, "array"):
		if p.MinItems > 0 && p.Items != nil {
			return []any{p.Items.valid()}
		}
		return []any{}
	}
	return p.validObject()
}

// validObject fills the required properties of an object schema with valid values.
func (p propSchema) validObject() map[string]any {
	m := map[string]any{}
	for _, r := range p.Required {
		m[r] = p.Properties[r].valid()
	}
	return m
}

// invalid lists values of the wrong kind for the schema: every JSON kind it does not take, a
// fraction and 1e308 for a whole number, and an unknown value of an enum.
func (p propSchema) invalid() []any {
	t := p.types()
	if len(t) == 0 {
		return nil // takes anything
	}
	var out []any
	takes := func(names ...string) bool {
		return slices.ContainsFunc(names, func(n string) bool { return slices.Contains(t, n) })
	}
	if !takes("string") {
		out = append(out, "a string")
	}
	if !takes("integer", "number") {
		out = append(out, 42)
	}
	if takes("integer") && !takes("number") {
		out = append(out, 1.5, 1e308)
	}
	if !takes("boolean") {
		out = append(out, true)
	}
	if !takes("array") {
		out = append(out, []any{})
	}
	if !takes("object") {
		out = append(out, map[string]any{"a": 1})
	}
	if !takes("null") {
		out = append(out, nil)
	}
	if len(p.Enum) > 0 {
		out = append(out, "not-one-of-them")
	}
	return out
}

// TestMalformedArgumentsEveryTool walks every tool of the destructive tier with arguments that
// are not an object ([], "str", 42) and with a value of the wrong kind for each argument in
// turn (the others valid): each call is a tool error that names the argument, says what to do
// and speaks no Go ("json: cannot unmarshal array into Go value of type map[string]interface
// {}", "<invalid reflect.Value>", "Go struct field createSessionIn.x of type int").
func TestMalformedArgumentsEveryTool(t *testing.T) {
	c := destructive(t)
	c.Tmx.NewSession("walk")
	check := func(tool string, args any, name string) {
		t.Helper()
		res := c.Call(tool, args)
		msg := text(res)
		switch {
		case !res.IsError:
			t.Errorf("%s(%v) succeeded: %.200s", tool, args, msg)
		case !strings.Contains(msg, name):
			t.Errorf("%s(%v): the error does not name %s: %q", tool, args, name, msg)
		case !strings.Contains(msg, "\n\n"):
			t.Errorf("%s(%v): the error says nothing to do: %q", tool, args, msg)
		case goWords(msg) != "":
			t.Errorf("%s(%v): the error speaks Go (%q): %q", tool, args, goWords(msg), msg)
		}
	}
	calls := 0
	for name, tool := range c.listTools() {
		for _, args := range []any{[]any{}, []any{"x"}, "str", 42, true} {
			check(name, args, "arguments")
			calls++
		}
		var in propSchema
		b, _ := json.Marshal(tool.InputSchema)
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for prop, ps := range in.Properties {
			for _, bad := range ps.invalid() {
				if bad == nil && !slices.Contains(in.Required, prop) {
					// tools/list advertises plain types, and null means "left out" for the
					// optional arguments libtmux-mcp takes null for (server/schema.go).
					continue
				}
				args := in.validObject()
				args[prop] = bad
				check(name, args, prop)
				calls++
			}
		}
	}
	t.Logf("%d malformed calls", calls)
}
