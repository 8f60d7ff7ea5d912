package runner

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/internal/termstate"
	"github.com/tmux-mcp/tmux-mcp/screen"
	"github.com/tmux-mcp/tmux-mcp/shellrun"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// Waits of the typing steps, each bounded by the run's own deadline too.
const (
	// shellWait bounds the wait for a shell to be at its prompt: one still starting (reading
	// its rc files), or taking the terminal back from a command that just ended.
	shellWait = 5 * time.Second
	// startupWait bounds the wait for a shell still starting, one that started less than this
	// long ago and is not at its prompt yet: it is waited for until this long after its start
	// (within the run's timeout), not shellWait. Start-up files that load nvm, conda or a
	// prompt framework take seconds, more on a loaded machine, and an agent runs its first
	// command in a pane it has just made.
	startupWait = time.Minute
	// echoWait bounds the wait for the shell to show the typed line.
	echoWait = 5 * time.Second
	// recheck is how often the shell's state is read again while nothing is printed, during
	// those two waits only.
	recheck = 25 * time.Millisecond
)

// NotRun says the pane's shell did not run the line that was typed: nothing of the command
// ran, and the pane is free.
type NotRun struct {
	Pane   string
	Reason string // what happened, in words
	Hint   string // what to do

	refused bool // the wrapper refused (a definition it cannot get past), or the terminal shows why the line was not shown: trying again is useless
}

func (e *NotRun) Error() string { return fmt.Sprintf("pane %s: %s", e.Pane, e.Reason) }

// awaitShell finds the shell that will read the typed line: the process leading the
// terminal's foreground group (at a prompt, the interactive shell), read from the process
// table, never tmux's #{pane_current_command}, which names the pane's start command for a
// moment after a command ends (a pane started as "env PS1=... bash" shows "env"). A shell still
// starting, or one that has not taken the terminal back yet, is waited for: each time the pane
// prints (its prompt, at the latest) and every recheck, up to shellWait. Without a process
// table (a pane on another host, a platform or process it cannot read), tmux's current command
// and the terminal's mode decide (awaitShellPortable); every use of the table depends on
// x.shell, which then stays 0.
func (x *run) awaitShell(ctx context.Context) error {
	p := x.req.pane
	t := x.r.table
	if !x.ts.Local() || !t.Available() || p.PanePID <= 0 {
		return x.awaitShellPortable(ctx)
	}
	w := shellWatch{deadline: time.Now().Add(shellWait)}
	for {
		leader, gone, ok := t.Foreground(p.PanePID)
		state, program := "busy", ""
		if ok && !gone {
			sh, isShell := shellrun.ShellOf(leader.Name)
			if ready, err := x.shellReady(ctx, &w, leader, sh, isShell); ready || err != nil {
				return err
			}
			if !isShell && leader.Name != "" {
				program = cmp.Or(leader.Comm, leader.Name)
				// A program waiting for input is the pane's own (vim, less, cat): refused at
				// once. One that runs may be on its way out or in: a launcher about to exec
				// the shell (env PS1=... ksh), a command of the shell's prompt hooks (printf)
				// that a loaded machine shows for longer, or of its start-up files (zsh runs
				// them in the foreground). It is waited for.
				if leader.WaitsInput() {
					return &Refusal{Reason: NotShell, Pane: p.PaneID, Program: program}
				}
			}
		} else if !ok {
			state = "unreadable"
		}
		if time.Now().After(w.deadline) || ctx.Err() != nil {
			switch {
			case w.young.PID != 0:
				return &Refusal{Reason: ShellBusy, Pane: p.PaneID, Program: p.PaneCurrentCommand, Running: x.busyWith(w.young.PID), Starting: time.Since(w.young.Started)}
			case program != "":
				return &Refusal{Reason: NotShell, Pane: p.PaneID, Program: program}
			case state == "unreadable":
				// The table does not tell (the pane's process is gone, or another user's).
				return x.awaitShellPortable(ctx)
			}
			return &Refusal{Reason: ShellBusy, Pane: p.PaneID, Program: p.PaneCurrentCommand, Running: x.busyWith(leader.PID)}
		}
		x.skip(ctx, w.deadline)
	}
}

// shellWatch is what awaitShell learnt of the pane's shell while it waits for its prompt.
type shellWatch struct {
	deadline time.Time
	young    termstate.Proc // the shell, when it is still starting (see starting)
	reading  time.Time      // since when the shell reads a line of its own (see readsLine)
	looked   bool           // the screen was looked at for a shell still starting
}

// shellReady looks at the terminal's foreground leader once, with the process table: ready
// when it is a shell at its prompt (x.sh and x.shell are set); an error when it is a shell
// reading a line of its own (for settle: a line editor's start may look so for a moment).
// A shell still starting moves w's deadline (see starting).
func (x *run) shellReady(ctx context.Context, w *shellWatch, leader termstate.Proc, sh shellrun.Shell, isShell bool) (bool, error) {
	waits := leader.WaitsInput()
	switch {
	case isShell && waits && x.readsLine(sh):
		if w.reading.IsZero() {
			w.reading = time.Now()
		} else if time.Since(w.reading) >= settle {
			return false, x.readingLine(ctx)
		}
	case isShell && waits:
		x.sh, x.shell = sh, leader.PID
		return true, nil
	default:
		w.reading = time.Time{}
	}
	if w.looked {
		return false, nil
	}
	if s, until, ok := x.starting(leader, isShell); ok {
		// Looked at once: a pane that shows nothing yet holds a shell still starting; one
		// busy otherwise (fzf on C-r, a command typed at its prompt) shows it.
		w.looked = true
		if x.blank(ctx) {
			w.young, w.deadline = s, maxTime(w.deadline, until)
		}
	}
	return false, nil
}

