package runner

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/termstate"
	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// paneShape is a pane's size as agents' layouts leave it: after split_window, narrow or short;
// zoomed to the whole window. runs are the indexes in narrowRuns of the runs made in it.
type paneShape struct {
	name string
	w, h int  // the pane's size (unzoomed)
	zoom bool // zoomed (resize-pane -Z) to the window's 80x24
	runs []int
	// tiny: narrower than the prompts; the run must complete or be refused with what to
	// do, leaving nothing of the wrapper, but where the prompt is shown is the shell's (and
	// tmux's reflow's) affair.
	tiny bool
}

var paneShapes = []paneShape{
	{name: "45x18", w: 45, h: 18, runs: []int{0, 1, 2, 3, 4, 5}},
	{name: "20x18", w: 20, h: 18, runs: []int{1, 2, 4}},
	{name: "59x3", w: 59, h: 3, runs: []int{0, 5}},
	{name: "30x8", w: 30, h: 8, runs: []int{1, 4}},
	{name: "zoomed", w: 30, h: 8, zoom: true, runs: []int{0}},
	{name: "10x2", w: 10, h: 2, runs: []int{0}, tiny: true},
}

// narrowRun is one run of TestEngineNarrow: cmd prints out and ends with status. In cmd and
// out, "{n}" stands for a number of its own, so that each run's lines are found on the
// screen.
type narrowRun struct {
	cmd, out string
	status   int
}

var narrowRuns = []narrowRun{
	{cmd: "echo n{n}", out: "n{n}"},
	{cmd: "echo n{n}-" + strings.Repeat("x", 70), out: "n{n}-" + strings.Repeat("x", 70)},
	{cmd: "echo n{n}a\necho n{n}b", out: "n{n}a\nn{n}b"},
	{cmd: "echo 日本語 n{n}", out: "日本語 n{n}"},
	{cmd: "echo n{n}-" + strings.Repeat("日本語", 12), out: "n{n}-" + strings.Repeat("日本語", 12)},
	{cmd: "echo n{n}; sh -c 'exit 3'", out: "n{n}", status: 3},
}

// TestEngineNarrow: in every set-up, with and without the process table, in panes shaped as
// agents' layouts leave them (narrow, short, zoomed, 10x2), runs of one line, one longer than
// the pane is wide, several lines and wide characters complete at once with their exact output
// and status, or are refused as the pane is too short for the typed line, saying how high it
// must be (then, zoomed, they complete); the screen and the scrollback then show each command
// after its prompt and its output, nothing of the wrapper, with the lines of the run before
// intact.
func TestEngineNarrow(t *testing.T) {
	tmx, ts := realEngine(t)
	for _, tb := range tables {
		t.Run(tb.name, func(t *testing.T) {
			t.Parallel()
			r := New()
			r.table = tb.table
			t.Cleanup(r.Close)
			sus := []testtmux.Setup{}
			for _, sh := range testtmux.ShellNames() {
				sus = append(sus, testtmux.Configs(sh)...)
			}
			// powerlevel9k is left out: its prompt runs git and a dozen subshells at each
			// drawing, which zsh does again at each resize; on a loaded machine a run waits
			// seconds for that redraw to end, then for the prompt after it, past the echo wait
			// this test takes for a missed echo. TestEnginePrompts checks its runs' screens.
			sus = append(sus, testtmux.Liquidprompt("bash"), testtmux.Liquidprompt("zsh"))
			for _, su := range append(append(sus, testtmux.ZshPlugins()...), testtmux.ZshTransient()) {
				if tb.table != termstate.System && su.Config != "clean" {
					continue // without the process table, the clean set-ups: CI's time is bounded
				}
				t.Run(su.Name(), func(t *testing.T) {
					su.Require(t)
					t.Parallel()
					setupSem <- struct{}{}
					defer func() { <-setupSem }()
					p := tmx.StartShell(t, su)
					defer p.S.TryTmux("kill-window", "-t", p.ID)
					narrowCases(t, r, ts, p)
				})
			}
		})
	}
}

