package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/termstate"
	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/shellrun"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// The engine's shell tests: every shell set-up users have (testtmux.Configs: clean, rc, vi,
// rprompt, strict; testtmux.Plugins: bash-completion, fzf, direnv, powerline; liquidprompt and
// powerlevel9k; started through
// sh -c), run twice: with the process table (Linux's /proc)
// and with it hidden, as on a platform or host where it cannot be read, so that what the
// portable reads decide (tmux's current command, the tty's mode) is tested here.

// tables are the two ways a run reads processes.
var tables = []struct {
	name  string
	table *termstate.Table
}{{"proc", termstate.System}, {"noproc", termstate.Hide()}}

// setupSem bounds the set-ups running at once: fish starting by the dozen swamps two cores.
var setupSem = make(chan struct{}, 4)

// inShell runs body as a parallel subtest of t named name, in a new shell of set-up su (skipped
// when not installed) with a runner of its own reading the process table tb (nil: the
// system's); at most cap(setupSem) such shells run at once.
func inShell(t *testing.T, tmx *testtmux.Server, name string, su testtmux.Setup, tb *termstate.Table, body func(*testing.T, *Runner, *testtmux.ShellPane)) {
	t.Run(name, func(t *testing.T) {
		su.Require(t)
		t.Parallel()
		setupSem <- struct{}{}
		defer func() { <-setupSem }()
		r := New()
		if tb != nil {
			r.table = tb
		}
		defer r.Close()
		p := tmx.StartShell(t, su)
		defer p.Kill()
		body(t, r, p)
	})
}

// allSetups lists the set-ups of the matrix, and a few started otherwise.
func allSetups() []testtmux.Setup {
	var out []testtmux.Setup
	for _, sh := range testtmux.ShellNames() {
		out = append(out, testtmux.Configs(sh)...)
		out = append(out, testtmux.Plugins(sh)...) // skipped where the tools are not installed
	}
	out = append(out, testtmux.ZshPlugins()...)
	out = append(out, promptSetups()...)
	return append(out, testtmux.ZshTransient(),
		testtmux.Started("fish", "sh-c", "sh", "-c", "fish"),
		testtmux.Started("fish", "sh-c-child", "sh", "-c", "fish; exit $?"),
		printfFunction(),
		testtmux.Config("zsh", "rc").With("ignore-space", "setopt hist_ignore_space"),
		cLocalePrompts[0], cLocalePrompts[1],
	)
}

// promptSetups are the prompt frameworks' set-ups: liquidprompt in bash and zsh, powerlevel9k
// on one row and on two (skipped where not installed).
func promptSetups() []testtmux.Setup {
	return append([]testtmux.Setup{testtmux.Liquidprompt("bash"), testtmux.Liquidprompt("zsh")}, testtmux.Powerlevel9k()...)
}

// cLocalePrompts are zsh in the C locale with a multibyte prompt, on one row and on two.
var cLocalePrompts = []testtmux.Setup{
	testtmux.CLocaleZsh("c-locale", `PROMPT="❯ "`),
	testtmux.CLocaleZsh("c-locale-2-line", `PROMPT=$'%~\n❯ '`),
}

// TestEngineCLocalePrompt: zsh in the C locale counts its prompt's ❯ as 3 columns, so it
// wraps the typed line 2 columns early on the screen and erases the prompt's row as it goes to
// its next row, leaving only the line's end (as little as "}") there. With the pane's width
// set so that 1 to 8 bytes of the line follow that wrap, every run is seen typed at once (not
// after the echo wait, or refused as not shown) and its command is drawn on the prompt's row.
func TestEngineCLocalePrompt(t *testing.T) {
	for _, su := range cLocalePrompts {
		wrapRuns(t, su, wrapCase{
			shell: shellrun.Zsh, ahead: 1,
			// zsh's first row: its 4 columns of "❯ ", then the line up to its last k bytes.
			width: func(line string, k int) int { return len(line) - k + 4 },
			row:   "❯ ",
		})
	}
}

