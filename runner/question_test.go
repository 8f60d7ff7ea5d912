package runner

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// questionCase is a line a person entered in a shell's set-up (typed, then Enter), or keys
// they pressed, which the shell answers with a question (ask, its end on the screen), and the
// keys that answer it and leave the prompt.
type questionCase struct {
	su     testtmux.Setup
	typed  string
	keys   []string
	ask    *regexp.Regexp
	answer []string
	// startup says the shell asks as it starts, in its start-up files (neither typed nor keys).
	startup bool
}

func questionCases() []questionCase {
	rc := testtmux.Config("zsh", "rc")
	return []questionCase{
		// zsh asks before rm * by default (no RM_STAR_SILENT).
		{su: rc.With("rm-star"), typed: "rm ~/files/*", ask: regexp.MustCompile(`\[yn\]\? ?$`), answer: []string{"n"}},
		{su: rc.With("correct", "setopt correct"), typed: "ecoh by-the-person", ask: regexp.MustCompile(`\[nyae\]\? ?$`), answer: []string{"a"}},
		{su: rc.With("correct-sprompt", "setopt correct", "SPROMPT='Correct %R to %r? [Yes, No, Abort, Edit] '"),
			typed: "ecoh by-the-person", ask: regexp.MustCompile(`\[Yes, No, Abort, Edit\] ?$`), answer: []string{"a"}},
		{su: testtmux.ZshPlugins()[0], typed: "ecoh by-the-person", ask: regexp.MustCompile(`\[nyae\]\? ?$`), answer: []string{"a"}},
		// Completion of a directory with more entries than the shell lists unasked (an agent's
		// send_keys of Tab does this as often as a person).
		{su: testtmux.Config("bash", "clean"), keys: []string{"ls /usr/bin/", "Tab", "Tab"},
			ask: regexp.MustCompile(`possibilities\? \(y or n\) ?$`), answer: []string{"n", "C-u"}},
		{su: testtmux.Config("zsh", "clean"), keys: []string{"ls /usr/bin/", "Tab"},
			ask: regexp.MustCompile(`possibilities \(\d+ lines\)\? ?$`), answer: []string{"n", "C-u"}},
		// Start-up files that ask: oh-my-zsh's update question (one key, read -q), and a
		// line read in bash's (read -p, in canonical mode).
		{su: testtmux.Config("zsh", "clean").WithRC("asks-update", []string{"zsh"}, ".zshrc", `read -q "REPLY?[oh-my-zsh] Would you like to update? [Y/n] "`),
			startup: true, ask: regexp.MustCompile(`\[Y/n\] ?$`), answer: []string{"n"}},
		{su: testtmux.Config("bash", "clean").WithRC("asks-name", []string{"bash"}, ".bashrc", `read -p "Project name: " name`),
			startup: true, ask: regexp.MustCompile(`Project name: ?$`), answer: []string{"demo", "Enter"}},
	}
}

// TestRunShellQuestion: with zsh asking the person a question about the line they entered (its
// spelling correction, its check before rm *), or after a Tab, or a shell's start-up files
// asking (a key, or a line read in canonical mode), a run types nothing, which would answer
// it, and says so naming the question, with and without the process table (which alone tells
// a shell's read of a line from a busy shell); once the person answered, the pane takes the
// next run.
func TestRunShellQuestion(t *testing.T) {
	tmx, ts := realEngine(t)
	for _, tb := range tables {
		for _, c := range questionCases() {
			t.Run(tb.name+"/"+c.su.Name(), func(t *testing.T) {
				c.su.Require(t)
				t.Parallel()
				r := New()
				r.table = tb.table
				t.Cleanup(r.Close)
				p := tmx.StartShellNoWait(t, c.su)
				defer p.Kill()
				if !c.startup {
					p.WaitPrompt()
				}
				files := filepath.Join(p.Home, "files")
				if err := os.Mkdir(files, 0o700); err != nil {
					t.Fatal(err)
				}
				for _, f := range []string{"a", "b"} {
					if err := os.WriteFile(filepath.Join(files, f), nil, 0o600); err != nil {
						t.Fatal(err)
					}
				}
				switch {
				case c.keys != nil:
					p.Keys(c.keys...)
				case !c.startup:
					p.Type(c.typed)
				}
				p.WaitState("the question", func(_, before string) bool { return c.ask.MatchString(before) })
				questionRun(t, r, ts, p, c, files)
			})
		}
	}
}