// readsLine reports whether shell sh, waiting for input, reads a line of its own rather than
// its command line: a shell with a line editor reads its command line in raw mode, so a
// terminal in canonical mode says it runs read (a question of its start-up files, "Project
// name: ", or a read typed at its prompt), which the typed line would answer.
func (x *run) readsLine(sh shellrun.Shell) bool {
	m, ok := x.mode()
	return ok && lineEditing[sh] && m.Canonical
}

// readingLine is the error of a run into a pane whose shell reads a line of its own (see
// readsLine): nothing was typed.
func (x *run) readingLine(ctx context.Context) error {
	q := "nothing shown"
	if b := x.screenBefore(ctx); b.ok {
		if left := strings.TrimSpace(b.left()); left != "" {
			q = strconv.Quote(truncate(left, 200))
		}
	}
	return &NotRun{Pane: x.req.pane.PaneID, refused: true,
		Reason: "its shell is reading a line of its own, not showing its prompt (a read in its start-up files, or one typed at its prompt), asking " + q + "; keys typed now would be its answer",
		Hint:   "Nothing was typed. Answer it if it is yours to answer (send_keys with the text; C-c interrupts the read, and with it the rest of a starting shell's start-up files), or leave the pane to the person; then run the command again."}
}

// starting finds a shell not at its prompt that may be still starting, from the terminal's
// foreground leader: the leader itself when it is a shell, else its parent (zsh runs the
// programs of its start-up files in the foreground), when that shell started less than
// startupWait ago. Once the pane is seen blank too (awaitShell), it is waited for until
// startupWait after its start, within the run's timeout (shellWait at least, as any shell).
func (x *run) starting(leader termstate.Proc, isShell bool) (sh termstate.Proc, until time.Time, ok bool) {
	sh = leader
	if !isShell {
		if sh, ok = x.r.table.Proc(leader.PPID); !ok {
			return sh, until, false
		}
		if _, isShell = shellrun.ShellOf(sh.Name); !isShell {
			return sh, until, false
		}
	}
	if sh.Started.IsZero() || time.Since(sh.Started) >= startupWait {
		return sh, until, false
	}
	return sh, x.startBound(sh.Started), true
}

// startBound is how long a shell that started at started is waited for while it starts:
// until startupWait after its start, and no longer than the run's timeout.
func (x *run) startBound(started time.Time) time.Time {
	return minTime(started.Add(startupWait), x.rec.Started.Add(x.req.Timeout))
}

