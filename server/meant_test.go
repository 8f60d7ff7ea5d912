package server

import "testing"

// An unknown argument is matched to the one a model meant: another spelling, a synonym, the
// one argument holding the name; never a guess among several.
func TestMeantArg(t *testing.T) {
	capture := []string{"end", "escape_sequences", "join_wrapped", "max_lines", "pane_id", "session_id", "session_name", "socket_name", "start", "window_id"}
	display := []string{"format_string", "pane_id", "session_id", "session_name", "socket_name", "window_id"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"paneId", capture, "pane_id"},
		{"lines", capture, "max_lines"},
		{"target", capture, "pane_id"},
		{"format", display, "format_string"},
		{"message", display, "format_string"},
		{"query", []string{"pattern", "regex"}, "pattern"},
		{"text", []string{"cursor", "patterns", "timeout"}, "patterns"},
		{"vertical", []string{"direction", "pane_id", "size"}, "direction"},
		{"name", []string{"session_name", "window_name"}, ""}, // which one: no guess
		{"zzz", capture, ""},
	} {
		if got := meantArg(tc.name, tc.args); got != tc.want {
			t.Errorf("meantArg(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
