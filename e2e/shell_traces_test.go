package e2e

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// mixedRun is one of the runs after which nothing of the framing may be left; fish gets
// fishCmd when set. In want, "{HOME}" stands for the pane's HOME.
type mixedRun struct {
	cmd, fishCmd string
	status       int
	want         string
}

// mixedRuns are 20 runs of the kinds a session holds: one line and several, quotes,
// failures, output with and without a trailing newline, stderr, output that scrolls, the
// aliased ls and grep of the realistic set-ups, cd.
var mixedRuns = []mixedRun{
	{cmd: "echo hi", want: "hi"},
	{cmd: "printf 'no newline'", want: "no newline"},
	{cmd: "false", status: 1},
	{cmd: "echo one\necho two", want: "one\ntwo"},
	{cmd: `echo "it's" 'a "quoted" word'`, want: `it's a "quoted" word`},
	{cmd: "exit 3", status: 3},
	{cmd: "printf 'a\\nb\\n'", want: "a\nb"},
	{cmd: "seq 1 30", want: seqLines(1, 30)},
	{cmd: "cat <<'EOF'\nhere $HOME\nEOF", fishCmd: "printf '%s\\n' 'here $HOME'", want: "here $HOME"},
	{cmd: "echo err >&2; echo out", want: "err\nout"},
	{cmd: "ls lsdir", want: "file1"},
	{cmd: "echo abc | grep b", want: "abc"},
	{cmd: "cd /tmp && pwd", fishCmd: "cd /tmp; and pwd", want: "/tmp"},
	{cmd: "pwd", want: "{HOME}"},
	{cmd: "x=5; echo $((x * 2))", fishCmd: "set x 5; math $x \\* 2", want: "10"},
	{cmd: "sleep 0.3; echo slept", want: "slept"},
	{cmd: "sh -c 'exit 42'", status: 42},
	{cmd: "printf '%s\\n' 'ünïcödé ✓'", want: "ünïcödé ✓"},
	{cmd: "for i in 1 2 3; do echo \"n$i\"; done", fishCmd: "for i in 1 2 3; echo n$i; end", want: "n1\nn2\nn3"},
	{cmd: "true"},
}

func seqLines(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		if i > from {
			b.WriteByte('\n')
		}
		fmt.Fprint(&b, i)
	}
	return b.String()
}

// TestShellNoTraces: after 20 mixed runs in each set-up, nothing of the framing
// is left where a person or a later program could see it: the whole scrollback and the
// screen, the pane's title (set by the realistic set-ups' preexec hooks), a pipe_pane log
// as a terminal shows it, the shell's history (as the shell lists it, and its files in HOME
// after the shell exited). Where the command was typed, the line shows the command itself
// after the prompt, as if a person had typed it.
func TestShellNoTraces(t *testing.T) {
	forEachShell(t, func(t *testing.T, sc *shellClient, shell string) {
		for _, su := range testtmux.Configs(shell) {
			t.Run(su.Config, func(t *testing.T) {
				t.Parallel()
				tracesCase(t, sc, su)
			})
		}
	})
}