// busyWith names the programs a shell that is not at its prompt runs itself, in its own
// process group (up to 3, "" when none): fzf that a key binding started (C-r), the command of a
// loop typed at the prompt.
func (x *run) busyWith(shell int) string {
	procs, _ := x.r.table.Descendants(shell, 64)
	var names []string
	for _, p := range procs {
		if _, isShell := shellrun.ShellOf(p.Name); !isShell && p.Name != "" {
			names = append(names, cmp.Or(p.Comm, p.Name))
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	return strings.Join(names[:min(3, len(names))], ", ")
}

// awaitPrompt waits, up to shellWait, until the shell the line was typed into waits for input
// again (known from the process table, or the terminal's mode; else it returns at once).
func (x *run) awaitPrompt(ctx context.Context) {
	deadline := time.Now().Add(shellWait)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if x.shell != 0 {
			if p, ok := x.r.table.Proc(x.shell); !ok || p.WaitsInput() {
				return
			}
		} else if !x.rawPrompt || x.backAtPrompt() {
			return
		}
		x.skip(ctx, deadline)
	}
}

// skip waits until the pane prints, recheck passes or deadline comes, and skips what was
// printed (a prompt, a shell's start-up text: nothing of the run).
func (x *run) skip(ctx context.Context, deadline time.Time) {
	x.waited = true
	wctx, cancel := context.WithDeadline(ctx, minTime(deadline, time.Now().Add(recheck)))
	x.f.Wait(wctx)
	cancel()
	x.f.Read(ctx, 0)
}

// maxTime is the later of a and b.
func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// typeLine empties the shell's command line and types line (without Enter) in one command
// list, then waits until the shell shows it. A line the shell does not show as typed (a line
// editor in vi command mode takes the keys as commands) is never entered: the command line is
// cleared again and a *NotRun says so.
func (x *run) typeLine(ctx context.Context, line string) error {
	groups := shellrun.ClearKeys(x.sh, x.retried)
	for _, g := range groups[:len(groups)-1] {
		if err := x.keys(ctx, g); err != nil {
			return err
		}
		time.Sleep(shellrun.EscapeGap)
	}
	if err := x.keys(ctx, groups[len(groups)-1], line); err != nil {
		return err
	}
	var f stream.Filter
	var drawn []byte // the text the shell drew since, without controls
	deadline := time.Now().Add(echoWait)
	// The screen is read when the stream brought output that does not show the line, or
	// brought nothing for recheck: not before the echo had time to come (a round trip saved).
	fresh, looked := false, time.Now()
	for {
		ch, err := x.f.Read(ctx, readChunk)
		if data := ch.Data; len(data) > 0 {
			f.Write(data)
			if len(drawn) < maxDrawn {
				drawn = appendText(drawn, data)
			}
			if shows(f.Partial(), line) {
				x.lastScreen = nil // read before the echo
				return x.echoed(ctx, drawn, line)
			}
			// The screen can show the line only once the shell drew its last character: what
			// comes before (the echo of the clearing keys) is waited past, not looked at.
			fresh = fresh || bytes.IndexByte(drawn, lastChar(line)) >= 0
			continue
		}
		if err != nil {
			return fmt.Errorf("pane %s went away: %w", x.req.pane.PaneID, err)
		}
		// A line editor that draws a long line row by row with cursor movements (fish, zsh)
		// leaves no one line in the stream to compare, and one that draws a right prompt
		// after the line (fish, zsh's RPROMPT redrawn) ends the stream's line with it: the
		// screen tells, left of the cursor, where the shell draws what is typed.
		if fresh || time.Since(looked) >= recheck || time.Now().After(deadline) {
			fresh, looked = false, time.Now()
			if x.screenShows(ctx, line, drawn) {
				return x.echoed(ctx, drawn, line)
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return x.notShown(ctx, f.Partial(), line)
		}
		wctx, cancel := context.WithDeadline(ctx, minTime(deadline, time.Now().Add(recheck)))
		x.f.Wait(wctx)
		cancel()
	}
}

// notShown clears the command line of a shell that did not show line as typed (partial is
// the stream's last line) and says so.
func (x *run) notShown(ctx context.Context, partial, line string) error {
	shown := strings.TrimSpace(partial)
	if t, ok := x.screenText(ctx, line, false); ok {
		shown = strings.TrimSpace(t[max(0, len(t)-len(line)-8):])
	}
	// C-c, which leaves a line editor in any mode with an empty line at the prompt.
	x.clearLine(ctx)
	hint, final := x.notShownHint(ctx)
	return &NotRun{Pane: x.req.pane.PaneID, refused: final,
		Reason: fmt.Sprintf("its shell did not show the typed line as typed within %v (the command line shows %q)", echoWait, truncate(shown, 120)),
		Hint:   hint}
}

// notShownHint says what to do about a shell that did not show a typed line; final says
// another try would fail too (leftCause). Else a line editor in vi command mode, or bash's
// readline under stty -echo, which echoes nothing in a raw mode that looks like any other.
func (x *run) notShownHint(ctx context.Context) (hint string, final bool) {
	if hint, final, ok := x.leftCause(ctx); ok {
		return hint, final
	}
	return `If its line editor is in vi command mode, leave it (send_keys keys="i" enter=false, or C-c); if an earlier command turned the terminal's echo off (stty -echo), send_keys keys="stty echo"` + retryHint, false
}

const retryHint = ", then run the command again; nothing was run."

// leftCause tells, from the pane's terminal, what an earlier command left that keeps a shell
// from drawing a typed line as typed, and what to do: echo off (stty -echo, seen in the
// terminal's mode when no line editor reads it), or a size that is not the pane's (stty
// cols/rows: a line editor then wraps the line where the screen does not). final says another
// try would fail too: a size apart may also be a resize under way (a person dragging their
// terminal's edge), which tmux passes on to the terminal late, and the keys the hint gives
// are harmless then.
func (x *run) leftCause(ctx context.Context) (hint string, final, ok bool) {
	tty := x.req.pane.PaneTTY
	if x.ts == nil || !x.ts.Local() {
		return "", false, false
	}
	if m, err := termstate.ReadMode(tty); err == nil && m.Hidden() {
		return `The pane's terminal has echo off (an earlier command ran stty -echo and left it so): turn it on with send_keys keys="stty echo"` + retryHint, true, true
	}
	if cols, rows, w, h, ok := x.sizeApart(ctx, tty); ok {
		return fmt.Sprintf(`The pane's terminal says it is %dx%d but the pane is %dx%d (an earlier command ran stty cols/rows, or the pane is being resized): set it back with send_keys keys="stty cols %d rows %d"`,
			cols, rows, w, h, w, h) + retryHint, false, true
	}
	return "", false, false
}

// sizeApart reports the size the terminal at tty says (cols x rows) when it differs from the
// pane's (w x h) and stays so a moment later: tmux passes a pane's resize on to its terminal
// a little after the pane's own size changed, so a pane being resized shows a difference that
// no command left (a long resize still can).
func (x *run) sizeApart(ctx context.Context, tty string) (cols, rows, w, h int, ok bool) {
	look := func() (c, r, w, h int, ok bool) {
		c, r, err := termstate.ReadSize(tty)
		s, shown := x.screen(ctx)
		return c, r, s.Width, s.Height, err == nil && shown && (c != s.Width || r != s.Height)
	}
	cols, rows, w, h, ok = look()
	if !ok {
		return 0, 0, 0, 0, false
	}
	select {
	case <-ctx.Done():
		return 0, 0, 0, 0, false
	case <-time.After(sizeSettle):
	}
	c, r, w2, h2, ok := look()
	return cols, rows, w, h, ok && c == cols && r == rows && w2 == w && h2 == h
}

// awaitSize waits, up to resizeWait, until the pane's terminal has the pane's size, then
// until the shell's redraw for it is over (the shell reading again, the pane quiet for
// resizeQuiet). tmux passes a resize (resize_pane, a zoom) on to the terminal up to 250 ms
// after the pane's own size changed; the shell then redraws its prompt where the new size
// puts it, and a line typed meanwhile is found on the screen at rows the redraw moves: the
// wrapper's redraw would put the command on the wrong row and leave the typed line's rows on
// the screen. A terminal that keeps another size (stty cols) is leftCause's.
func (x *run) awaitSize(ctx context.Context) {
	if x.ts == nil || !x.ts.Local() {
		return
	}
	w, h := x.req.pane.PaneWidth, x.req.pane.PaneHeight // the snapshot's: no round trip
	deadline := time.Now().Add(resizeWait)
	for resized := false; ; resized = true {
		cols, rows, err := termstate.ReadSize(x.req.pane.PaneTTY)
		if err != nil || time.Now().After(deadline) || ctx.Err() != nil {
			return
		}
		if resized {
			s, ok := x.screen(ctx)
			if !ok {
				return
			}
			w, h = s.Width, s.Height
		}
		if cols == w && rows == h {
			// Without a process table, a pane resized since its last run may have its
			// shell still redrawing for it, though the size came long ago.
			if x.awaitShellRead(ctx, deadline) || resized || x.shell == 0 && x.resized {
				x.awaitQuiet(ctx, time.Now().Add(resizeWait))
			}
			return
		}
		x.skip(ctx, deadline)
	}
}

// awaitShellRead waits, until deadline, for the pane's shell to sleep in a read of its terminal
// (known from the process table; else it returns at once), and reports whether it had to. The
// resize's SIGWINCH wakes the shell as the terminal gets its size, and it redraws its prompt
// before it reads again: on a loaded machine that can be long after the size was seen, and a
// line typed before the redraw is found at rows the redraw then moves.
func (x *run) awaitShellRead(ctx context.Context, deadline time.Time) (waited bool) {
	for x.shell != 0 && ctx.Err() == nil && time.Now().Before(deadline) {
		if p, ok := x.r.table.Proc(x.shell); !ok || p.WaitsInput() {
			return waited
		}
		waited = true
		time.Sleep(shellReadPoll)
	}
	return waited
}

// shellReadPoll is how often awaitShellRead looks: a /proc read, no tmux round trip.
const shellReadPoll = 10 * time.Millisecond

// resizeWait bounds awaitSize's wait for a resize to reach the pane's terminal.
const resizeWait = time.Second

// awaitQuiet waits until the pane printed nothing for resizeQuiet, or deadline.
func (x *run) awaitQuiet(ctx context.Context, deadline time.Time) {
	for time.Now().Before(deadline) && ctx.Err() == nil {
		off := x.f.Offset()
		wctx, cancel := context.WithDeadline(ctx, minTime(deadline, time.Now().Add(resizeQuiet)))
		x.f.Wait(wctx)
		cancel()
		x.f.Read(ctx, 0)
		if x.f.Offset() == off {
			return
		}
	}
}

// resizeQuiet is how long a shell's redraw for a new size may pause (fish redraws its prompt
// after its own event loop comes round).
const resizeQuiet = 100 * time.Millisecond

// sizeSettle is how long sizeApart waits for a resize under way to reach the terminal.
const sizeSettle = 300 * time.Millisecond

// lastChar is the last character of line that a shell draws (not a blank).
func lastChar(line string) byte {
	if t := strings.TrimRight(line, " "); t != "" {
		return t[len(t)-1]
	}
	return ' '
}

// maxDrawn bounds what typeLine keeps of the echo: a typed line and a few redraws of it.
const maxDrawn = 64 << 10

// echoed checks, once the shell drew the end of the typed line, that it also drew its start
// as typed: a line editor in vi command mode takes the first keys as commands (an "i" or "a"
// among them then inserts the rest, whose end looks right). Such a line is never entered:
// C-c empties it and a *NotRun says so.
func (x *run) echoed(ctx context.Context, drawn []byte, line string) error {
	head := strings.TrimLeft(line, " ")
	head = head[:min(len(head), 24)]
	if strings.Contains(unblank(string(drawn)), unblank(head)) {
		return nil
	}
	// The screen may be ahead of the stream, whose notifications come separately; and the
	// line may have begun rows above where its length says (a prompt drawn again above it).
	if t, ok := x.screenText(ctx, line, true); ok && strings.Contains(unblank(t), unblank(head)) {
		return nil
	}
	if x.sh == shellrun.Mksh && len(line) > x.req.pane.PaneWidth-2 {
		// mksh scrolls a line wider than the pane sideways, drawing it a window at a time:
		// its start is never drawn whole. Its end, drawn as typed, is all there is to see.
		return nil
	}
	x.clearLine(ctx)
	if hint, final, ok := x.leftCause(ctx); ok {
		return &NotRun{Pane: x.req.pane.PaneID, refused: final, Reason: "its shell did not draw the typed line as typed", Hint: hint}
	}
	return &NotRun{Pane: x.req.pane.PaneID,
		Reason: "its shell took the start of the typed line as editing commands (a line editor in vi command mode)",
		Hint:   "Nothing was run; the command line was emptied with C-c. Run the command again."}
}

// appendText appends the printable text of terminal output p to dst: escape sequences and
// control characters are dropped, so text a line editor drew in pieces reads in one.
func appendText(dst, p []byte) []byte {
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == 0x1b && i+1 < len(p) && p[i+1] == '[':
			for i += 2; i < len(p) && (p[i] < 0x40 || p[i] > 0x7e); i++ {
			}
		case c == 0x1b && i+1 < len(p) && p[i+1] == ']':
			for i += 2; i < len(p) && p[i] != 0x07 && !(p[i] == 0x1b && i+1 < len(p) && p[i+1] == '\\'); i++ {
			}
			if i < len(p) && p[i] == 0x1b {
				i++ // the ST's backslash
			}
		case c == 0x1b:
			i++
		case c >= 0x20 && c != 0x7f:
			dst = append(dst, c)
		}
	}
	return dst
}

