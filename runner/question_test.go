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

// questionCase is a line a person entered in a zsh set-up, which the shell answers with a
// question (ask, its end on the screen), and the key that answers it.
type questionCase struct {
	su     testtmux.Setup
	typed  string
	ask    *regexp.Regexp
	answer string
}

func questionCases() []questionCase {
	rc := testtmux.Config("zsh", "rc")
	return []questionCase{
		// zsh asks before rm * by default (no RM_STAR_SILENT).
		{rc.With("rm-star"), "rm ~/files/*", regexp.MustCompile(`\[yn\]\? ?$`), "n"},
		{rc.With("correct", "setopt correct"), "ecoh by-the-person", regexp.MustCompile(`\[nyae\]\? ?$`), "a"},
		{rc.With("correct-sprompt", "setopt correct", "SPROMPT='Correct %R to %r? [Yes, No, Abort, Edit] '"),
			"ecoh by-the-person", regexp.MustCompile(`\[Yes, No, Abort, Edit\] ?$`), "a"},
		{testtmux.ZshPlugins()[0], "ecoh by-the-person", regexp.MustCompile(`\[nyae\]\? ?$`), "a"},
	}
}

// TestRunShellQuestion: with zsh asking the person a question about the line they entered (its
// spelling correction, its check before rm *), a run types nothing, which would answer it, and
// says so naming the question, with and without the process table; once the person answered,
// the pane takes the next run.
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
				p := tmx.StartShell(t, c.su)
				defer p.Kill()
				files := filepath.Join(p.Home, "files")
				if err := os.Mkdir(files, 0o700); err != nil {
					t.Fatal(err)
				}
				for _, f := range []string{"a", "b"} {
					if err := os.WriteFile(filepath.Join(files, f), nil, 0o600); err != nil {
						t.Fatal(err)
					}
				}
				p.Type(c.typed)
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
	if !errors.As(err, &nr) || !strings.Contains(nr.Reason, "asking a question") {
		t.Fatalf("run at the question: %+v %v, want a NotRun naming the question; screen:\n%s", res, err, p.S.Tmux("capture-pane", "-p", "-t", p.ID))
	}
	p.WaitState("the question, unanswered", func(_, before string) bool { return c.ask.MatchString(before) })
	if entries, err := os.ReadDir(files); err != nil || len(entries) != 2 {
		t.Fatalf("the files of rm * are gone: %v %v", entries, err)
	}
	p.Keys(c.answer)
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
