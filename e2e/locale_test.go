package e2e

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// MCP clients start servers with a bare environment (env -i with PATH and HOME),
// or with LANG=C or LC_ALL=POSIX. tmux then took its clients for non-UTF-8 terminals and
// turned every non-ASCII byte it printed into "_" (U+241E, the field separator, included):
// every read failed ("missing separator before session_name"). Here the binary starts the tmux
// server itself, under each environment, and non-ASCII names, titles and pane text must
// round-trip exactly through the reading tools.
func TestAnyEnvironment(t *testing.T) {
	envs := map[string]func(tmx *testtmux.Server) []string{
		"env -i": func(tmx *testtmux.Server) []string {
			return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tmx.Home}
		},
		"LANG=C": func(tmx *testtmux.Server) []string {
			return append(withoutLocale(tmx.Env), "LANG=C")
		},
		"LC_ALL=POSIX": func(tmx *testtmux.Server) []string {
			// LC_ALL wins over a UTF-8 LANG.
			return append(withoutLocale(tmx.Env), "LANG=C.UTF-8", "LC_ALL=POSIX")
		},
	}
	for name, env := range envs {
		t.Run(name, func(t *testing.T) {
			tmx := testtmux.New(t)
			c := startWith(t, tmx, append(env(tmx), "LIBTMUX_SOCKET_PATH="+tmx.Socket))
			roundTripNonASCII(t, c)
		})
	}
}

func withoutLocale(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "LANG=") && !strings.HasPrefix(kv, "LC_") {
			out = append(out, kv)
		}
	}
	return out
}

// startWith runs the binary with exactly env (start and startOn add the test environment).
func startWith(t *testing.T, tmx *testtmux.Server, env []string) *Client {
	t.Helper()
	cmd := exec.Command(binary)
	cmd.Env = env
	return connect(t, tmx, cmd)
}

func roundTripNonASCII(t *testing.T, c *Client) {
	const (
		sess   = "sëss-日本-␞"
		win    = "wïn-ü"
		title  = "tïtle-✓"
		osc    = "öšc-títle"
		output = "été ✓ 日本"
	)
	// create_session starts the tmux server, in this environment.
	var s session
	c.OK("create_session", map[string]any{"session_name": sess, "window_name": win, "x": 80, "y": 24}, &s)
	if s.SessionName != sess || s.ActivePaneID == "" {
		t.Fatalf("create_session = %+v", s)
	}
	p := s.ActivePaneID
	c.Tmx.WaitPrompt(p)
	var ls struct{ Sessions []session }
	c.OK("list_sessions", map[string]any{}, &ls)
	if len(ls.Sessions) != 1 || ls.Sessions[0].SessionName != sess {
		t.Errorf("list_sessions = %+v", ls.Sessions)
	}
	var pi paneX
	c.OK("set_pane_title", map[string]any{"pane_id": p, "title": title}, nil)
	c.OK("get_pane_info", map[string]any{"pane_id": p}, &pi)
	if pi.PaneTitle != title {
		t.Errorf("get_pane_info title = %q, want %q", pi.PaneTitle, title)
	}
	// The shell prints non-ASCII text and sets its own title; what is typed is ASCII (the
	// shell's own locale is the user's business). The wait counts what follows its cursor.
	var w waitResult
	c.OK("wait_for_text", map[string]any{"pane_id": p, "timeout": 0.05}, &w)
	c.OK("send_keys", map[string]any{"pane_id": p, "literal": true, "enter": true,
		"keys": `printf '\033]2;` + octal(osc) + `\033\\` + octal(output) + `\n'`}, nil)
	c.OK("wait_for_text", map[string]any{"cursor": w.Cursor, "patterns": []string{output}, "match_case": true, "timeout": 10}, &w)
	if !w.Found || len(w.MatchedLines) != 1 || w.MatchedLines[0] != output {
		t.Errorf("wait_for_text = %+v", w)
	}
	c.OK("get_pane_info", map[string]any{"pane_id": p}, &pi)
	if pi.PaneTitle != osc {
		t.Errorf("title set by the pane = %q, want %q", pi.PaneTitle, osc)
	}
	// The output's line, whole: the next prompt may not be drawn yet (a loaded machine).
	var cp captureOut
	c.OK("capture_pane", map[string]any{"pane_id": p}, &cp)
	if !strings.Contains(cp.Content+"\n", "\n"+output+"\n") {
		t.Errorf("capture_pane = %q", cp.Content)
	}
	var sn snapshot
	c.OK("snapshot_pane", map[string]any{"pane_id": p}, &sn)
	if !strings.Contains(sn.Content+"\n", "\n"+output+"\n") {
		t.Errorf("snapshot_pane = %q", sn.Content)
	}
	var so searchOut
	c.OK("search_panes", map[string]any{"pattern": output, "match_case": true}, &so)
	if len(so.Matches) != 1 || so.Matches[0].SessionName != sess || so.Matches[0].WindowName != win ||
		len(so.Matches[0].MatchedLines) != 1 || so.Matches[0].MatchedLines[0] != output {
		t.Errorf("search_panes = %+v", so.Matches)
	}
}

// octal writes s as printf octal escapes, so the typed line is ASCII.
func octal(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x80 && c != '\\' && c != '\'' && c != '%' {
			b.WriteByte(c)
			continue
		}
		b.WriteString("\\" + string('0'+c>>6) + string('0'+(c>>3)&7) + string('0'+c&7))
	}
	return b.String()
}