// narrowCases splits p's window (a pane right of p, one below it) and runs narrowRuns in p in
// each of paneShapes.
func narrowCases(t *testing.T, r *Runner, ts *tmux.Server, p *testtmux.ShellPane) {
	p.S.Tmux("split-window", "-h", "-d", "-t", p.ID, "-l", "20", "cat")
	p.S.Tmux("split-window", "-v", "-d", "-t", p.ID, "-l", "5", "cat")
	n := 0
	for _, sh := range paneShapes {
		if p.Setup.Name() == "mksh/vi" && sh.h < 18 {
			// mksh's vi mode keeps the width it had when its line began: after a resize at
			// its prompt it scrolls the line sideways a row at a time, as it would for a person.
			continue
		}
		shapePane(t, p, sh)
		for k, i := range sh.runs {
			n++
			narrowRunOne(t, r, ts, p, sh, narrowRuns[i], n)
			if k > 0 && !sh.tiny {
				aboveIntact(t, p, sh, narrowRuns[sh.runs[k-1]], n-1)
			}
		}
		if sh.zoom {
			p.S.Tmux("resize-pane", "-Z", "-t", p.ID)
		}
	}
}

// shapePane gives p the shape sh and waits until its shell is at its prompt again.
func shapePane(t *testing.T, p *testtmux.ShellPane, sh paneShape) {
	t.Helper()
	p.S.Tmux("resize-pane", "-t", p.ID, "-x", strconv.Itoa(sh.w), "-y", strconv.Itoa(sh.h))
	w, h := sh.w, sh.h
	if sh.zoom {
		p.S.Tmux("resize-pane", "-Z", "-t", p.ID)
		w, h = 80, 24
	}
	waitSize(t, p, w, h, true)
	// The shell redraws its prompt for the new size when it takes the signal, which on a busy
	// machine can be well after the terminal has the size: a line it runs is read after that.
	// (A run right after a resize is TestEngineResizeThenRun's.)
	if sh.h < 4 {
		time.Sleep(300 * time.Millisecond) // too short to show a line's output and the prompt
		return
	}
	word := "shaped" + strconv.Itoa(sh.w)
	p.Type("echo " + word)
	p.WaitState(word, func(screen, before string) bool {
		return regexp.MustCompile(`(?m)^`+word+`\s*$`).MatchString(screen) && (w < 20 || p.Setup.Prompt.MatchString(before))
	})
}

// waitSize waits until p is w x h, and with terminal so is its terminal (tmux passes the size
// on later, and the shell redraws then).
func waitSize(t *testing.T, p *testtmux.ShellPane, w, h int, terminal bool) {
	t.Helper()
	want := strconv.Itoa(w) + "x" + strconv.Itoa(h)
	p.WaitState(want, func(string, string) bool {
		out, err := p.S.TryTmux("display-message", "-p", "-t", p.ID, "#{pane_width}x#{pane_height} #{pane_tty}")
		size, tty, _ := strings.Cut(out, " ")
		cols, rows, terr := termstate.ReadSize(tty)
		return err == nil && size == want && (!terminal || terr == nil && cols == w && rows == h)
	})
}

