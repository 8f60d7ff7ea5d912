package runner

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/termstate"
	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
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
		{"pager", termstate.Mode{}, "git --no-pager"}, // Debian's link to less, which git runs
		{"/usr/bin/vim", termstate.Mode{}, ":q!"},
		{"bash", termstate.Mode{}, "q leaves a pager"},
		{"sudo", termstate.Mode{Canonical: true}, "hidden input"},
		{"python3", line, "to_running_command=true"},
		{"gpg", termstate.Mode{}, "hidden input"}, // pinentry's dialog: raw, echo off
		{"gpg", termstate.Mode{Echo: true}, "q leaves a pager"},
	}
	for _, tc := range cases {
		if got := inputHint(tc.program, tc.m, tc.m.Secret(tc.program)); !strings.Contains(got, tc.want) {
			t.Errorf("inputHint(%q, %+v) = %q, want it to say %q", tc.program, tc.m, got, tc.want)
		}
	}
}

// TestSlowPromptNoProc: without the process table, a shell whose prompt takes long to draw
// (dash's command substitutions, fish's prompt function, on a loaded machine) gets its next
// line only once the prompt is drawn: each command shows on a prompt line as typed, and the
// framing's echo never stays on the screen.
func TestSlowPromptNoProc(t *testing.T) {
	tmx, ts := realEngine(t)
	for _, su := range []testtmux.Setup{
		testtmux.Config("dash", "rc").With("slow-prompt", `PS1='$(sleep 0.4)slow ❯ '`),
		testtmux.Config("fish", "rc").With("slow-prompt", `function fish_prompt; sleep 0.4; printf 'slow\n❯ '; end`),
	} {
		t.Run(su.Name(), func(t *testing.T) {
			su.Require(t)
			t.Parallel()
			r := New()
			r.table = termstate.Hide()
			t.Cleanup(r.Close)
			p := tmx.StartShell(t, su)
			defer p.Kill()
			cmds := []string{"echo one", "echo two", "echo three"}
			for _, cmd := range cmds {
				if res, err := engineRun(t, r, ts, p, cmd, 20*time.Second); err != nil || res.Outcome != Completed {
					t.Fatalf("%q: %+v %v", cmd, res, err)
				}
			}
			p.WaitPrompt()
			screen := p.S.Tmux("capture-pane", "-p", "-S", "-", "-t", p.ID)
			if strings.Contains(screen, "tmux-mcp-") {
				t.Errorf("the framing's echo stays on the screen:\n%s", screen)
			}
			for _, cmd := range cmds {
				if !regexp.MustCompile(`(?m)❯ ` + cmd + `\s*$`).MatchString(screen) {
					t.Errorf("%q is not shown on a prompt line as typed:\n%s", cmd, screen)
				}
			}
		})
	}
}
