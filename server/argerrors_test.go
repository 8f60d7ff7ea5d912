package server

import (
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

// bounds words every kind of limit a schema gives a number: inclusive, exclusive (the seed's
// timeoutMs: greater than 0, where "at most 2^53-1" said nothing of why 0 was refused), both.
func TestBounds(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		s    jsonschema.Schema
		want string
	}{
		{jsonschema.Schema{}, ""},
		{jsonschema.Schema{Minimum: f(1)}, " of at least 1"},
		{jsonschema.Schema{Maximum: f(10)}, " of at most 10"},
		{jsonschema.Schema{Minimum: f(1), Maximum: f(10)}, " from 1 to 10"},
		{jsonschema.Schema{ExclusiveMinimum: f(0), Maximum: f(1<<53 - 1)}, " greater than 0 and at most 9007199254740991"},
		{jsonschema.Schema{ExclusiveMinimum: f(0), Maximum: f(60)}, " greater than 0 and at most 60"},
		{jsonschema.Schema{Minimum: f(0), ExclusiveMaximum: f(1)}, " of at least 0 and less than 1"},
	} {
		if got := bounds(&tc.s); got != tc.want {
			t.Errorf("bounds(%+v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

// A string given for a number is told what it meant: a number in quotes, or tmux's "-" for
// the history's start, which a line number says here; tmux's split words for a direction; a
// list of keys, as tmux's send-keys takes them, how to send them here.
func TestQuotedNumber(t *testing.T) {
	srv, _, pane := newTestServer(t, policy.Mutating)
	for args, want := range map[string]string{
		`{"pane_id":"` + pane + `","start":"-"}`:   "start=-2000 reads back",
		`{"pane_id":"` + pane + `","end":"-1"}`:    "a number in quotes: pass it without them",
		`{"pane_id":"` + pane + `","start":"abc"}`: `start got "abc" (a string); it takes a whole number or null`,
		`{"pane_id":"` + pane + `","max_lines":0}`: "max_lines got 0",
	} {
		if text, failed := callText(t, srv, "capture_pane", args); !failed || !strings.Contains(text, want) {
			t.Errorf("capture_pane %s: want an error saying %q, got %s", args, want, text)
		}
	}
	if text, failed := callText(t, srv, "split_window", `{"pane_id":"`+pane+`","direction":"horizontal"}`); !failed || !strings.Contains(text, `side by side ("right" or "left")`) {
		t.Errorf("direction horizontal: %s", text)
	}
	if text, failed := callText(t, srv, "send_keys", `{"pane_id":"`+pane+`","keys":["C-c"]}`); !failed || !strings.Contains(text, `keys="C-c" enter=false`) {
		t.Errorf("keys as a list: %s", text)
	}
	if text, failed := callText(t, srv, "run_shell_command", `{"paneId":"`+pane+`","command":"true","timeoutMs":0}`); !failed || !strings.Contains(text, "timeoutMs got 0; it takes a whole number greater than 0 and at most") {
		t.Errorf("timeoutMs 0: %s", text)
	}
}

// A tmux target or an index given for a pane id is said to be one, with where the ids are: the
// target's session when it names one; the seed's paneId pattern is said in words. A session's
// name given for its id, a window's index or target for its id, true in quotes and a bare
// "name" are each told what to pass instead.
func TestIDsGivenOtherwise(t *testing.T) {
	srv, _, pane := newTestServer(t, policy.Mutating)
	for _, tc := range []struct{ tool, args, want string }{
		{"capture_pane", `{"pane_id":"work:0.1"}`, `pane_id "work:0.1" is not a pane id but a tmux target (session:window.pane)`},
		{"capture_pane", `{"pane_id":"work:0.1"}`, `list_panes session_name="work" shows them`},
		{"send_keys", `{"pane_id":"1","keys":"ls"}`, `pane_id "1" is not a pane id but an index`},
		{"swap_pane", `{"source_pane_id":"` + pane + `","target_pane_id":"s:1.2"}`, `target_pane_id "s:1.2" is not a pane id but a tmux target`},
		{"capture_pane", `{"pane_id":"abc"}`, `pane_id "abc" is not a pane id` + "\n"},
		{"run_shell_command", `{"paneId":"work:0.1","command":"true"}`, `paneId got "work:0.1" (a string), a tmux target (session:window.pane): tools take the pane's id`},
		{"run_shell_command", `{"paneId":"abc","command":"true"}`, `it takes a pane id such as %1`},
		{"list_windows", `{"session_id":"work"}`, `For a session's name, pass session_name="work"`},
		{"kill_window", `{"window_id":"2"}`, `pass window_index=2 (where the tool takes them)`},
		{"capture_pane", `{"window_id":"work:2"}`, `pass window_index=2 with session_name="work"`},
		{"send_keys", `{"pane_id":"` + pane + `","keys":"ls","literal":"true"}`, `literal got "true" (a string), true in quotes: pass it without them`},
		{"create_session", `{"name":"work"}`, `(did you mean "session_name"?)`},
	} {
		if text, failed := callText(t, srv, tc.tool, tc.args); !failed || !strings.Contains(text, tc.want) {
			t.Errorf("%s %s: want an error saying %q, got %s", tc.tool, tc.args, tc.want, text)
		}
	}
}

// An invalid regular expression is said as the agent wrote it: without the (?i) that
// case-insensitive matching adds to it.
func TestPatternErrorAsWritten(t *testing.T) {
	for _, matchCase := range []bool{false, true} {
		_, err := compilePatterns("patterns", []string{"("}, true, matchCase)
		if err == nil || strings.Contains(err.Error(), "(?i)") || !strings.Contains(err.Error(), `patterns[0] "(" is not a valid regular expression: missing closing )`) {
			t.Errorf("match_case=%v: %v", matchCase, err)
		}
	}
}
