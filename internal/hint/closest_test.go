package hint

import "testing"

func TestClosest(t *testing.T) {
	args := []string{"command", "force", "maxLines", "paneId", "timeoutMs"}
	tools := []string{"list_sessions", "list_windows", "list_panes", "kill_session", "send_keys"}
	for _, tc := range []struct {
		name string
		in   []string
		want string
	}{
		{"pane_id", args, "paneId"},
		{"timeout_ms", args, "timeoutMs"},
		{"commnd", args, "command"},
		{"max_lines", args, "maxLines"},
		{"zzz", args, ""},
		{"list_sesions", tools, "list_sessions"},
		{"list-panes", tools, "list_panes"},
		{"sendkeys", tools, "send_keys"},
		{"kill_server", tools, ""},
		{"", tools, ""},
	} {
		if got := Closest(tc.name, tc.in); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