// TestEngineUnterminatedWrap: after output without a final line break (printf, a C-c's "^C"),
// bash's prompt begins mid-row, while readline takes it to begin in column 0; a typed line
// that reaches past the row's end is then misdrawn where it wraps (the terminal wraps first,
// and readline draws the rest over the next row's start). With 1 to 8 bytes of the line past
// the row's end, every run is seen typed at once (not after the echo wait, then cleared with
// C-c and typed again) and its command is drawn after the output, as typed, with nothing of
// the frame left on the screen.
func TestEngineUnterminatedWrap(t *testing.T) {
	wrapRuns(t, testtmux.Config("bash", "clean"), wrapCase{
		shell: shellrun.Bash, before: "printf abc", ahead: 2,
		// The row: "abc", the prompt "$ ", then the line up to its last k bytes.
		width: func(line string, k int) int { return len("abc$ ") + len(line) - k },
		row:   `abc\$ `,
	})
}

// wrapCase is a typed line that wraps where a shell misdraws it: width gives the pane's width
// that puts k bytes of line past its first row; before is run first (its output ends the row
// the prompt begins on), ahead says how many scripts ahead the line's is, and row is the
// pattern of what the screen's row shows before the command.
type wrapCase struct {
	shell  shellrun.Shell
	before string
	ahead  int
	width  func(line string, k int) int
	row    string
}

// wrapRuns runs, with and without the process table, in a shell of set-up su, commands whose
// typed line has 1 to 8 bytes past the wrap of wc: each is seen typed at once (not after the
// echo wait, or cleared and typed again, or refused as not shown) and is drawn where the
// shell drew the line, with nothing of the frame left on the screen.
func wrapRuns(t *testing.T, su testtmux.Setup, wc wrapCase) {
	tmx, ts := realEngine(t)
	for _, tb := range tables {
		t.Run(tb.name+"/"+su.Name(), func(t *testing.T) {
			su.Require(t)
			t.Parallel()
			r := New()
			r.table = tb.table
			t.Cleanup(r.Close)
			var path string
			r.beforeSend = func(p string) { path = p }
			p := tmx.StartShell(t, su)
			defer p.Kill()
			if res, err := engineRun(t, r, ts, p, "echo first", 20*time.Second); err != nil || res.Outcome != Completed {
				t.Fatalf("first run: %+v %v", res, err)
			}
			for k := 1; k <= 8; k++ {
				wrapRun(t, r, ts, p, wc, nextScript(t, path, wc.ahead), k)
			}
		})
	}
}

// nextScript is the path of the script ahead runs after path (the last run's; "r1b" when
// its line was typed twice, as a loaded machine can have it).
func nextScript(t *testing.T, path string, ahead int) string {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimRight(strings.TrimPrefix(filepath.Base(path), "r"), "b"))
	if err != nil {
		t.Fatalf("script path %s", path)
	}
	return filepath.Join(filepath.Dir(path), "r"+strconv.Itoa(n+ahead))
}

// wrapRun sets p's width for k bytes of the line typed for script next, and runs wc.before
// and a command there.
func wrapRun(t *testing.T, r *Runner, ts *tmux.Server, p *testtmux.ShellPane, wc wrapCase, next string, k int) {
	t.Helper()
	w := wc.width(shellrun.Line(wc.shell, next), k)
	p.S.Tmux("resize-window", "-t", p.ID, "-x", strconv.Itoa(w))
	time.Sleep(200 * time.Millisecond) // the shell redraws its prompt for the new width
	p.WaitPrompt()
	if wc.before != "" {
		if res, err := engineRun(t, r, ts, p, wc.before, 20*time.Second); err != nil || res.Outcome != Completed {
			t.Fatalf("%s in %d columns: %+v %v", wc.before, w, res, err)
		}
	}
	cmd := "echo k" + strconv.Itoa(k)
	res, err := engineRun(t, r, ts, p, cmd, 20*time.Second)
	screen := p.S.Tmux("capture-pane", "-p", "-t", p.ID)
	if err != nil || res.Outcome != Completed || res.Output != "k"+strconv.Itoa(k) {
		t.Fatalf("%q in %d columns: %+v %v; screen:\n%s", cmd, w, res, err, screen)
	}
	if res.Elapsed >= echoWait {
		t.Errorf("%q in %d columns took %v: the echo was not seen", cmd, w, res.Elapsed)
	}
	if !regexp.MustCompile(`(?m)^`+wc.row+cmd+`\s*$`).MatchString(screen) || strings.Contains(screen, "tmx") {
		t.Errorf("%q in %d columns is not shown where it was typed, as typed:\n%s", cmd, w, screen)
	}
}

