package e2e

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/termstate"
)

// inputRunOut is run_command's result as these tests read it.
type inputRunOut struct {
	waitRunOut
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	InputHint      string  `json:"input_hint"`
}

// TestRunWaitsForInput: a run whose command blocks reading the terminal (a
// pager, python's input(), read -p, a password prompt) returns once the pane is quiet, long
// before its timeout, with waiting_for_input, the prompt and what to do; the answer goes with
// send_keys to_running_command and wait_for_run returns the end. With the process table and
// without it (as on a platform where it cannot be read: the tty's mode tells).
func TestRunWaitsForInput(t *testing.T) {
	t.Parallel()
	type step struct{ keys, literal string }
	cases := []struct {
		name, cmd, prompt, hint string
		answer                  step
		last                    string
		needs                   string
	}{
		{"less", "seq 1 300 | less; echo left", "", "q leaves", step{keys: "q"}, "left", "less"},
		// git runs its pager itself (Debian's "pager", less elsewhere): the hint says how to
		// have the whole log instead.
		{"git-log", `cd ~ && git init -q log && cd log && for i in $(seq 40); do git -c user.name=a -c user.email=a@b commit -q --allow-empty -m "c$i"; done && git log; echo left`,
			"", "git --no-pager", step{keys: "q"}, "left", "git"},
		{"python", `python3 -c 'x = input("name: "); print("hi", x)'`, "name: ", "to_running_command", step{literal: "bob"}, "hi bob", "python3"},
		{"read-p", `read -p 'Proceed? ' x; echo "got $x"`, "Proceed? ", "to_running_command", step{literal: "y"}, "got y", ""},
		{"password", `read -s -p 'Password: ' pw; echo; echo "length ${#pw}"`, "Password: ", "hidden input", step{literal: "secret"}, "length 6", ""},
	}
	for _, mode := range []string{"proc", "noproc"} {
		// The answer's echo is the running command's, kept out of its output (its line
		// break stays): only the end of the last line is compared.
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			var env []string
			if mode == "noproc" {
				env = append(env, termstate.HideEnv+"=1")
			}
			c := start(t, env...)
			c.Tmx.NewSession("iw")
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					if tc.needs != "" {
						if _, err := exec.LookPath(tc.needs); err != nil {
							t.Skipf("no %s", tc.needs)
						}
					}
					pane := c.Tmx.NewWindow("iw")
					var out inputRunOut
					c.OK("run_command", map[string]any{"pane_id": pane, "command": tc.cmd, "timeout": 120}, &out)
					// Returned long before its timeout (no latency claim: half of it).
					if !out.WaitingForInput || !out.TimedOut || out.ElapsedSeconds > 60 {
						t.Fatalf("not returned waiting for input: %+v", out)
					}
					if tc.prompt != "" && out.Prompt != tc.prompt {
						t.Errorf("prompt %q, want %q", out.Prompt, tc.prompt)
					}
					if !strings.Contains(out.InputHint, tc.hint) {
						t.Errorf("input_hint %q does not say %q", out.InputHint, tc.hint)
					}
					if tc.answer.keys != "" {
						c.OK("send_keys", map[string]any{"pane_id": pane, "keys": tc.answer.keys, "enter": false, "to_running_command": true}, nil)
					} else {
						c.OK("send_keys", map[string]any{"pane_id": pane, "keys": tc.answer.literal, "literal": true, "to_running_command": true}, nil)
					}
					var w waitRunOut
					c.OK("wait_for_run", map[string]any{"pane_id": pane, "timeout": 60}, &w)
					if w.ExitStatus == nil || *w.ExitStatus != 0 || len(w.Output) == 0 || !strings.HasSuffix(w.Output[len(w.Output)-1], tc.last) {
						t.Fatalf("after the answer: %+v", w)
					}
				})
			}
		})
	}
}

// TestRunAnswerPastedEcho: an answer pasted with paste_text to_running_command is echoed by the
// terminal with its line breaks as CR LF, and with submit its Enter's echo comes after the
// text's; neither echo is the command's output (as with send_keys), so cat returns each line
// once and wc -l only its count, and a prompt's line still ends where the answer did.
func TestRunAnswerPastedEcho(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, cmd, text string
		submit, eof     bool // eof: then C-d ends the command's input
		want            []string
	}{
		{"lines", "cat", "x1\ny1\n", false, true, []string{"x1", "y1"}},
		{"submit", "wc -l", "single line", true, true, []string{"1"}},
		{"after-prompt", `read -p 'Proceed? ' x; echo "got $x"`, "y\n", false, false, []string{"Proceed? ", "got y"}},
		{"after-prompt-submit", `read -p 'Proceed? ' x; echo "got $x"`, "y", true, false, []string{"Proceed? ", "got y"}},
	}
	c := start(t)
	c.Tmx.NewSession("pe")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pane := c.Tmx.NewWindow("pe")
			var out inputRunOut
			c.OK("run_command", map[string]any{"pane_id": pane, "command": tc.cmd, "timeout": 120}, &out)
			if !out.WaitingForInput {
				t.Fatalf("%s is not waiting for input: %+v", tc.cmd, out)
			}
			c.OK("paste_text", map[string]any{"pane_id": pane, "text": tc.text, "submit": tc.submit, "to_running_command": true}, nil)
			if tc.eof {
				c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "C-d", "to_running_command": true}, nil)
			}
			var w waitRunOut
			c.OK("wait_for_run", map[string]any{"pane_id": pane, "timeout": 60}, &w)
			if w.ExitStatus == nil || *w.ExitStatus != 0 || strings.Join(w.Output, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("output %q (%+v), want %q: the pasted answer's echo is not the command's output", w.Output, w, tc.want)
			}
		})
	}
}