// before is the screen as the typed line began: the cursor, the rows, the width and the
// history size and limit. ok is false when unknown.
type before struct {
	x, y, cols, hist, limit int
	rows                    []string
	ok                      bool
}

// screenBefore reads the screen before anything is typed.
func (x *run) screenBefore(ctx context.Context) before {
	s, ok := x.screen(ctx)
	if !ok {
		return before{}
	}
	return before{x: s.CursorX, y: s.CursorY, cols: s.Width, hist: s.HistorySize, limit: s.HistoryLimit, rows: s.rows, ok: true}
}

// fit returns line with a space more in front when, typed at the cursor of b, it would end
// in the screen's last column: the cursor then waits there to wrap, and shells disagree on
// whether Enter still needs a new line (fish writes none), which would misplace the redraw.
func (b before) fit(line string) string {
	w := 0
	for _, r := range line {
		w += screen.CellWidth(r)
	}
	if b.ok && (b.x+w)%b.cols == 0 {
		return " " + line
	}
	return line
}

// rowsFor is how many rows of the screen line takes, typed at the cursor of b, with the row
// below it that Enter moves the cursor to; 0 when unknown.
func (b before) rowsFor(line string) int {
	if !b.ok {
		return 0
	}
	return (b.x+cellsOf(line)+b.cols-1)/b.cols + 1
}

