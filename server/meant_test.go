package server

import "testing"

// An unknown argument is matched to the one a model meant: another spelling, a synonym, the
// one argument holding the name; never a guess among several.
func TestMeantArg(t *testing.T) {
	capture := []string{"end", "escape_sequences", "join_wrapped", "max_lines", "pane_id", "session_id", "session_name", "socket_name", "start", "window_id"}
	display := []string{"format_string", "pane_id", "session_id", "session_name", "socket_name", "window_id"}
	for _, tc := range []struct {
		name string
		tool string
		args []string
		want string
	}{
		{"paneId", "capture_pane", capture, "pane_id"},
		{"lines", "capture_pane", capture, "max_lines"},
		{"target", "capture_pane", capture, "pane_id"},
		{"format", "display_message", display, "format_string"},
		{"message", "display_message", display, "format_string"},
		{"query", "t", []string{"pattern", "regex"}, "pattern"},
		{"text", "t", []string{"cursor", "patterns", "timeout"}, "patterns"},
		{"vertical", "t", []string{"direction", "pane_id", "size"}, "direction"},
		{"name", "t", []string{"session_name", "window_name"}, ""}, // which one: no guess
		{"name", "create_session", []string{"session_name", "window_name", "x", "y"}, "session_name"},
		{"name", "create_window", []string{"session_id", "session_name", "window_name"}, "window_name"},
		{"name", "rename_window", []string{"new_name", "session_name", "window_id"}, "new_name"},
		{"zzz", "capture_pane", capture, ""},
	} {
		if got := meantArg(tc.name, tc.tool, tc.args); got != tc.want {
			t.Errorf("meantArg(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