// narrowRunOne runs nr (numbered n) in p and checks it as a person would see it. A pane too
// short for the typed line refuses the run, saying how high it must be: zoomed as the refusal
// says, it takes the run, and is unzoomed after.
func narrowRunOne(t *testing.T, r *Runner, ts *tmux.Server, p *testtmux.ShellPane, sh paneShape, nr narrowRun, n int) {
	t.Helper()
	num := strconv.Itoa(n)
	cmd := strings.ReplaceAll(nr.cmd, "{n}", num)
	out := strings.ReplaceAll(nr.out, "{n}", num)
	res, err := engineRun(t, r, ts, p, cmd, 20*time.Second)
	if _, ok := tooShortRefusal(t, p, sh, err); ok {
		t.Logf("%s: %q refused: %v", sh.name, cmd, err)
		p.S.Tmux("resize-pane", "-Z", "-t", p.ID)
		waitSize(t, p, 80, 24, false) // then run at once, as an agent would
		if p.Setup.Config == "transient" {
			// zsh's zle, after a resize, draws the transient prompt and the line accepted
			// next below their first drawing instead of over it (a person's line shows twice
			// too): that first drawing of the typed line stays. A line accepted first
			// clears the state.
			p.Type("echo zoomed")
			p.WaitState("the line accepted after the zoom", func(screen, before string) bool {
				return regexp.MustCompile(`(?m)^zoomed\s*$`).MatchString(screen) && p.Setup.Prompt.MatchString(before)
			})
		}
		defer waitSize(t, p, sh.w, sh.h, false)
		defer p.S.Tmux("resize-pane", "-Z", "-t", p.ID)
		res, err = engineRun(t, r, ts, p, cmd, 20*time.Second)
	}
	all := p.S.Tmux("capture-pane", "-p", "-J", "-t", p.ID, "-S", "-")
	if err != nil || res.Outcome != Completed || res.Output != out || *res.ExitStatus != nr.status {
		t.Errorf("%s: %q: %+v %v; scrollback:\n%s", sh.name, cmd, res, err, lastLines(all, 30))
		return
	}
	if res.Elapsed >= echoWait {
		t.Errorf("%s: %q took %v", sh.name, cmd, res.Elapsed)
	}
	if bad := narrowShown.FindString(all); bad != "" {
		t.Fatalf("%s: %q: the scrollback shows %q of the wrapper:\n%s", sh.name, cmd, bad, lastLines(all, 60))
	}
	if !sh.tiny && !shownAsTyped(all, cmd, out) {
		t.Errorf("%s: %q is not shown after its prompt, with its output below:\n%s", sh.name, cmd, lastLines(all, 30))
	}
}

// aboveIntact: the run before (nr, numbered n), above the last one, is still shown as it was:
// the last run's redraw erased nothing above its typed line.
func aboveIntact(t *testing.T, p *testtmux.ShellPane, sh paneShape, nr narrowRun, n int) {
	t.Helper()
	cmd := strings.ReplaceAll(nr.cmd, "{n}", strconv.Itoa(n))
	all := p.S.Tmux("capture-pane", "-p", "-J", "-t", p.ID, "-S", "-")
	if !shownAsTyped(all, cmd, strings.ReplaceAll(nr.out, "{n}", strconv.Itoa(n))) {
		t.Errorf("%s: the run after %q damaged its lines:\n%s", sh.name, cmd, lastLines(all, 30))
	}
}

// tooShortRefusal reports whether err refuses a run because the pane is too short for the
// typed line, and the rows it says the pane needs: more than it has, with a hint that says how
// to get them. Nothing of the wrapper may be on the screen or in the history then.
func tooShortRefusal(t *testing.T, p *testtmux.ShellPane, sh paneShape, err error) (int, bool) {
	t.Helper()
	var nr *NotRun
	if !errors.As(err, &nr) || !strings.Contains(nr.Hint, "resize_pane height=") {
		return 0, false
	}
	need, _ := strconv.Atoi(strings.TrimRight(strings.Fields(strings.SplitAfter(nr.Hint, "height=")[1])[0], ","))
	if sh.zoom || need <= sh.h || !strings.Contains(nr.Reason, fmt.Sprintf("%dx%d", sh.w, sh.h)) {
		t.Errorf("%s: refused as too short: %v (%s)", sh.name, nr, nr.Hint)
	}
	all := p.S.Tmux("capture-pane", "-p", "-J", "-t", p.ID, "-S", "-")
	if bad := narrowShown.FindString(all); bad != "" {
		t.Fatalf("%s: refused, but the scrollback shows %q of the wrapper:\n%s", sh.name, bad, lastLines(all, 60))
	}
	return need, true
}

// shownAsTyped reports whether the scrollback all (joined, capture-pane -J) shows cmd after a
// prompt, then out. Blanks do not count: a wide character that does not fit in a row's last
// column leaves it blank, as it does when a person types it.
func shownAsTyped(all, cmd, out string) bool {
	lines := strings.Split(cmd, "\n")
	// A right prompt may follow the first line. The prompt ends in a mark: liquidprompt's %
	// and ± too, powerlevel9k's segment separator and the ─ of its second row.
	pat := `(?m)[$#>❯%±─\x{e0b0}]` + regexp.QuoteMeta(unblank(lines[0])) + `\S*$`
	for _, l := range append(lines[1:], strings.Split(out, "\n")...) {
		pat += `\n` + regexp.QuoteMeta(unblank(l)) + `$`
	}
	return regexp.MustCompile(pat).MatchString(unblank(all))
}