// tooShort refuses to type line into a pane with fewer rows than it takes (see before.rowsFor):
// the screen scrolls its start into the pane's history, which no redraw can reach, and the
// wrapper's text would stay there for good. Not mksh, which scrolls a long line sideways on
// its row.
func (x *run) tooShort(line string) error {
	need := x.before.rowsFor(line)
	if x.sh == shellrun.Mksh || need <= len(x.before.rows) {
		return nil
	}
	return &NotRun{Pane: x.req.pane.PaneID, refused: true,
		Reason: fmt.Sprintf("the pane is %dx%d: the line typed to run a command (%d characters) would take %d rows there, so its start would scroll into the pane's history and stay visible there; nothing was typed",
			x.before.cols, len(x.before.rows), len(line), need),
		Hint: fmt.Sprintf("Make the pane at least %d rows high (resize_pane height=%d, or zoom=true), or run the command in a larger pane; then run it again.", need, need)}
}

// start returns the row, on the screen rows (read with hist rows of history), where the
// cursor of b now is, or false when that cannot be known. Rows scrolled into the history
// since b say how far it moved, while the history is below its limit; at the limit, the rows
// above the cursor's are looked for on the screen, the nearest first.
func (b before) start(rows []string, hist int) (int, bool) {
	if !b.ok {
		return 0, false
	}
	if hist < b.limit {
		row := b.y - (hist - b.hist)
		return row, row >= 0 && row < len(rows)
	}
	for s := 0; s <= b.y; s++ {
		if b.y-s < len(rows) && slices.Equal(b.rows[s:b.y], rows[:b.y-s]) {
			return b.y - s, true
		}
	}
	return 0, false
}

// shellQuestion matches the end of what a shell shows, left of the cursor, when it waits for a
// one-key answer rather than a command line: zsh's spelling correction (its SPROMPT, by default
// "zsh: correct 'x' to 'y' [nyae]? ", often "... [Yes, No, Abort, Edit]? ") and its check
// before rm * ("zsh: sure you want to delete all 3 files in /tmp [yn]? "). zsh reads keys
// until one it accepts: the typed line would answer it for the person (with the "n" in its
// "functions", running a command as mistyped) and lose its start. And the question before
// listing many completions, after a Tab (bash's readline: "Display all 1173 possibilities? (y
// or n)"; zsh: "zsh: do you wish to see all 1173 possibilities (391 lines)? "), and readline's
// pager of that list ("--More--"): the line's first space would answer yes. And a yes-or-no
// question of the shell's start-up files, read one key at a time ("[oh-my-zsh] Would you like
// to update? [Y/n] "; also "(y/n)", "[yes/no]"): the typed line's first key would answer it.
var shellQuestion = regexp.MustCompile(`(?i)(\[(nyae|yn|yes, no, abort, edit)\]\??:?|possibilities\? \(y or n\)|possibilities \(\d+ lines?\)\?|--More--|[\[(](y/n|yes/no)[\])]\??:?)$`)

