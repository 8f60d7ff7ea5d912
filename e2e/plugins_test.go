package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// TestWaitPluginsEcho: in zsh with the plugins most of its users run, zsh-syntax-highlighting
// recolours the words of a line typed by send_keys once it is accepted (back over the line,
// each word drawn again), which left the typed command's echo unrecognised: wait_for_text for
// what the command prints must wait for its output, not end on the echo of the command.
func TestWaitPluginsEcho(t *testing.T) {
	su := testtmux.ZshPlugins()[0]
	su.Require(t)
	sc := startShellClient(t)
	p := sc.Tmx.StartShell(t, su)
	defer p.Kill()
	gate := filepath.Join(p.Home, "go")
	sc.OK("send_keys", map[string]any{"pane_id": p.ID, "literal": true,
		"keys": "until [ -e ~/go ]; do sleep 0.1; done; echo zz-done"}, nil)
	var w struct {
		Found        bool     `json:"found"`
		MatchedLines []string `json:"matched_lines"`
		Cursor       string   `json:"cursor"`
	}
	sc.OK("wait_for_text", map[string]any{"pane_id": p.ID, "patterns": []string{"zz-done"}, "timeout": 2}, &w)
	if w.Found {
		t.Fatalf("wait_for_text matched %q before the command printed it (the echo of the typed line)", w.MatchedLines)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	sc.OK("wait_for_text", map[string]any{"pane_id": p.ID, "patterns": []string{"zz-done"}, "timeout": 20}, &w)
	if !w.Found || len(w.MatchedLines) != 1 || w.MatchedLines[0] != "zz-done" {
		t.Fatalf("wait_for_text after the output: %+v, want the line zz-done", w)
	}
}
