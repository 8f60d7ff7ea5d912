package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// framingRE matches what the framing could leave behind: the wrapper's path, its variables,
// the typed line's POSIX-mode switch, a run id.
var framingRE = regexp.MustCompile(`tmux-mcp-|__tmx|POSIXLY_CORRECT|tmx[0-9a-f]{12}|builtin source|\\\. '`)

// TestRunLeavesNoTraces runs a few commands in each shell and reads the pane every way a
// client can: the screen and its scrollback (capture_pane, search_panes), and the text the pane
// printed since a cursor (capture_since). None of them holds anything of the framing; the
// line where each command was typed reads as the command.
func TestRunLeavesNoTraces(t *testing.T) {
	t.Parallel()
	for _, sh := range [][]string{testtmux.Bash, testtmux.Zsh, testtmux.Dash, testtmux.Mksh, testtmux.Ksh, testtmux.Fish, {"busybox", "ash"}} {
		t.Run(sh[0], func(t *testing.T) {
			testtmux.RequireShell(t, sh)
			t.Parallel()
			c := start(t)
			_, pane := c.Tmx.NewSession("tr", sh...)
			var first sinceOut
			c.OK("capture_since", map[string]any{"pane_id": pane}, &first)
			for _, cmd := range []string{"echo hi", "echo 'two\nlines'", "false", "printf 'x\\n\\n'"} {
				if out := c.run(pane, cmd); out.Outcome != "completed" {
					t.Fatalf("%q: %+v", cmd, out)
				}
			}
			var since sinceOut
			c.OK("capture_since", map[string]any{"cursor": first.Cursor, "max_lines": 1000}, &since)
			text := strings.Join(since.Lines, "\n")
			screen := c.Tmx.Tmux("capture-pane", "-p", "-S", "-", "-t", pane)
			for what, s := range map[string]string{"capture_since": text, "the scrollback": screen} {
				if m := framingRE.FindString(s); m != "" {
					t.Errorf("%s holds %q of the framing:\n%s", what, m, s)
				}
				// fish repaints its prompt with a CR and cursor moves, which a text view drops
				// for any typed line: there the line reads as the command alone.
				typed := `(?m)[$#] false$`
				if sh[0] == "fish" {
					typed = `(?m)^(.*# )?false$`
				}
				if !regexp.MustCompile(typed).MatchString(s) {
					t.Errorf("%s does not show the command where it was typed:\n%s", what, s)
				}
			}
			var found struct {
				Matches []any `json:"matches"`
			}
			c.OK("search_panes", map[string]any{"pattern": "tmux-mcp-"}, &found)
			if len(found.Matches) != 0 {
				t.Errorf("search_panes found the framing: %+v", found.Matches)
			}
		})
	}
}