// question returns the question the shell asks at the cursor of b (see shellQuestion), with
// the row above when the question wrapped onto the cursor's row.
func (b before) question() (string, bool) {
	if !b.ok {
		return "", false
	}
	q := strings.TrimRight(b.left(), " ")
	if !shellQuestion.MatchString(q) {
		return "", false
	}
	if above := b.y - 1; above >= 0 && cellsOf(b.rows[above]) >= b.cols {
		q = b.rows[above] + q // a full row above: the question wrapped
	}
	return q, true
}

// cellsOf is how many cells text takes on the screen.
func cellsOf(text string) int {
	w := 0
	for _, r := range text {
		w += screen.CellWidth(r)
	}
	return w
}

// asked is the error of a run into a pane whose shell asks a question (see question): nothing
// was typed, and the person's answer is theirs to give.
func asked(pane, q string) *NotRun {
	return &NotRun{Pane: pane, refused: true,
		Reason: fmt.Sprintf("its shell is asking a question, not showing its prompt: %q; keys typed now would answer it", truncate(q, 200)),
		Hint:   `Nothing was typed. Answer the question if it is yours to answer (send_keys keys="n" enter=false declines; "a" aborts a spelling correction; "q" ends a --More-- list), or leave the pane to the person; then run the command again.`}
}

// left is the text of the cursor's row of b left of the cursor.
func (b before) left() string {
	return cellText(screenCells(b.rows[b.y:b.y+1], b.cols)[:min(b.x, b.cols)])
}

// screenShows reports whether the rows of the screen that can hold line, up to the cursor's,
// read one after the other, end with line's last 32 bytes (blanks aside: see shows), or the
// cursor's row ends a line the shell misdrew where it wraps (see misdrawnEnd); drawn
// is the text the shell drew since typing.
func (x *run) screenShows(ctx context.Context, line string, drawn []byte) bool {
	t, ok := x.screenText(ctx, line, false)
	if !ok {
		return false
	}
	tail, t := unblank(line), unblank(t)
	if strings.HasSuffix(t, tail[max(0, len(tail)-32):]) || x.misdrawnEnd(line, tail, drawn) {
		return true
	}
	// A pane too narrow for the line: mksh scrolls it sideways and shows only what fits on
	// the cursor's row before the cursor, after its first character (a prompt's ❯, or the
	// "<" that says the line goes on to the left): at least 4 bytes; echoed checks its start.
	row := unblank(x.lastRow)
	_, first := utf8.DecodeRuneInString(row)
	k := min(len(tail), len(row)-first, 32)
	return k >= 4 && len(line) > x.req.pane.PaneWidth && strings.HasSuffix(t, tail[len(tail)-k:])
}

// misdrawnEnd reports whether the cursor's row, from its first column, holds the end of the
// typed line (tail, without blanks) as the shell last drew it, when the shell cannot know
// where its line wraps. A line editor in a C locale counts a prompt's multibyte characters'
// bytes as columns and wraps the line that many columns early; zsh then goes to its next row
// with a carriage return and erases that row, which on the screen is the prompt's own: the
// prompt and the line's start are wiped, and what follows the wrap (maybe only "}") is drawn
// there. Readline assumes its prompt begins in column 0, which it does not after output
// without a final line break (a C-c's "^C", printf): the terminal wraps the line first, and
// readline, at what it takes for the row's end, returns to the row's start and draws the rest
// over the line's first bytes there. It must end what the shell drew since typing, so that a
// row left from before (a retry's) does not count.
func (x *run) misdrawnEnd(line, tail string, drawn []byte) bool {
	if !x.before.ok || !x.before.bytesWide() && !x.before.wraps(line) {
		return false
	}
	row := unblank(x.lastRow)
	recent := unblank(string(drawn[max(0, len(drawn)-2*len(tail)):]))
	return row != "" && strings.HasSuffix(tail, row) && strings.HasSuffix(recent, row)
}

// bytesWide reports whether the text left of the cursor of b has more bytes than cells: a
// line editor measuring it in bytes (a C locale) puts the cursor further right than it is.
func (b before) bytesWide() bool {
	left := b.left()
	w := 0
	for _, r := range left {
		w += screen.CellWidth(r)
	}
	return len(left) > w
}

// wraps reports whether line, typed at the cursor of b, reaches past the row's end.
func (b before) wraps(line string) bool {
	w := 0
	for _, r := range line {
		w += screen.CellWidth(r)
	}
	return b.x+w > b.cols
}

// screenText returns the rows of the screen that can hold line, up to the cursor, read one
// after the other (each without its trailing blanks): the cursor's row only left of the
// cursor, never what a right prompt draws beyond it. With since, they also take the rows from
// the one the cursor was on before typing (x.before), when that is known.
func (x *run) screenText(ctx context.Context, line string, since bool) (string, bool) {
	s, ok := x.screen(ctx)
	if !ok {
		return "", false
	}
	x.lastScreen = &s
	cx, cy, cols := s.CursorX, s.CursorY, s.Width
	from := max(0, cy-len(line)/cols-1)
	if row, ok := x.before.start(s.rows, s.HistorySize); since && ok && row <= cy {
		from = min(from, row)
	}
	x.lastRow = leftOfCursor(s.rows[cy:cy+1], cx, cols)
	return leftOfCursor(s.rows[from:cy+1], cx, cols), true
}

