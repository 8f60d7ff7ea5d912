package runner

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// TestRunLatePrompt: output that reaches the stream after the run took its offset and before
// the shell's echo of the typed line (a prompt tmux had not read from the terminal yet, on a
// loaded machine) stays in the text the pane's readers see: the line reads as the screen
// shows it, "<prompt><command>". The late prompt is written to the pane's terminal as the
// run begins to type: a stand-in that readline and dash keep on the screen, while zsh's and
// mksh's editors redraw the line from their own prompt when they read a key, over it.
func TestRunLatePrompt(t *testing.T) {
	t.Parallel()
	for _, sh := range []struct {
		name string
		argv []string
	}{{"bash", testtmux.Bash}, {"dash", testtmux.Dash}} {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			ts, p, req := pane(t, sh.argv)
			hub, err := ts.Hub()
			if err != nil {
				t.Fatal(err)
			}
			w, err := hub.Watch(context.Background(), p.SessionID, p.PaneID)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Release()
			from := w.Offset()
			// Wide enough for the typed line after both prompts: the stand-in is one readline did
			// not print, so a line it would wrap is wrapped where the screen does not.
			if _, err := ts.Exec(context.Background(), []string{"resize-window", "-t", p.PaneID, "-x", "200"}); err != nil {
				t.Fatal(err)
			}
			// A prompt in the stream before the run, as when a reader of the pane's text holds it.
			if _, err := ts.Exec(context.Background(), []string{"send-keys", "-t", p.PaneID, "Enter"}); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(10 * time.Second); ; {
				text, _, _, _ := w.ReadText(from, 1<<20)
				if lines := stream.Clean(text); len(lines) > 1 && strings.TrimSpace(lines[len(lines)-1]) != "" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no prompt after Enter: %q", text)
				}
				time.Sleep(10 * time.Millisecond)
			}
			r := New()
			defer r.Close()
			r.beforeType = func(p tmux.Pane) {
				if err := os.WriteFile(p.PaneTTY, []byte("late> "), 0); err != nil {
					t.Error(err)
				}
			}
			req.Command = "echo hi"
			if res, err := r.Run(context.Background(), ts, req); err != nil || res.Outcome != Completed || res.Output != "hi" {
				t.Fatalf("%+v %v", res, err)
			}
			text, _, _, err := w.ReadText(from, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			lines := stream.Clean(text)
			if !strings.Contains(strings.Join(lines, "\n"), "late> echo hi\n") {
				t.Errorf("the late prompt is not where the command was typed:\n%s", strings.Join(lines, "\n"))
			}
		})
	}
}

// TestPromptEnd: the bytes after the run's offset that complete the line left of the typed one.
func TestPromptEnd(t *testing.T) {
	cases := []struct {
		name, pre, raw, left string
		want                 int
	}{
		{"prompt before the offset", "x\r\n$ ", " { \\. '/tmp/r'; }", "$ ", 0},
		{"prompt after it", "x\r\n", "$  { \\. '/tmp/r'; }", "$ ", 2},
		{"half of it after", "x\r\n$", " { \\. '/tmp/r'; }", "$ ", 1},
		{"in colours", "x\r\n", "\x1b[1;32muser\x1b[0m:~$ \x1b[?2004h { \\. '/tmp/r'; }", "user:~$ ", 19},
		{"redrawn from a CR", "x\r\n$ ", "\r$  { \\.", "$ ", 0},
		{"not in the stream", "x\r\n", " { \\. '/tmp/r'; }", "% ", 0},
		{"earlier runs elided", "\x00\x00\x00\r\n", "> ", "> ", 2},
		{"no prompt on the screen", "x\r\n", "$ ", "", 0},
		{"a wide character last", "x\r\n", "日本> 日 { \\.", "日本> 日", 11},
	}
	for _, c := range cases {
		if got := promptEnd([]byte(c.pre), []byte(c.raw), c.left); got != c.want {
			t.Errorf("%s: promptEnd = %d, want %d", c.name, got, c.want)
		}
	}
}
