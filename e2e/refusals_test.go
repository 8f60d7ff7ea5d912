package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// setOwnTitle makes the pane's program set the pane's title with an OSC 2 sequence, as any
// program in a pane can, and waits until tmux has it.
func setOwnTitle(t *testing.T, c *Client, pane, title string) {
	t.Helper()
	c.Tmx.Tmux("send-keys", "-t", pane, "-l", `printf '\033]2;%s\033\\' '`+title+`'`)
	c.Tmx.Tmux("send-keys", "-t", pane, "Enter")
	deadline := time.Now().Add(10 * time.Second)
	for c.fmt(pane, "#{pane_title}") != title {
		if time.Now().After(deadline) {
			t.Fatalf("pane %s did not set its title to %q", pane, title)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestDisplayMessageValueExpansion: a pane sets its own title to a shell job; the formats of
// issue 9 that expanded it (the guard took the first : or } after #{ for the end of the
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