// leftOfCursor reads rows (the last one the cursor's) one after the other, each without its
// trailing blanks, the last one only up to column cx.
func leftOfCursor(rows []string, cx, cols int) string {
	var b strings.Builder
	for i, row := range rows {
		if i == len(rows)-1 {
			row = cellText(screenCells([]string{row}, cols)[:min(cx, cols)])
		}
		b.WriteString(strings.TrimRight(row, " "))
	}
	return b.String()
}

// shows reports whether the last line the shell drew (partial) ends as the typed line does.
// Only the end is compared: a long line wraps (the shell redraws each row from its start) or
// scrolls sideways, so the last row may hold only its tail; at least 8 bytes of it, or the
// whole line when shorter (blanks aside).
func shows(partial, line string) bool {
	// Blanks do not count: a line editor blanks what is left of a longer line with spaces,
	// and where a row of a wrapped line ends in a space it may write another before it
	// wraps (zsh), while capture-pane drops a row's trailing spaces.
	partial, line = unblank(partial), unblank(line)
	k := min(len(line), len(partial), 32)
	if k < min(len(line), 8) {
		return false
	}
	return partial[len(partial)-k:] == line[len(line)-k:]
}

// unblank is s without its spaces: what the typed line's comparisons with the screen hold to.
func unblank(s string) string { return strings.ReplaceAll(s, " ", "") }

// clearLine empties the shell's command line after a line that will not be entered, with
// C-c, and waits until the shell has taken it: every shell starts a new line for its prompt
// when it drops the line (bash "^C\r\n", zsh and ksh93 "\r\n"), then draws it. Keys sent before
// that join the dropped line: bash, when the signal comes while it is busy (drawing a long
// line on a loaded machine), echoes ^C but keeps the line until its next read is interrupted,
// and an agent's next keys, sent on the refusal, would be entered with it (bash then waits in
// the line's open brace group, at its continuation prompt, for every command after). A C-c
// that brought no new line within clearWait is pressed again, up to clearTries in all.
func (x *run) clearLine(ctx context.Context) {
	x.f.Read(ctx, 0) // what came before is not the shell's answer
	for try := 1; ; try++ {
		x.keys(ctx, []string{"C-c"})
		if x.awaitNewline(ctx, time.Now().Add(clearWait)) || try == clearTries || ctx.Err() != nil {
			break
		}
	}
	x.awaitQuiet(ctx, time.Now().Add(clearWait)) // the prompt's drawing
}

// awaitNewline reports whether the pane printed a line feed before deadline (the shell took
// a C-c: stream.Watch.LineAfter), and skips what it printed.
func (x *run) awaitNewline(ctx context.Context, deadline time.Time) bool {
	wctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	ok := x.f.Watch().LineAfter(wctx, x.f.Offset())
	x.f.Read(ctx, 0)
	return ok
}

const (
	clearWait  = time.Second // for the shell to take a C-c (clearLine)
	clearTries = 3
)

// keys presses tmux key names, and then types text literally when given, in one command
// list: one round trip, nothing in between. It is not interrupted by the caller's
// cancellation: half a send would leave a line in the pane.
func (x *run) keys(ctx context.Context, keys []string, text ...string) error {
	return x.send(ctx, keyOps(x.req.pane.PaneID, keys, text...)...)
}

// keyOps are the ops that press keys, then type text (see keys).
func keyOps(pane string, keys []string, text ...string) []tmux.Op {
	ops := []tmux.Op{&tmux.SendKeys{Pane: pane, Keys: keys}}
	if len(text) > 0 {
		ops = append(ops, &tmux.SendText{Pane: pane, Text: text[0]})
	}
	return ops
}

// send runs ops that type into the pane, whatever ctx's cancellation (see keys).
func (x *run) send(ctx context.Context, ops ...tmux.Op) error {
	if err := x.eng.Batch(context.WithoutCancel(ctx), ops...); err != nil {
		return fmt.Errorf("typing into pane %s: %w", x.req.pane.PaneID, err)
	}
	return nil
}

// redrawAt finds where the shell shows the typed line, after it echoed it and before Enter,
// for the wrapper to put the command there instead; nil when that cannot be known. The line is
// looked for on the screen, left of the cursor: a line editor need not draw it where the
// cursor arithmetic says (readline assumes its prompt starts in column 0, which it does not
// after output without a final newline; fish redraws a multi-row prompt).
func (x *run) redrawAt(ctx context.Context, typed string) *shellrun.Redraw {
	r, cols := x.findTyped(ctx, typed)
	if r != nil {
		// A shell in verbose mode echoes the typed line below it once it has read it.
		r.Echo = shellrun.EchoRows(len(typed), cols)
	}
	return r
}