func tracesCase(t *testing.T, sc *shellClient, su testtmux.Setup) {
	sc = sc.For(t)
	p := sc.Tmx.StartShell(t, su)
	defer p.Kill()
	if err := os.MkdirAll(filepath.Join(p.Home, "lsdir"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(p.Home, "lsdir", "file1"), nil, 0o600)
	log := filepath.Join(sc.Tmx.Dir, "pipe-"+filepath.Base(p.Home)+".log")
	sc.OK("pipe_pane", map[string]any{"pane_id": p.ID, "output_path": log, "append": false}, nil)

	var typed []string // the one-line commands, as the prompt line should show them
	completed := 0
	t.Run("runs", func(t *testing.T) {
		sc := sc.For(t)
		for i, r := range mixedRuns {
			cmd := r.cmd
			if su.Fish && r.fishCmd != "" {
				cmd = r.fishCmd
			}
			want := strings.ReplaceAll(r.want, "{HOME}", p.Home)
			a := sc.try(tools[i%2], p.ID, cmd, runTimeout)
			if a.outcome == "completed" {
				completed++
			}
			if !a.ok(r.status, want) {
				t.Errorf("run %d: %v; want exit %d, output %q", i, a, r.status, want)
			}
			if a.outcome == "timed_out" {
				// The pane stays reserved until the command ends; C-c ends a stuck frame.
				sc.Tmx.Tmux("send-keys", "-t", p.ID, "C-c")
				sc.tryWhenFree("run_shell_command", p.ID, "true", 10*time.Second)
			}
			if !strings.Contains(cmd, "\n") {
				typed = append(typed, cmd)
			}
		}
	})
	if completed == 0 {
		t.Skip("no run completed: nothing to look for traces of")
	}
	p.WaitPrompt()
	sc.OK("pipe_pane", map[string]any{"pane_id": p.ID, "output_path": nil}, nil)

	t.Run("scrollback", func(t *testing.T) {
		for _, tr := range traces(capture(sc.Tmx, p.ID), sc.tmpDir) {
			t.Errorf("capture-pane -S - holds a trace of the framing: %s", tr)
		}
	})
	t.Run("screen", func(t *testing.T) {
		screen := sc.For(t).Tmx.Tmux("capture-pane", "-p", "-t", p.ID)
		for _, tr := range traces(screen, sc.tmpDir) {
			t.Errorf("the screen holds a trace of the framing: %s", tr)
		}
	})
	t.Run("typed-line", func(t *testing.T) {
		checkTypedLines(t, capture(sc.Tmx, p.ID), typed)
	})
	t.Run("title", func(t *testing.T) {
		title := sc.For(t).Tmx.Tmux("display-message", "-p", "-t", p.ID, "#{pane_title}")
		for _, tr := range traces(title, sc.tmpDir) {
			t.Errorf("the pane title (set by the shell's preexec hook) holds a trace of the framing: %s", tr)
		}
	})
	t.Run("pipe-log", func(t *testing.T) { checkPipeLog(t, sc.For(t), log) })
	t.Run("history", func(t *testing.T) { checkHistory(t, sc.For(t), p.For(t)) })
}

// checkTypedLines: each one-line command appears on a prompt line, after the prompt's last
// character ($, # or ❯ and a space), optionally followed by a right prompt.
func checkTypedLines(t interface {
	Helper()
	Errorf(string, ...any)
}, scrollback string, cmds []string) {
	t.Helper()
	var missing []string
	for _, cmd := range cmds {
		re := regexp.MustCompile(`(?m)[$#❯] ` + regexp.QuoteMeta(cmd) + `(\s{2,}\S.*|\s*)$`)
		if !re.MatchString(scrollback) {
			missing = append(missing, cmd)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d of %d commands are not shown on a prompt line as typed, e.g. %q; the scrollback begins:\n%s", len(missing), len(cmds), missing[0], firstLines(scrollback, 30))
	}
}

// firstLines returns the first n lines of s.
func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// checkPipeLog: a pipe_pane log holds the pane's raw output. What counts is what it shows as
// text: the log is replayed through a terminal (cat in a tmux pane of the same width) and
// the replay's scrollback must hold no trace of the framing. Escape sequences are not text:
// a marker carried in one (an OSC string tmux passes on but never draws) is invisible, and
// an echoed line that the framing erased again shows nothing. The replay's terminal does not
// echo: a line editor's cursor position queries in the log (busybox ash) are answered into its
// input, and echoed answers would move the cursor between the log's bytes, which no terminal of
// the run's saw. The raw bytes outside escape
// sequences are reported, not judged: a line erased after it was echoed is still in them.
func checkPipeLog(t *testing.T, sc *shellClient, log string) {
	raw, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("the pipe_pane log: %v", err)
	}
	if !strings.Contains(string(raw), "slept") {
		t.Fatalf("the pipe_pane log misses the runs' output (%d bytes)", len(raw))
	}
	id := sc.Tmx.Tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "=sh:", "sh", "-c", `stty -echo; cat "$1"; printf '\n%s\n' REPLAY-DONE; exec cat`, "sh", log)
	defer sc.Tmx.TryTmux("kill-pane", "-t", id)
	sc.Tmx.WaitFor(id, func(screen string) bool { return strings.Contains(screen, "REPLAY-DONE") })
	for _, tr := range traces(capture(sc.Tmx, id), sc.tmpDir) {
		t.Errorf("the pipe_pane log, as a terminal shows it, holds a trace of the framing: %s", tr)
	}
	text := stripEscapes(string(raw))
	t.Logf("pipe_pane log: %d bytes; outside escape sequences: %d mentions of the wrapper directory, %d markers",
		len(raw), strings.Count(text, sc.tmpDir), len(markerRe.FindAllString(text, -1)))
}