// questionRun runs a command while p's shell asks c's question, then answers it and runs again.
func questionRun(t *testing.T, r *Runner, ts *tmux.Server, p *testtmux.ShellPane, c questionCase, files string) {
	t.Helper()
	res, err := engineRun(t, r, ts, p, "echo typed-by-the-run", 20*time.Second)
	var nr *NotRun
	var ref *Refusal
	switch {
	case errors.As(err, &nr) && (strings.Contains(nr.Reason, "asking a question") || strings.Contains(nr.Reason, "reading a line of its own")):
	case r.table.Available() || !errors.As(err, &ref) || ref.Reason != ShellBusy:
		t.Fatalf("run at the question: %+v %v, want a NotRun naming the question; screen:\n%s", res, err, p.S.Tmux("capture-pane", "-p", "-t", p.ID))
	}
	// Without a process table, a shell reading a line in canonical mode is only not ready.
	p.WaitState("the question, unanswered", func(_, before string) bool { return c.ask.MatchString(before) })
	if entries, err := os.ReadDir(files); err != nil || len(entries) != 2 {
		t.Fatalf("the files of rm * are gone: %v %v", entries, err)
	}
	p.Keys(c.answer...)
	p.WaitPrompt()
	if res, err := engineRun(t, r, ts, p, "echo after", 20*time.Second); err != nil || res.Outcome != Completed || res.Output != "after" {
		t.Fatalf("after the answer: %+v %v; screen:\n%s", res, err, p.S.Tmux("capture-pane", "-p", "-t", p.ID))
	}
}

// TestQuestionFake: the question is read left of the cursor, with the row above when it wrapped
// onto the cursor's row; a prompt, or text after the cursor, is no question.
func TestQuestionFake(t *testing.T) {
	long := "zsh: sure you want to delete all 3 files in /tmp/" + strings.Repeat("d", 40) // wraps at 60
	for _, tc := range []struct {
		rows []string
		x    int
		want string
	}{
		{[]string{"zsh: correct 'ecoh' to 'echo' [nyae]? "}, 38, "zsh: correct 'ecoh' to 'echo' [nyae]?"},
		{[]string{"Correct ecoh to echo? [Yes, No, Abort, Edit] "}, 46, "Correct ecoh to echo? [Yes, No, Abort, Edit]"},
		{[]string{long[:60], long[60:] + " [yn]? "}, len(long) - 60 + 7, long + " [yn]?"},
		{[]string{"$ ls /usr/bin/", "Display all 1173 possibilities? (y or n)"}, 40, "Display all 1173 possibilities? (y or n)"},
		{[]string{"zsh: do you wish to see all 1173 possibilities (391 lines)? "}, 61, "zsh: do you wish to see all 1173 possibilities (391 lines)?"},
		{[]string{"[", "--More--"}, 8, "--More--"},
		{[]string{"[oh-my-zsh] Would you like to update? [Y/n] "}, 45, "[oh-my-zsh] Would you like to update? [Y/n]"},
		{[]string{"Proceed (y/n)? "}, 15, "Proceed (y/n)?"},
		{[]string{"Overwrite? [yes/no]: "}, 21, "Overwrite? [yes/no]:"},
		{[]string{"❯ "}, 2, ""},
		{[]string{"❯ echo [yn]?"}, 2, ""},
	} {
		b := before{x: tc.x, y: len(tc.rows) - 1, cols: 60, rows: tc.rows, ok: true}
		got, ok := b.question()
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("question of %q at column %d = %q %v, want %q", tc.rows, tc.x, got, ok, tc.want)
		}
	}
}
