package runner

import (
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/termstate"
)

// TestLeftOfCursor: the typed line is read left of the cursor, never from a right prompt drawn
// beyond it on its row.
func TestLeftOfCursor(t *testing.T) {
	cases := []struct {
		rows []string
		cx   int
		want string
	}{
		{[]string{"[I] ~> echo hi                                                      23:51:41"}, 14, "[I] ~> echo hi"},
		{[]string{"~ ❯ echo hi                                          INSERT 23:51:41"}, 11, "~ ❯ echo hi"},
		{[]string{"user@host ~", "❯ ls -l     "}, 7, "user@host ~❯ ls -l"},
		{[]string{"a long line that wraps to the next r", "ow here         12:00"}, 6, "a long line that wraps to the next row her"},
		{[]string{"漢字 x   right"}, 6, "漢字 x"},
	}
	for _, tc := range cases {
		if got := leftOfCursor(tc.rows, tc.cx, 36); got != tc.want {
			t.Errorf("leftOfCursor(%q, %d) = %q, want %q", tc.rows, tc.cx, got, tc.want)
		}
	}
}

func TestInputHint(t *testing.T) {
	line := termstate.Mode{Echo: true, Canonical: true}
	cases := []struct {
		program string
		m       termstate.Mode
		want    string
	}{
		{"less", termstate.Mode{}, "q leaves it"},
		{"/usr/bin/vim", termstate.Mode{}, ":q!"},
		{"bash", termstate.Mode{}, "q leaves a pager"},
		{"sudo", termstate.Mode{Canonical: true}, "hidden input"},
		{"python3", line, "to_running_command=true"},
	}
	for _, tc := range cases {
		if got := inputHint(tc.program, tc.m); !strings.Contains(got, tc.want) {
			t.Errorf("inputHint(%q, %+v) = %q, want it to say %q", tc.program, tc.m, got, tc.want)
		}
	}
}