// findTyped is redrawAt's search, with the screen's width.
func (x *run) findTyped(ctx context.Context, typed string) (*shellrun.Redraw, int) {
	// A screen read once the line showed (the one that showed it, or echoed's) is the one to
	// look at.
	s, ok := shown{}, x.lastScreen != nil
	if ok {
		s = *x.lastScreen
	} else if s, ok = x.screen(ctx); !ok {
		return nil, 0
	}
	cx, cy, cols := s.CursorX, s.CursorY, s.Width
	first := max(0, cy-len(typed)/cols-1)
	cells := screenCells(s.rows[first:cy+1], cols)
	end := min(len(cells), (cy-first)*cols+cx)
	if i := lastIndex(cells[:end], typed); i >= 0 {
		x.left = cellText(cells[i-i%cols : i])
		return &shellrun.Redraw{Up: cy + 1 - (first + i/cols), Col: i % cols}, cols
	}
	// Not on the screen as typed: the line editor misdrew it (readline assumes its prompt
	// begins in column 0, which it does not after output without a final newline; a prompt
	// with multibyte characters in a C locale is measured in bytes), maybe over the prompt.
	// The line began where the cursor was before typing: that row is drawn again as it was
	// up to there (without its colours), then the command.
	if row, ok := x.before.start(s.rows, s.HistorySize); ok && row <= cy {
		return &shellrun.Redraw{Up: cy + 1 - row, Prefix: x.before.left()}, cols
	}
	if x.sh == shellrun.Mksh && cx < len(typed) {
		return nil, 0 // mksh scrolls a line longer than the screen sideways
	}
	r, ok := shellrun.RedrawAt(cx, cy, cols, len(typed))
	if !ok {
		return nil, 0
	}
	return &r, cols
}

// screenCells lays rows of capture-pane text out cell by cell, cols to a row: a wide
// character takes two cells (the second holds 0), a row ends in spaces.
func screenCells(rows []string, cols int) []rune {
	cells := make([]rune, 0, len(rows)*cols)
	for _, row := range rows {
		n := 0
		for _, r := range row {
			w := screen.CellWidth(r)
			if w == 0 || n+w > cols {
				continue
			}
			cells = append(cells, r)
			if w == 2 {
				cells = append(cells, 0)
			}
			n += w
		}
		for ; n < cols; n++ {
			cells = append(cells, ' ')
		}
	}
	return cells
}

// cellText is the text of cells (see screenCells).
func cellText(cells []rune) string {
	var b strings.Builder
	for _, r := range cells {
		if r != 0 {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// lastIndex returns where the ASCII text s last begins in cells, or -1.
func lastIndex(cells []rune, s string) int {
	for i := len(cells) - len(s); i >= 0; i-- {
		j := 0
		for j < len(s) && cells[i+j] == rune(s[j]) {
			j++
		}
		if j == len(s) {
			return i
		}
	}
	return -1
}

// watchStart notices, once the line was entered, that the shell is back at its prompt without
// having started the wrapper: a definition in the shell caught the line, or text left on the
// command line made it a syntax error, or the shell waits for the rest of an unfinished
// command. What the shell wrote may still be on its way through tmux (a quick command can be
// over before its start marker was read), so the shell must look so for notRunGrace with
// nothing more printed; then the shell's continuation (if any) is cancelled with C-c, and the
// run ends with a *NotRun quoting what the shell printed. It needs /proc; without it,
// startGrace frees the pane after a call that timed out.
func (x *run) watchStart() {
	if x.phase < entered || x.col.started || x.col.done || x.shell == 0 && !x.rawPrompt || x.notRun != nil || !x.idleUnstarted() {
		x.suspect = time.Time{}
		return
	}
	if x.suspect.IsZero() || x.f.Offset() != x.suspectOff {
		x.suspect, x.suspectOff = time.Now(), x.f.Offset()
		return
	}
	if time.Since(x.suspect) < notRunGrace {
		return
	}
	after, _ := afterFirstLine(x.col.pre)
	x.keys(context.Background(), []string{"C-c"})
	said := strings.Join(stream.Clean(after), " ")
	x.notRun = &NotRun{Pane: x.req.pane.PaneID,
		Reason: fmt.Sprintf("its shell did not run the typed line; it printed %q", truncate(strings.TrimSpace(said), 300)),
		Hint:   "Nothing of the command ran. Text already on the shell's command line, or an alias or function of the shell, may have changed the line; check with send_keys and capture_pane, then run the command again."}
}

// startCheck is how often watchStart looks again at a shell that was given its line and has
// not started the wrapper while nothing is printed: a few /proc reads, only before the start
// marker.
const startCheck = 50 * time.Millisecond

// notRunGrace is how long watchStart waits for a start marker still on its way.
const notRunGrace = 200 * time.Millisecond

// idleUnstarted reports whether the shell printed something after the echo of the line and
// now waits for input with no child: it is not running the wrapper.
func (x *run) idleUnstarted() bool {
	if _, ok := afterFirstLine(x.col.pre); !ok {
		return false
	}
	if x.shell == 0 {
		// Without a process table: the line editor took the terminal back (see
		// backAtPrompt), after a line break that only accepting the line prints.
		return x.backAtPrompt() && (!shellrun.SourcingFailed(x.col.pre, x.path) || x.phase >= inlined)
	}
	t := x.r.table
	if p, ok := t.Proc(x.shell); !ok || !p.WaitsInput() {
		return false
	}
	if n, ok := t.ReadChars(x.shell); ok && x.readKnown && n == x.readAtEnter {
		return false // the Enter is still on its way (a loaded machine): what came is the echo's
	}
	if kids, ok := t.Children(x.shell); !ok || len(kids) > 0 {
		return false
	}
	return !shellrun.SourcingFailed(x.col.pre, x.path) || x.phase >= inlined // else maybeInline types the wrapper inline
}

// afterFirstLine returns what the shell printed after the first line break of out (the end of
// the typed line's echo), when there is anything.
func afterFirstLine(out []byte) ([]byte, bool) {
	i := strings.IndexByte(string(out), '\n')
	if i < 0 || i+1 >= len(out) {
		return nil, false
	}
	return out[i+1:], true
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