// escapeRe matches terminal escape sequences: OSC, DCS, APC, PM and SOS strings (to BEL or
// ST), CSI sequences, and other two-byte ESC sequences.
var escapeRe = regexp.MustCompile("\x1b[\\]P_^X][^\x07\x1b]*(\x07|\x1b\\\\)?|\x1b\\[[0-?]*[ -/]*[@-~]|\x1b[ -/]*[0-~]")

func stripEscapes(s string) string { return escapeRe.ReplaceAllString(s, "") }

// historyLimits are the shells that record every line they read and offer no way to delete
// a history entry: there the typed line stays in the history (shellrun's doc and
// docs/running-commands.md say so). zsh keeps it out when configured with HIST_IGNORE_SPACE (TestShellHistoryIgnoreSpace).
var historyLimits = map[string]string{
	"zsh": "zsh cannot delete a history entry: without HIST_IGNORE_SPACE the typed line stays in its history",
	"ksh": "ksh93 records every line it reads and cannot delete a history entry",
	"ash": "busybox ash records every line it reads and cannot delete a history entry",
}

// ignoresSpace names the set-ups configured to keep lines that start with a space out of the
// history, where historyLimits do not apply.
var ignoresSpace = map[string]bool{"rc+ignorespace": true}

// TestShellHistoryIgnoreSpace: zsh configured with HIST_IGNORE_SPACE (as oh-my-zsh configures
// it) records nothing of the framing: the typed line starts with a space.
func TestShellHistoryIgnoreSpace(t *testing.T) {
	t.Parallel()
	ignoreSpaceCase(t)
}

// ignoreSpaceCase runs a few commands in zsh with HIST_IGNORE_SPACE, through a binary of its
// own started with env, and checks its history.
func ignoreSpaceCase(t *testing.T, env ...string) {
	su := testtmux.Config("zsh", "rc").With("rc+ignorespace", "setopt hist_ignore_space")
	testtmux.RequireShell(t, su.Argv)
	sc := startShellClient(t, env...)
	p := sc.Tmx.StartShell(t, su)
	defer p.Kill()
	for i, cmd := range []string{"echo one", "false", "printf 'a\\nb\\n'"} {
		if a := sc.try(tools[i%2], p.ID, cmd, runTimeout); a.outcome != "completed" {
			t.Fatalf("run %d: %v", i, a)
		}
	}
	p.WaitPrompt()
	checkHistory(t, sc, p)
}

// checkHistory: the shell's history, as the shell lists it and as it saved it in HOME once
// it exited, holds nothing of the framing.
func checkHistory(t *testing.T, sc *shellClient, p *testtmux.ShellPane) {
	su := p.Setup
	if su.HistoryCmd == "" {
		t.Skipf("%s keeps no history", su.Shell)
	}
	if why, ok := historyLimits[su.Shell]; ok && !ignoresSpace[su.Config] {
		t.Skip(why)
	}
	p.Type(su.HistoryCmd + " > ~/hist.tmp 2>&1; mv ~/hist.tmp ~/hist.txt")
	list := waitFileContent(t, filepath.Join(p.Home, "hist.txt"))
	for _, tr := range traces(list, sc.tmpDir) {
		t.Errorf("%q lists a trace of the framing: %s", su.HistoryCmd, tr)
	}
	p.WaitPrompt()
	p.Type("exit")
	deadline := time.Now().Add(testtmux.PromptWait)
	for p.Alive() {
		if time.Now().After(deadline) {
			t.Fatalf("the shell did not exit; screen:\n%s", capture(sc.Tmx, p.ID))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if su.HistoryFile != "" {
		if _, err := os.Stat(filepath.Join(p.Home, su.HistoryFile)); err != nil {
			t.Logf("no history file after the shell exited: %v", err)
		}
	}
	filepath.WalkDir(p.Home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.Name() == "generated_completions" {
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil || d.Name() == "hist.txt" { // the listing, judged above
			return nil
		}
		for _, tr := range traces(string(b), sc.tmpDir) {
			t.Errorf("%s holds a trace of the framing: %s", strings.TrimPrefix(path, p.Home+"/"), tr)
		}
		return nil
	})
}

// waitFileContent waits until path exists and returns its content.
func waitFileContent(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(testtmux.PromptWait)
	for {
		if b, err := os.ReadFile(path); err == nil {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear", path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