// narrowShown matches what of the wrapper a screen could show.
var narrowShown = regexp.MustCompile(`tmx|tmux-mcp-|/dev/null|\\\. '|6973;|builtin source`)

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestEngineTooShort: in a pane fewer rows high than the typed line takes (split below to 3
// rows, 59 columns), a run is refused at once, naming the height it needs, with nothing typed;
// the screen would scroll the typed line's start into the pane's history, beyond the redraw's
// reach. At that height the run completes and nothing of the wrapper is in the history.
func TestEngineTooShort(t *testing.T) {
	tmx, ts := realEngine(t)
	for _, tb := range tables {
		for _, sh := range []string{"bash", "zsh"} {
			su := testtmux.Config(sh, "clean")
			inShell(t, tmx, tb.name+"/"+su.Name(), su, tb.table, func(t *testing.T, r *Runner, p *testtmux.ShellPane) {
				p.S.Tmux("split-window", "-h", "-d", "-t", p.ID, "-l", "20", "cat")
				p.S.Tmux("split-window", "-v", "-d", "-t", p.ID, "-l", "20", "cat")
				sh := paneShape{name: "59x3", w: 59, h: 3}
				shapePane(t, p, sh)
				_, err := engineRun(t, r, ts, p, "echo short", 20*time.Second)
				need, ok := tooShortRefusal(t, p, sh, err)
				if !ok {
					t.Fatalf("not refused: %v; scrollback:\n%s", err, p.S.Tmux("capture-pane", "-p", "-J", "-t", p.ID, "-S", "-"))
				}
				shapePane(t, p, paneShape{name: "taller", w: 59, h: need})
				narrowRunOne(t, r, ts, p, paneShape{name: "taller", w: 59, h: need}, narrowRun{cmd: "echo n{n}", out: "n{n}"}, 1)
			})
		}
	}
}

// TestEngineResizeThenRun: an agent resizes or zooms a pane and runs a command at once: tmux
// passes the new size on to the pane's terminal a moment later, and the shell redraws its
// prompt then. Each run completes and shows as typed, with nothing of the wrapper left.
func TestEngineResizeThenRun(t *testing.T) {
	tmx, ts := realEngine(t)
	for _, tb := range tables {
		for _, sh := range testtmux.ShellNames() {
			for _, su := range testtmux.Configs(sh)[:2] {
				inShell(t, tmx, tb.name+"/"+su.Name(), su, tb.table, func(t *testing.T, r *Runner, p *testtmux.ShellPane) {
					p.S.Tmux("split-window", "-h", "-d", "-t", p.ID, "-l", "20", "cat")
					p.S.Tmux("split-window", "-v", "-d", "-t", p.ID, "-l", "5", "cat")
					resizeThenRun(t, r, ts, p)
				})
			}
		}
	}
}

func resizeThenRun(t *testing.T, r *Runner, ts *tmux.Server, p *testtmux.ShellPane) {
	for i, resize := range [][]string{
		{"-x", "45"}, {"-x", "30"}, {"-Z"}, {"-Z"}, {"-x", "50", "-y", "10"}, {"-Z"}, {"-Z"}, {"-x", "59", "-y", "18"},
	} {
		p.S.Tmux(append([]string{"resize-pane", "-t", p.ID}, resize...)...)
		cmd, out := "echo r"+strconv.Itoa(i), "r"+strconv.Itoa(i)
		res, err := engineRun(t, r, ts, p, cmd, 20*time.Second)
		all := p.S.Tmux("capture-pane", "-p", "-J", "-t", p.ID, "-S", "-")
		if err != nil || res.Outcome != Completed || res.Output != out {
			t.Fatalf("resize-pane %v, %q: %+v %v; scrollback:\n%s", resize, cmd, res, err, lastLines(all, 30))
		}
		if bad := narrowShown.FindString(all); bad != "" {
			t.Fatalf("resize-pane %v, %q: the scrollback shows %q of the wrapper:\n%s", resize, cmd, bad, lastLines(all, 60))
		}
		if !shownAsTyped(all, cmd, out) {
			t.Errorf("resize-pane %v, %q is not shown after its prompt, with its output below:\n%s", resize, cmd, lastLines(all, 30))
		}
	}
}
