package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// histFileCase is a shell whose history is saved to a file, and what it may hold of the
// framing once the shell exited (docs/running-commands.md: zsh without HIST_IGNORE_SPACE keeps
// the first run's line in memory, and saves it with the rest on exit).
type histFileCase struct {
	su       testtmux.Setup
	file     string // HOME-relative
	maxFrame int    // lines of the framing the file may hold after the shell exited
}

func histFileCases() []histFileCase {
	zsh := testtmux.Config("zsh", "clean")
	zshRc := func(config string, lines ...string) testtmux.Setup {
		return zsh.WithRC(config, []string{"zsh"}, ".zshrc", append([]string{"HISTFILE=~/.zsh_history SAVEHIST=100 HISTSIZE=100"}, lines...)...)
	}
	bash := testtmux.Config("bash", "clean")
	bashRc := func(config string, lines ...string) testtmux.Setup {
		return bash.WithRC(config, []string{"bash", "--noprofile"}, ".bashrc", append([]string{"HISTFILE=~/.bash_history"}, lines...)...)
	}
	return []histFileCase{
		{zshRc("histfile"), ".zsh_history", 1},
		{zshRc("histfile-ignorespace", "setopt hist_ignore_space"), ".zsh_history", 0},
		{zshRc("histfile-append", "setopt inc_append_history"), ".zsh_history", 1},
		{zshRc("histfile-share", "setopt share_history"), ".zsh_history", 1},
		{zshRc("histfile-nounset", "set -u"), ".zsh_history", 1},
		{testtmux.Config("zsh", "rc"), ".zsh_history", 1},
		{testtmux.Config("zsh", "strict"), ".zsh_history", 1},
		// The plugins set-ups' history holds a line of an earlier server's framing already.
		{testtmux.ZshPlugins()[0], ".zsh_history", 2},
		{testtmux.ZshPlugins()[1], ".zsh_history", 2},
		{bashRc("histfile"), ".bash_history", 0},
		{bashRc("histappend", "shopt -s histappend"), ".bash_history", 0},
		{bashRc("prompt-command", "shopt -s histappend", "PROMPT_COMMAND='history -a'"), ".bash_history", 0},
		{testtmux.Config("bash", "rc"), ".bash_history", 0},
		{testtmux.Config("bash", "strict"), ".bash_history", 0},
		{testtmux.Config("mksh", "rc"), ".mksh_history", 0},
		{testtmux.Config("ksh", "rc"), ".sh_history", 1 << 10}, // ksh93 records every line read (the docs say so)
		{testtmux.Config("fish", "rc"), ".local/share/fish/fish_history", 0},
	}
}

// TestRunHistoryFile: a run's subshell never saves the interactive shell's history to its
// file (zsh saves it whenever a subshell of an interactive shell runs exit; bash, mksh, ksh93
// and fish are checked for the same): runs that exit, in a command substitution too, and set
// an EXIT trap (the nested frame) leave the file as it was while the shell runs, and once the
// shell exited it holds the user's own line once and no more of the framing than the docs
// allow.
func TestRunHistoryFile(t *testing.T) {
	tmx, ts, r := realRunner(t)
	for _, c := range histFileCases() {
		t.Run(c.su.Name(), func(t *testing.T) {
			c.su.Require(t)
			t.Parallel()
			setupSem <- struct{}{}
			defer func() { <-setupSem }()
			histFileRuns(t, r, ts, tmx.StartShell(t, c.su), c)
		})
	}
}

func histFileRuns(t *testing.T, r *Runner, ts *tmux.Server, p *testtmux.ShellPane, c histFileCase) {
	defer p.Kill()
	path := filepath.Join(p.Home, c.file)
	p.Type("echo user-typed-line")
	p.WaitState("the user's line ran", func(screen, before string) bool {
		return strings.Count(screen, "user-typed-line") > 1 && p.Setup.Prompt.MatchString(before)
	})
	for i, cmd := range []string{"echo x0", "echo x1; exit 0", "echo x2 $(exit 0)", "trap 'echo x3' EXIT"} {
		res, err := engineRun(t, r, ts, p, cmd, 20*time.Second)
		if err != nil || res.Outcome != Completed {
			t.Fatalf("run %d %q: %+v %v; screen:\n%s", i, cmd, res, err, p.S.Tmux("capture-pane", "-p", "-t", p.ID))
		}
	}
	during, _ := os.ReadFile(path)
	checkHistFile(t, "while the shell ran", string(during), c, 0)
	p.WaitPrompt()
	p.Type("exit")
	deadline := time.Now().Add(testtmux.PromptWait)
	for p.Alive() {
		if time.Now().After(deadline) {
			t.Fatalf("the shell did not exit; screen:\n%s", p.S.Tmux("capture-pane", "-p", "-t", p.ID))
		}
		time.Sleep(20 * time.Millisecond)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no history file after the shell exited: %v", err)
	}
	checkHistFile(t, "after the shell exited", string(after), c, 1)
}

// checkHistFile: text, the history file when, holds the user's line at most once (exactly
// once when minUser is 1), none of the runs' commands, and no more of the framing than c
// allows.
func checkHistFile(t *testing.T, when, text string, c histFileCase, minUser int) {
	t.Helper()
	if n := strings.Count(text, "echo user-typed-line"); n > 1 || n < minUser {
		t.Errorf("%s, %s holds the user's line %d times, want once:\n%s", when, c.file, n, text)
	}
	if n := strings.Count(text, "echo x"); n > 0 {
		t.Errorf("%s, %s holds the runs' commands %d times, want none:\n%s", when, c.file, n, text)
	}
	n := 0
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "tmux-mcp-") {
			n++
		}
	}
	if n > c.maxFrame {
		t.Errorf("%s, %s holds %d lines of the framing, want at most %d:\n%s", when, c.file, n, c.maxFrame, text)
	}
}