// engineRun runs command in p with runner r and returns the result.
func engineRun(t *testing.T, r *Runner, ts *tmux.Server, p *testtmux.ShellPane, command string, timeout time.Duration) (Result, error) {
	t.Helper()
	snap, err := ts.Snapshot(context.Background(), tmux.WithPanes|tmux.WithClients)
	if err != nil {
		t.Fatal(err)
	}
	return r.Run(context.Background(), ts, Request{Snapshot: snap, PaneID: p.ID, Timeout: timeout, Command: command, Holder: "test"})
}

// TestEngineSetups: in every set-up, with and without the process table, runs complete with
// their status and output (short, longer than the pane is wide, twice), and a command that
// asks a question returns once it waits (waiting for input, its prompt), takes its answer and
// ends.
func TestEngineSetups(t *testing.T) {
	tmx, ts := realEngine(t)
	for _, tb := range tables {
		t.Run(tb.name, func(t *testing.T) {
			t.Parallel()
			r := New()
			r.table = tb.table
			t.Cleanup(r.Close)
			for _, su := range allSetups() {
				t.Run(su.Name(), func(t *testing.T) {
					su.Require(t)
					t.Parallel()
					setupSem <- struct{}{}
					defer func() { <-setupSem }()
					p := tmx.StartShell(t, su)
					defer p.Kill()
					setupCases(t, r, ts, p)
				})
			}
		})
	}
}

func setupCases(t *testing.T, r *Runner, ts *tmux.Server, p *testtmux.ShellPane) {
	long := "echo " + strings.Repeat("x", 100)
	for _, tc := range []struct{ cmd, out string }{
		{"echo out-1; sh -c 'exit 3'", "out-1"},
		{long, strings.Repeat("x", 100)},
		{"echo again", "again"},
	} {
		res, err := engineRun(t, r, ts, p, tc.cmd, 20*time.Second)
		var nr *NotRun
		if p.Setup.Config == "printf-function" && errors.As(err, &nr) && strings.Contains(nr.Reason, "printf") {
			return // refused, naming the function: as good as defeating it
		}
		if err != nil || res.Outcome != Completed || res.Output != tc.out {
			t.Fatalf("%q: %+v %v; screen:\n%s", tc.cmd, res, err, p.S.Tmux("capture-pane", "-p", "-t", p.ID))
		}
		want := 0
		if tc.out == "out-1" {
			want = 3
		}
		if *res.ExitStatus != want {
			t.Errorf("%q: exit %d, want %d", tc.cmd, *res.ExitStatus, want)
		}
	}
	if !p.Setup.Fish {
		expansionError(t, r, ts, p)
	}
	question(t, r, ts, p)
	if p.Setup.Shell == "zsh" && p.Setup.Config != "printf-function" {
		zshHistory(t, p)
	}
}

// expansionError: a command ending on an expansion error completes at once with a failure
// status and its message (zsh's subshell exits without its EXIT trap then).
func expansionError(t *testing.T, r *Runner, ts *tmux.Server, p *testtmux.ShellPane) {
	t.Helper()
	res, err := engineRun(t, r, ts, p, "echo out-2; : ${no_such_var:?must be set}; echo not reached", 20*time.Second)
	if err != nil || res.Outcome != Completed || *res.ExitStatus == 0 || !strings.HasPrefix(res.Output, "out-2\n") ||
		!strings.Contains(res.Output, "must be set") || strings.Contains(res.Output, "not reached") {
		t.Fatalf("expansion error: %+v %v; screen:\n%s", res, err, p.S.Tmux("capture-pane", "-p", "-t", p.ID))
	}
}

// zshHistory: zsh's history holds at most the first run's typed line (the hook that run
// installed keeps the others out), none with HIST_IGNORE_SPACE.
func zshHistory(t *testing.T, p *testtmux.ShellPane) {
	t.Helper()
	p.WaitPrompt()
	p.Type("fc -l 1 > ~/hist.tmp 2>&1; mv ~/hist.tmp ~/hist.txt")
	var list string
	deadline := time.Now().Add(testtmux.PromptWait)
	for {
		if b, err := os.ReadFile(filepath.Join(p.Home, "hist.txt")); err == nil {
			list = string(b)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no history listing; screen:\n%s", p.S.Tmux("capture-pane", "-p", "-t", p.ID))
		}
		time.Sleep(20 * time.Millisecond)
	}
	want := 1
	if p.Setup.Config == "ignore-space" {
		want = 0
	}
	n := 0
	for _, line := range strings.Split(list, "\n") {
		// The plugins set-ups' history holds a line an earlier server typed (in .../old/).
		if strings.Contains(line, "tmux-mcp-") && !strings.Contains(line, "/old/") {
			n++
		}
	}
	if n > want {
		t.Errorf("the history holds %d typed lines of the framing, want at most %d:\n%s", n, want, list)
	}
}

// question runs a command that asks for a line: the call returns once it waits (well before
// its timeout), says so with the question, takes the answer, and the run ends.
func question(t *testing.T, r *Runner, ts *tmux.Server, p *testtmux.ShellPane) {
	t.Helper()
	cmd := `printf 'name: '; read x; echo "got $x"`
	if p.Setup.Fish {
		cmd = `printf 'name: '; read x; echo "got $x"`
	}
	const timeout = 2 * time.Minute
	res, err := engineRun(t, r, ts, p, cmd, timeout)
	if err != nil || !res.StillRunning || !res.WaitingForInput || res.Elapsed > timeout/2 {
		t.Fatalf("question: %+v %v", res, err)
	}
	if !p.Setup.Fish && res.Prompt != "name: " {
		t.Errorf("question: prompt %q, want %q", res.Prompt, "name: ")
	}
	k := keyOf(t, ts, tmux.Pane{PaneID: p.ID})
	if err := r.Input(k, "bob", func() error {
		_, err := p.S.TryTmux("send-keys", "-t", p.ID, "-l", "bob")
		if err == nil {
			_, err = p.S.TryTmux("send-keys", "-t", p.ID, "Enter")
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	fin := r.Await(ctx, r.Last(k), nil)
	if fin.Outcome != Completed || !strings.HasSuffix(fin.Output, "got bob") {
		t.Fatalf("after the answer: %+v", fin)
	}
}

// printfFunction is zsh with a function named printf that passes its arguments on (as a
// logging wrapper would): the framing must not depend on it.
func printfFunction() testtmux.Setup {
	return testtmux.Config("zsh", "rc").With("printf-function", `printf() { builtin print -n x >> ~/.printf-calls; builtin printf "$@"; }`)
}

// TestEngineNestedAndNarrow: with and without the process table, a run into a sh started at a
// zsh prompt (then into the zsh again once it exits), and a run in mksh in a pane 10 columns
// wide.
func TestEngineNestedAndNarrow(t *testing.T) {
	tmx, ts := realEngine(t)
	for _, tb := range tables {
		t.Run(tb.name, func(t *testing.T) {
			t.Parallel()
			r := New()
			r.table = tb.table
			t.Cleanup(r.Close)
			t.Run("zsh-sh", func(t *testing.T) {
				testtmux.RequireShell(t, testtmux.Zsh)
				t.Parallel()
				p := tmx.StartShell(t, testtmux.Config("zsh", "clean"))
				defer p.Kill()
				p.Type("sh")
				p.WaitState("sh at its prompt", func(string, string) bool {
					out, err := p.S.TryTmux("display-message", "-p", "-t", p.ID, "#{pane_current_command}")
					return err == nil && out == "sh"
				})
				p.WaitPrompt()
				for _, cmd := range []string{"echo nested", "exit"} {
					if cmd == "exit" {
						p.Type("exit")
						p.WaitState("zsh again", func(string, string) bool {
							out, err := p.S.TryTmux("display-message", "-p", "-t", p.ID, "#{pane_current_command}")
							return err == nil && out == "zsh"
						})
						p.WaitPrompt()
						cmd = "echo back"
					}
					res, err := engineRun(t, r, ts, p, cmd, 20*time.Second)
					if err != nil || res.Outcome != Completed || res.Output != strings.TrimPrefix(cmd, "echo ") {
						t.Fatalf("%q: %+v %v", cmd, res, err)
					}
				}
			})
			t.Run("mksh-narrow", func(t *testing.T) {
				testtmux.RequireShell(t, testtmux.Mksh)
				t.Parallel()
				p := tmx.StartShell(t, testtmux.Config("mksh", "clean"))
				defer p.Kill()
				p.S.Tmux("resize-window", "-t", p.ID, "-x", "10", "-y", "24")
				p.WaitState("10 columns", func(string, string) bool {
					out, err := p.S.TryTmux("display-message", "-p", "-t", p.ID, "#{pane_width}")
					return err == nil && out == "10"
				})
				for _, cmd := range []string{"echo narrow-1", "echo narrow-2"} {
					res, err := engineRun(t, r, ts, p, cmd, 20*time.Second)
					if err != nil || res.Outcome != Completed || res.Output != strings.TrimPrefix(cmd, "echo ") {
						t.Fatalf("%q: %+v %v; screen:\n%s", cmd, res, err, p.S.Tmux("capture-pane", "-p", "-t", p.ID))
					}
				}
			})
		})
	}
}

// realEngine is a private tmux server and an engine on it, both ended with the test.
func realEngine(t *testing.T) (*testtmux.Server, *tmux.Server) {
	t.Helper()
	testtmux.Require(t)
	tmx := testtmux.New(t)
	ts := tmux.NewServer(tmux.Config{SocketPath: tmx.Socket, Env: tmx.Env})
	t.Cleanup(ts.Close)
	return tmx, ts
}

// realRunner is realEngine with a Runner, ended with the test.
func realRunner(t *testing.T) (*testtmux.Server, *tmux.Server, *Runner) {
	t.Helper()
	tmx, ts := realEngine(t)
	r := New()
	t.Cleanup(r.Close)
	return tmx, ts, r
}

// TestEngineViCommandMode: with text left on the command line and the vi line editor in
// command mode (Escape pressed), a run in fish (TERM=xterm-256color, see testtmux's vi set-up)
// and mksh clears the text and runs at the first attempt, leaving nothing of the typed line or
// the text on the screen; so does zsh, with its plugins too (its clearing keys leave command
// mode: Escape, "0", "S"). (ksh93 is left out: with keys in a burst it skips redrawing the
// line, so the cleared text stays drawn, though it is not run.)
func TestEngineViCommandMode(t *testing.T) {
	tmx, ts, r := realRunner(t)
	sus := []testtmux.Setup{testtmux.Config("fish", "vi"), testtmux.Config("mksh", "vi"), testtmux.Config("zsh", "vi"), testtmux.ZshPlugins()[1]}
	for _, su := range sus {
		t.Run(su.Name(), func(t *testing.T) {
			su.Require(t)
			t.Parallel()
			p := tmx.StartShell(t, su)
			defer p.Kill()
			p.S.Tmux("send-keys", "-t", p.ID, "-l", "echo half-typed")
			p.WaitState("the pending text", func(_, before string) bool { return strings.HasSuffix(before, "half-typed") })
			p.Keys("Escape")
			if su.ViIndicator != nil {
				p.WaitState("vi command mode", func(screen, _ string) bool { return su.ViIndicator.MatchString(screen) })
			} else {
				time.Sleep(time.Second) // mksh's escape timeout; nothing shows the mode
			}
			res, err := engineRun(t, r, ts, p, "echo after-escape", 20*time.Second)
			screen := p.S.Tmux("capture-pane", "-p", "-t", p.ID)
			if err != nil || res.Outcome != Completed || res.Output != "after-escape" {
				t.Fatalf("%+v %v; screen:\n%s", res, err, screen)
			}
			if strings.Contains(screen, "tmux-mcp-") || strings.Contains(screen, "half-typed") {
				t.Errorf("the screen shows the typed line or the cleared text:\n%s", screen)
			}
		})
	}
}
