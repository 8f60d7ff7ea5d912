package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/termstate"
	"github.com/tmux-mcp/tmux-mcp/shellrun"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// Limits and defaults of a run.
const (
	DefaultMaxLines = 200
	MaxLines        = 10000
	// readChunk bounds one read from the stream, so a flood is processed in steps.
	readChunk = 64 << 10
	// bodyWindow bounds the raw output a run keeps while it waits (up to 1.5 times this, as it
	// cuts in batches): twice the largest result.
	bodyWindow = 2 << 20
)

// Outcome says why a run returned.
type Outcome string

// Outcomes: each says whether the command may still run after Run returned.
const (
	Completed Outcome = "completed" // the end marker was seen: ExitStatus is set
	TimedOut  Outcome = "timed_out" // the deadline passed with the pane alive; the command may still run
	PaneDied  Outcome = "pane_died" // the pane (or its tmux server) went away first
	Cancelled Outcome = "cancelled" // the caller gave up; the command may still run
)

// Request is one run.
type Request struct {
	// Snapshot holds the panes and clients read for this run; PaneID is its pane.
	Snapshot *tmux.Snapshot
	PaneID   string
	// Guard says which pane is the caller's and whether force allows it (Busy is unused:
	// the Runner knows which panes its runs hold).
	Guard Guard
	// Holder names the run while it holds the pane, in refusals of other input.
	Holder string
	// Command is what to run. Run trusts it: the caller checks it with ValidateCommand first,
	// before it even looks for the pane, so a bad command is the first thing an agent hears.
	Command string
	// Timeout bounds the wait (already clamped by the caller); it must be > 0. It starts once
	// the pane's previous run, about to end, was waited for (Ending).
	Timeout time.Duration
	// MaxLines keeps at most this many lines from the end (DefaultMaxLines when <= 0).
	MaxLines int
	// MaxBytes bounds the returned output in bytes (1,000,000 when <= 0).
	MaxBytes int
	// History records the command in the shell's history as if a person had typed it; without
	// it the command is kept out (the typed line is removed where the shell allows).
	History bool
	// Progress, when set, is called about every second while the call waits.
	Progress func(Progress)

	pane tmux.Pane // from Snapshot, once checked
}

// Result is what a run reports.
type Result struct {
	Outcome    Outcome
	ExitStatus *int // set when Completed
	// Output is the bounded tail of the command's own output, lines joined by LF.
	Output                 string
	Lines                  []string
	DroppedLines           int   // lines withheld by MaxLines (or cut while waiting)
	OmittedBytes           int64 // bytes withheld by MaxBytes (or the per-line cap)
	MissedBytes            int64 // bytes the stream dropped before they were read
	OutputComplete         bool  // nothing of the command's output is missing
	ForeignOutputSuspected bool
	StillRunning           bool // the command may still run after Run returned
	Elapsed                time.Duration
	// WaitingForInput says a command still running has its foreground program blocked
	// reading the terminal (a question, a password prompt, an editor); Prompt is the last
	// line it printed, InputHint what to do, InputHidden that the terminal does not show what
	// is typed (a password prompt). See terminal.go for how it is told on each platform.
	WaitingForInput bool
	Prompt          string
	InputHint       string
	InputHidden     bool
	// Shell is the shell the command was framed for.
	Shell shellrun.Shell
	// ShellEnded says the pane's shell ended with the command (kill -9 $$, a signal to the
	// pane): the pane is gone, or dead under remain-on-exit. The exit status is the command's;
	// with PaneDied, the shell went first (shellDied): there is none.
	ShellEnded bool
	// OnAlternate says the command left the terminal on the alternate screen (a full-screen
	// program killed before it could leave it, printf '\e[?1049h'): what it printed there is
	// not in Output, and the pane goes on showing that screen.
	OnAlternate bool
	// Adopted says an earlier server process started the run (adopt.go): what it printed
	// before this process found it is not in Output.
	Adopted bool
	// Lost says the run ended as PaneDied because the pane's output stream ended, not because
	// this server abandoned it (respawn_pane, kill_pane): the pane went, or the ssh connection
	// to its host dropped, and then its command may still run there.
	Lost bool
	// StatusLost says the run ended without its end marker while its pane lives on: the
	// wrapper's processes ended (its subshell was killed, or a function of the user's shell
	// replaced its EXIT trap; bash and zsh print the marker again, so dash, ash and mksh).
	// Outcome is then Completed, and ExitStatus nil.
	StatusLost bool
	// LostState names the commands of a completed, silent, successful run that only change
	// the shell that runs them (cd, export, source: shellrun.StateOnly), whose effect ended
	// with the run's subshell.
	LostState []string
}

// Runner runs framed commands. It owns a private directory (mode 0700, tmux.Server.MkdirTemp's) for
// the wrapper scripts, made on first use and removed by Close. A Runner is safe for concurrent
// use; the zero value is not: use New.
type Runner struct {
	seq    atomic.Uint64
	mu     sync.Mutex
	dirs   map[string]scriptDir // by host name ("" for this machine)
	swept  sweeper              // files of finished runs on other hosts, removed in batches
	closed bool
	minted ids      // run ids of this runner, so that their markers in another run's output are known
	reg    registry // which runs hold which panes, and the last run of each

	table *termstate.Table // the process table (tests hide it: termstate.Hide)

	// beforeSend, when set (tests), runs after the script is written and before Enter.
	beforeSend func(path string)
	// retype, when set (tests), replaces the typed line.
	retype func(line string) string
	// beforeType, when set (tests), runs once the stream offset before typing is taken.
	beforeType func(p tmux.Pane)
	// beforeBackground, when set (tests), runs as a run that outlived its call starts waiting
	// for its end.
	beforeBackground func(x *run)
}

// New returns a Runner; it creates nothing until the first run.
func New() *Runner { return &Runner{table: termstate.New()} }

// scriptDir is the directory of the wrapper scripts on one host: the shell reads its script
// there, so a pane on another host has its scripts on that host (written through ssh).
type scriptDir struct {
	ts   *tmux.Server // how to reach the host's files
	path string
}

// Close removes the script directories. Runs still waiting keep waiting until their stream
// ends.
func (r *Runner) Close() {
	r.mu.Lock()
	dirs := r.dirs
	r.dirs, r.closed = nil, true
	r.mu.Unlock()
	r.swept.stop()
	for _, d := range dirs {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		d.ts.RemoveAll(ctx, d.path)
		cancel()
	}
}

func (r *Runner) scriptDir(ctx context.Context, ts *tmux.Server) (string, error) {
	host := ts.HostName()
	r.mu.Lock()
	d, ok := r.dirs[host]
	closed := r.closed
	r.mu.Unlock()
	switch {
	case closed:
		return "", errors.New("the runner is closed")
	case ok && (!ts.Local() || exists(d.path)):
		return d.path, nil
	}
	// A directory that a cleaner of old temporary files removed (systemd-tmpfiles, macOS's
	// periodic) is made again. Made without the lock: on another host it takes an ssh round trip.
	stale := d.path
	dir, err := ts.MkdirTemp(ctx, "tmux-mcp-")
	if err != nil {
		return "", fmt.Errorf("creating the script directory: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if d, ok := r.dirs[host]; ok && d.path != stale || r.closed {
		ts.RemoveAll(context.WithoutCancel(ctx), dir) // another run made one meanwhile
		if r.closed {
			return "", errors.New("the runner is closed")
		}
		return d.path, nil
	}
	if r.dirs == nil {
		r.dirs = map[string]scriptDir{}
	}
	r.dirs[host] = scriptDir{ts, dir}
	return dir, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// MaxCommand bounds a command's size in bytes: it is written to a file, or typed (four times
// its size) when the shell cannot read the file.
const MaxCommand = 1 << 20

// ErrEmpty, ErrNUL and ErrTooLong refuse a command before anything else happens.
var (
	ErrEmpty   = errors.New("the command is empty")
	ErrNUL     = errors.New("the command contains a NUL byte, which a terminal cannot carry")
	ErrTooLong = fmt.Errorf("the command is too long (more than %d bytes)", MaxCommand)
)

// ValidateCommand refuses what no shell can be given: an empty or blank command, a NUL byte, a
// command over MaxCommand bytes. It is the one check of a command: Run's callers make it.
func ValidateCommand(cmd string) error {
	switch {
	case len(cmd) > MaxCommand:
		return ErrTooLong
	case strings.IndexByte(cmd, 0) >= 0:
		return ErrNUL
	case strings.TrimSpace(strings.NewReplacer("\r", "", "\n", "").Replace(cmd)) == "":
		return ErrEmpty
	}
	return nil
}

// Run runs a command in a pane, start to end: the preflight (Check), the pane's reservation
// (refused while another run of this Runner holds it), waiting for the pane's shell to be at
// its prompt, typing the line that runs the framed command (after clearing what was left on
// the command line, and only once the shell showed the line as typed), and waiting for its
// end, the timeout, the pane's death or ctx's cancellation. A command still running when Run
// returns (TimedOut, Cancelled) keeps its pane until it really ends; Last and Await follow it.
// Errors are returned only when nothing ran: a *Refusal (preflight, or no shell at its
// prompt), a *NotRun when the shell did not run the line.
func (r *Runner) Run(ctx context.Context, ts *tmux.Server, req Request) (res Result, err error) {
	began := time.Now()
	if req.MaxLines <= 0 {
		req.MaxLines = DefaultMaxLines
	}
	if req.MaxBytes <= 0 {
		req.MaxBytes = MaxOutput
	}
	ident, err := ts.Identity(ctx)
	if err != nil {
		return res, err
	}
	g := req.Guard
	g.Busy = func(pane string) (string, bool) { return r.HolderAfter(ctx, Key{ident, pane}, Ending) }
	if req.pane, err = Check(req.Snapshot, req.PaneID, g); err != nil {
		return res, err
	}
	// The timeout starts here: waiting for the pane's previous run to end (Busy) is not this
	// command's time. Charged to it, a 1 s timeout after a 1.1 s wait left the command 1 ms,
	// and the call said at once that it did not finish within 1000 ms.
	from := time.Now()
	k := Key{ident, req.pane.PaneID}
	prev := r.reg.last(k)
	rec, err := r.reg.reserve(k, req.Holder, req.Command)
	if err != nil {
		return res, err
	}
	dir, err := r.scriptDir(ctx, ts)
	if err != nil {
		r.reg.end(rec, nil)
		return res, err
	}
	x, err := r.start(ctx, ts, req, filepath.Join(dir, "r"+strconv.FormatUint(r.seq.Add(1), 10)), rec, prev)
	if err != nil {
		r.reg.end(rec, nil)
		return res, err
	}
	stop := startProgress(req.Progress, rec.progress)
	res, err = x.runCall(ctx, max(req.Timeout-time.Since(from), time.Millisecond))
	stop()
	res.Elapsed = time.Since(began)
	return res, err
}

// runCall types the line, waits up to timeout, and shapes the result; a command still running
// then goes on in the background.
func (x *run) runCall(ctx context.Context, timeout time.Duration) (Result, error) {
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	werr, err := x.attempt(ctx, wctx)
	var nr *NotRun
	if errors.As(err, &nr) && ctx.Err() == nil && !nr.refused {
		// Nothing ran, and C-c emptied the command line: text left there (which the keys
		// could not clear in the line editor's mode) is gone now. One more try.
		x.retry()
		werr, err = x.attempt(ctx, wctx)
	}
	if err != nil {
		x.finish(nil)
		return Result{}, err
	}
	res := x.result()
	switch {
	case res.Outcome != "":
	case werr != nil && ctx.Err() != nil:
		res.Outcome, res.StillRunning = Cancelled, true
	default:
		res.Outcome, res.StillRunning = TimedOut, true
	}
	if res.StillRunning {
		x.waitingForInput(&res)
		// The pane stays reserved until the command really ends.
		go x.background()
	} else {
		x.settle(ctx, res.Outcome)
		// The record keeps how long it took, for wait_for_run (Run sets the call's own).
		res.Elapsed = time.Since(x.rec.Started)
		x.finish(&res)
	}
	return res, nil
}

// settle waits, after a command that completed, until the shell reads its command line again
// (awaitPrompt: up to shellWait), before the run gives the pane back. In between the shell
// runs its prompt hooks (direnv's, a git prompt, powerline's renderer) with the terminal in
// canonical mode: keys sent then (send_keys right after the result) are echoed by the
// terminal before the prompt, and the terminal itself takes C-r (reprint), C-u, C-w and C-v,
// so fzf's or readline's history search never opens.
func (x *run) settle(ctx context.Context, outcome Outcome) {
	if outcome == Completed {
		x.awaitPrompt(ctx)
	}
}

// attempt types the line and waits, up to wctx, for the run's end; it returns a *NotRun when
// the shell did not run it. Typing is bounded by ctx (the caller's) and its own waits, not by
// the run's timeout: a line is entered or cleared whole, and a command still starting when
// the timeout comes is a timed-out run that goes on.
func (x *run) attempt(ctx, wctx context.Context) (werr, err error) {
	if err := x.launch(ctx); err != nil {
		return nil, err
	}
	x.pollInput = true
	werr = x.waitFor(wctx, x.inputStop)
	x.pollInput = false
	if x.notRun != nil {
		return werr, x.notRun
	}
	if x.col.failed != "" {
		// The wrapper refused: a definition in the shell would have subverted it.
		name := strings.TrimPrefix(x.col.failed, "function ")
		return werr, &NotRun{Pane: x.req.pane.PaneID, refused: true,
			Reason: fmt.Sprintf("its shell (%s) defines a function named %q, which hides the shell's own %s command that tmux-mcp needs to run commands safely; nothing was run", x.sh, name, name),
			Hint:   fmt.Sprintf("Remove the function in that shell (unfunction %s), or run the command in another pane.", name)}
	}
	return werr, nil
}

// retry readies a run whose line was not run for a second attempt, with a script of another
// name: the stream and what the shell is stay.
func (x *run) retry() {
	x.remove(x.path)
	x.path += "b"
	x.notRun, x.phase, x.retried, x.waited = nil, typing, true, true
	x.left, x.lastScreen = "", nil
	x.suspect, x.procs = time.Time{}, nil
}

// lost reports whether rec (the pane's previous run, or nil) was lost (Result.Lost) while its
// pane is still there (the caller found it): its stream ended, not its pane, as when the ssh
// connection to another host drops. Its command may still run there, unseen.
func lost(rec *Record) bool {
	if rec == nil {
		return false
	}
	res, ok := rec.ended()
	return ok && res.Lost
}

// unterminated returns the last line of the output of rec (the pane's previous run, or nil)
// when it did not end in a line break: the cursor's row shows it until the shell draws its
// prompt (promptDrawn).
func unterminated(rec *Record) string {
	if rec == nil {
		return ""
	}
	if res, ok := rec.ended(); ok && len(res.Lines) > 0 {
		return strings.TrimSpace(res.Lines[len(res.Lines)-1])
	}
	return ""
}

// start opens the pane's stream and waits for its shell to be at its prompt; after is the
// unterminated line of the pane's previous run.
func (r *Runner) start(ctx context.Context, ts *tmux.Server, req Request, path string, rec *Record, prev *Record) (*run, error) {
	hub, err := ts.Hub()
	if err != nil {
		return nil, err
	}
	p := req.pane
	w, err := hub.Watch(ctx, p.SessionID, p.PaneID)
	if err != nil && ctx.Err() == nil && !errors.Is(err, stream.ErrHubClosed) {
		// A failed attach is retried once: it can be transient (the session's connection
		// was being set up or torn down).
		w, err = hub.Watch(ctx, p.SessionID, p.PaneID)
	}
	if err != nil {
		return nil, fmt.Errorf("watching pane %s: %w", p.PaneID, err)
	}
	// The offset is taken before anything is sent: nothing the command prints is lost. A
	// stream whose session went while the pane lives on in another one is followed there once.
	x := &run{r: r, ts: ts, eng: ts, req: req, path: path, rec: rec, unterminated: unterminated(prev), lostPrev: lost(prev)}
	rec.size = [2]int{p.PaneWidth, p.PaneHeight}
	x.resized = prev != nil && prev.size != rec.size
	reopened := false
	x.f = stream.NewFollower(w, w.Offset()).OnEnd(func(ctx context.Context, ended error) (*stream.Watch, error) {
		if !errors.Is(ended, stream.ErrSessionGone) || reopened {
			return nil, ended
		}
		reopened = true
		nw, err := ts.WatchPane(ctx, p.PaneID)
		if err != nil {
			return nil, ended
		}
		x.f.Watch().Release()
		return nw, nil
	})
	x.gone, x.give = context.WithCancel(context.Background())
	if err := x.awaitShell(ctx); err != nil {
		x.f.Watch().Release()
		return nil, err
	}
	return x, nil
}

// run is one run in progress.
type run struct {
	r     *Runner
	ts    *tmux.Server     // its host's files and the pane's stream
	eng   engine           // the pane's screen, keys and options: ts, or a fake in tests
	f     *stream.Follower // the pane's output, from before anything was typed
	col   *collector
	req   Request
	sh    shellrun.Shell
	shell int // pid of the interactive shell (0: unknown)
	id    string
	path  string
	rec   *Record
	// gone is cancelled by abandon (the pane was killed or respawned): every wait ends.
	gone context.Context
	give context.CancelFunc
	// abandoned says abandon ended the run: its end is known, though its marker never came.
	abandoned atomic.Bool

	// mu guards the collector and what readers of a live run see (snapshot, printed) while
	// the run's own goroutine reads the stream.
	mu      sync.Mutex
	missed  int64
	gaps    int
	ended   error // the stream's end reason
	notRun  error // the shell did not run the line (see watchStart)
	phase   phase
	typedAt int64 // the stream offset before the line was typed
	// lostPrev says the pane's previous run was lost from view (see lost): without a process
	// table, only a drawn prompt then says its command ended (see awaitShellPortable).
	lostPrev bool
	// resized says the pane's size is not what it was when its previous run began.
	resized bool
	// left is what the screen showed left of the typed line on its row (its prompt) when
	// redrawAt found the line, else "": see echoFrom.
	left string
	// What the shell had read before Enter was sent (readKnown: /proc told): until it reads
	// more, it has not seen the Enter, however long tmux takes to pass it on.
	readAtEnter int64
	readKnown   bool
	before      before     // the screen then
	redrawn     bool       // the wrapper redraws the typed line as the command
	retried     bool       // this is the second attempt (see retry)
	waited      bool       // time passed since the pane was last checked (see recheckPane)
	suspect     time.Time  // when the shell first looked back at its prompt without the wrapper (watchStart)
	suspectOff  int64      // the stream offset then
	procs       *procWatch // the wrapper's processes, when they can be followed
	procsMu     sync.Mutex // procs's reads once the wrapper started, and procsGone: a waiting wait_for_run reads them too
	procsGone   time.Time  // when lostEnd first saw them gone without the end marker
	statusLost  bool       // they ended without it and the pane lives on (Result.StatusLost); x.mu
	prompt      string     // promptText as the wrapper was sent (withoutPrompt); x.mu
	persisted   bool       // its pane's option names it (adopt.go)
	adopted     bool       // an earlier server process started it (adopt.go)
	rawPrompt   bool       // the shell was found at its prompt by its terminal's raw mode (terminal.go)
	pollInput   bool       // the call waits: look whether the command waits for input (inputStop)
	lastOut     time.Time  // when the pane last printed, once the line was entered
	lastRow     string     // the cursor's row left of the cursor, as screenText last read it
	lastScreen  *shown     // the screen screenText last read; nil when the stream showed the echo first

	// unterminated is the last line of the pane's previous run when it did not end in a line
	// break: left of the cursor, it is that output, not a prompt (promptDrawn).
	unterminated string
}

// phase is how far a run got; a run goes through them in order (retry starts it again).
type phase uint8

const (
	typing  phase = iota // the line is being typed: Enter was not sent
	entered              // Enter was sent
	inlined              // the shell could not read the script: the wrapper was typed inline
	started              // the wrapper started: its script file is removed, the typed echo elided
)

func (p phase) String() string {
	switch p {
	case typing:
		return "typing"
	case entered:
		return "entered"
	case inlined:
		return "inlined"
	case started:
		return "started"
	}
	return "phase(" + strconv.Itoa(int(p)) + ")"
}

// launch types the line, writes the wrapper (with the redraw the echo of the line allows) and
// presses Enter.
func (x *run) launch(ctx context.Context) error {
	typed := shellrun.Line(x.sh, x.path)
	if x.r.retype != nil {
		typed = x.r.retype(typed)
	}
	typed, err := x.readyFor(ctx, typed)
	if err != nil {
		return err
	}
	// The typed line's echo comes after the stream's end; so may the shell's prompt, when
	// tmux has not read it from the terminal yet (see echoFrom).
	x.typedAt = x.f.Watch().Offset()
	if x.r.beforeType != nil {
		x.r.beforeType(x.req.pane)
	}
	if err := x.typeLine(ctx, typed); err != nil {
		return err
	}
	redraw := x.redrawAt(ctx, typed)
	x.redrawn = redraw != nil
	script, err := x.script(redraw)
	if err != nil {
		x.clearLine(ctx)
		return err
	}
	x.mu.Lock()
	x.col = newCollector(x.id, bodyWindow, x.r.minted.has)
	x.col.keepLines = x.req.MaxLines
	x.prompt = x.promptText()
	x.mu.Unlock()
	if err := x.ts.SaveText(ctx, x.path, script); err != nil {
		x.clearLine(ctx)
		return fmt.Errorf("writing the wrapper script: %w", err)
	}
	if x.r.beforeSend != nil {
		x.r.beforeSend(x.path)
	}
	if x.sh.Family() == shellrun.POSIX {
		x.procs = x.r.watchShell(x.shell)
	}
	if x.shell != 0 {
		x.readAtEnter, x.readKnown = x.r.table.ReadChars(x.shell)
	}
	// The pane's option names the run (adopt.go: a later server process finds it) in the
	// command list that presses Enter: one round trip.
	if err := x.send(ctx, append(x.persist(), keyOps(x.req.pane.PaneID, []string{"Enter"})...)...); err != nil {
		x.unpersist(nil)
		return err
	}
	x.phase = entered
	x.rec.mu.Lock()
	x.rec.live = x
	x.rec.mu.Unlock()
	x.r.reg.attach(x.rec)
	return nil
}

// readyFor checks the pane once more and reads its screen before typed is typed (see before),
// refusing a shell that asks a question or a pane too short for the line; it returns the line
// as it fits there.
func (x *run) readyFor(ctx context.Context, typed string) (string, error) {
	if err := x.recheckPane(ctx); err != nil {
		return "", err
	}
	x.awaitSize(ctx)
	x.before = x.screenBefore(ctx)
	if q, ok := x.before.question(); ok {
		return "", asked(x.req.pane.PaneID, q)
	}
	typed = x.before.fit(typed)
	return typed, x.tooShort(typed)
}

// script mints the run's id and writes its wrapper: another id when the command holds it.
func (x *run) script(redraw *shellrun.Redraw) (script string, err error) {
	for try := 0; ; try++ {
		x.id = x.r.minted.mint()
		script, err = shellrun.Script(x.sh, x.id, x.req.Command, x.path, shellrun.Options{History: x.req.History, Redraw: redraw})
		if !errors.Is(err, shellrun.ErrIDInCommand) || try == 3 {
			return script, err
		}
	}
}

// background waits, after the call returned, for the command's real end, then frees the pane
// and keeps the final result in the run's record.
func (x *run) background() {
	defer x.give()
	if x.r.beforeBackground != nil {
		x.r.beforeBackground(x)
	}
	if !x.started() {
		ctx, cancel := context.WithTimeout(x.gone, startGrace)
		x.waitFor(ctx, func() bool { return x.started() || x.notRun != nil })
		cancel()
		if !x.started() && !x.col.done && x.ended == nil {
			x.finishWith(PaneDied)
			return
		}
	}
	// A wrapper that lost its end marker ends when its processes do (see procs.go).
	x.waitFor(x.gone, func() bool {
		if !x.started() {
			return false
		}
		_, lost := x.lostEnd()
		return lost
	})
	x.settle(x.gone, x.result().Outcome)
	x.finishWith(PaneDied)
}

// over reports whether the end marker came or the stream ended.
func (x *run) over() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.col.done || x.ended != nil
}

// finishWith ends the run with its final result: completed when the end marker came, else
// outcome (the command's end was seen another way, or its pane went).
func (x *run) finishWith(outcome Outcome) {
	x.mu.Lock()
	res := x.resultLocked()
	x.mu.Unlock()
	if res.Outcome == "" {
		res.Outcome = outcome
	}
	res.Elapsed = time.Since(x.rec.Started)
	x.finish(&res)
}

func (x *run) started() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.col != nil && x.col.started
}

// abandon ends the run now: its pane was killed or respawned.
func (x *run) abandon() {
	x.abandoned.Store(true)
	x.give()
}

// startGrace bounds the wait for a start marker after the call returned, when /proc cannot
// tell that the shell is back at its prompt without running the line (see watchStart): the
// pane is given back after it.
const startGrace = 10 * time.Second

// wait consumes the stream until the end marker, the stream's end or ctx's end.
func (x *run) wait(ctx context.Context) error { return x.waitFor(ctx, nil) }

// waitFor is wait that also returns once stop (when not nil) reports true, or the run was
// abandoned. A run already over returns at once: an earlier wait may have read its end marker
// with all that followed (background's wait for the start marker, when the command ended
// before it first read the stream), and an idle prompt prints nothing more to look again on.
func (x *run) waitFor(ctx context.Context, stop func() bool) error {
	if x.over() {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-x.gone.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		if x.pump(ctx) {
			x.deadPane(ctx)
			return nil
		}
		if x.notRun != nil || stop != nil && stop() || x.gone.Err() != nil {
			return nil
		}
		if x.shellDied(ctx) {
			x.shellEnded(ctx)
			return nil
		}
		x.maybeInline(ctx)
		wctx, cancel := ctx, context.CancelFunc(func() {})
		unstarted := x.phase >= entered && !x.col.started && (x.shell != 0 || x.rawPrompt)
		switch {
		case !x.suspect.IsZero():
			// Look again once the grace has passed, even if nothing more is printed.
			wctx, cancel = context.WithDeadline(ctx, x.suspect.Add(notRunGrace+time.Millisecond))
		case unstarted:
			// The shell's last output may have come before it was back waiting for input
			// (a loaded machine): nothing more will be printed to look again on.
			wctx, cancel = context.WithTimeout(ctx, startCheck)
		case x.pollInput:
			wctx, cancel = context.WithTimeout(ctx, inputPoll)
		case x.phase >= entered:
			// A dead pane prints nothing more: look at its shell now and then (shellDied).
			wctx, cancel = context.WithTimeout(ctx, shellPoll)
		}
		err := x.f.Wait(wctx)
		cancel()
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		if !x.suspect.IsZero() || unstarted {
			x.watchStart()
		}
	}
}

// pump reads what the stream holds; it reports true when the run is over (end or failure
// marker seen, or stream ended).
func (x *run) pump(ctx context.Context) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	fed := false
	for {
		ch, err := x.f.Read(ctx, readChunk)
		if ch.Missed > 0 || ch.Gaps > 0 {
			x.missed += ch.Missed
			x.gaps += ch.Gaps
			x.col.missed()
		}
		if len(ch.Data) > 0 {
			x.col.feed(ch.Data, ch.At)
			fed, x.lastOut = true, time.Now()
			if x.col.started && x.phase < started {
				// The shell has the file open: it no longer needs its name. (On another
				// host all the run's files go at its end, in one ssh session.)
				x.phase = started
				if x.col.bodyAt >= 0 {
					x.f.Watch().MarkOutput(x.col.bodyAt) // for the waits after the run
				}
				if x.ts.Local() {
					x.remove(x.path)
				}
				x.elideEcho()
			}
			if x.col.done || x.col.failed != "" {
				return true
			}
			continue
		}
		if err != nil {
			x.ended = err
			return true
		}
		if fed {
			x.watchStart()
		}
		return false
	}
}

// elideEcho hides from the pane's text readers (capture_since, wait_for_text) what the run
// typed and the shell echoed, up to the command as the wrapper redrew it: they read what a
// person's screen shows, "<prompt><command>".
func (x *run) elideEcho() {
	x.retitle()
	end := x.col.startAt
	if x.redrawn {
		end = x.col.shownAt // the command as redrawn stays
	}
	if from := x.echoFrom(end); end > from {
		x.f.Watch().Elide(from, end)
	}
}

// maxLeft bounds how much of the stream echoFrom reads on either side of typedAt.
const maxLeft = 4096

// echoFrom is where the shell's echo of the typed line begins in the stream, up to end:
// typedAt, or later when the shell's prompt reached the stream only after it. The shell had
// printed its prompt and waits for input, but tmux had not read it from the terminal yet (a
// loaded machine): those bytes come before the echo, after typedAt, and are the prompt a
// person sees, which the text readers keep. The screen's text left of the typed line
// (x.left) says where the prompt ends; without it, or when the stream does not spell it,
// typedAt.
func (x *run) echoFrom(end int64) int64 {
	if x.left == "" {
		return x.typedAt
	}
	w := x.f.Watch()
	back := max(0, x.typedAt-maxLeft)
	pre, _, _, err := w.ReadText(back, int(x.typedAt-back))
	if err != nil {
		return x.typedAt
	}
	raw, next, _, err := w.Read(x.typedAt, int(min(end-x.typedAt, maxLeft)))
	if err != nil || next-int64(len(raw)) != x.typedAt {
		return x.typedAt // the ring no longer holds it
	}
	return x.typedAt + int64(promptEnd(pre, raw, x.left))
}

// promptEnd returns how many bytes of raw, the output that followed pre, end the line that
// pre's last line begins so that it reads left (as a text reader shows it): 0 when pre's last
// line already reads left, no prefix of raw makes it, or left is "".
func promptEnd(pre, raw []byte, left string) int {
	if left == "" {
		return 0
	}
	var f stream.Filter
	f.Write(pre)
	if f.Partial() == left {
		return 0
	}
	last := left[len(left)-1] // the line can read left only once its last byte is written
	for i := range raw {
		f.Write(raw[i : i+1])
		if raw[i] == last && f.Partial() == left {
			return i + 1
		}
	}
	return 0
}

// retitle gives the pane the command as its title when the shell's own hooks (a preexec that
// puts the command line in the title) titled it with the typed line: as if a person had typed
// the command. So with the window's name, when tmux took it from screen's name sequence
// (ESC k, which liquidprompt prints in tmux) under allow-rename.
func (x *run) retitle() {
	typed := shellrun.Line(x.sh, x.path)
	cmd := firstLine(x.req.Command)
	if title, ok := typedTitle(x.col.pre, x.path, "\x1b]0;", "\x1b]2;"); ok {
		go x.eng.Do(context.Background(), &tmux.SetTitle{Pane: x.req.pane.PaneID, Title: asTyped(title, typed, cmd)})
	}
	if name, ok := typedTitle(x.col.pre, x.path, "\x1bk"); ok {
		go x.rename(asTyped(name, typed, cmd))
	}
}

// typedTitle returns the text of the last title sequence (one of intros, ended by BEL or
// ESC) in pre when it holds the script's path.
func typedTitle(pre []byte, path string, intros ...string) (string, bool) {
	for _, intro := range intros {
		i := bytes.LastIndex(pre, []byte(intro))
		if i < 0 {
			continue
		}
		title := pre[i+len(intro):]
		if j := bytes.IndexAny(title, "\a\x1b"); j >= 0 {
			title = title[:j]
		}
		if bytes.Contains(title, []byte(path)) {
			return string(title), true
		}
	}
	return "", false
}

// asTyped is title with the command where the typed line is (a hook's "[~] ± " before it
// stays), the line's leading blank with it when the title has it, or the command alone when
// the title holds the line otherwise (a DEBUG trap's $BASH_COMMAND, one of its commands).
func asTyped(title, typed, cmd string) string {
	for _, t := range []string{typed, strings.TrimSpace(typed)} {
		if strings.Contains(title, t) {
			return strings.Replace(title, t, cmd, 1)
		}
	}
	return cmd
}

// rename gives the pane's window name when tmux had named it with the typed line (allow-rename on;
// off, tmux ignored the sequence and the name is the user's or automatic-rename's, left
// alone). The shell's next prompt may name it again between the read and the rename, which
// then shows the command until the prompt after.
func (x *run) rename(name string) {
	ctx := context.Background()
	cur := &tmux.WindowName{Pane: x.req.pane.PaneID}
	if err := x.eng.Do(ctx, cur); err != nil || !strings.Contains(cur.Name, x.path) {
		return
	}
	x.eng.Do(ctx, &tmux.RenameWindow{Window: x.req.pane.WindowID, Name: name})
}

// firstLine returns s up to its first line break.
func firstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}

// maybeInline types the whole wrapper once when the pane's shell failed to read the script
// file (it runs elsewhere: another user, a container).
func (x *run) maybeInline(ctx context.Context) {
	if x.phase >= inlined || x.col.started || !shellrun.SourcingFailed(x.col.pre, x.path) {
		return
	}
	x.phase = inlined
	x.remove(x.path)
	line, err := shellrun.Inline(x.sh, x.id, x.req.Command)
	if err != nil {
		return
	}
	x.col.resetPre() // the error message is not output
	// The shell is still printing its error (fish's takes two lines): type once it is back at
	// its prompt, or its line editor may drop what was typed meanwhile.
	x.awaitPrompt(ctx)
	x.typedAt, x.redrawn, x.left = x.f.Offset(), false, ""
	if err := x.typeLine(ctx, line); err == nil {
		x.keys(ctx, []string{"Enter"})
	}
}

// result shapes what was gathered, with Outcome set when the run is over.
func (x *run) result() Result {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.resultLocked()
}

func (x *run) resultLocked() Result {
	s := shape(x.col.output(), x.col.cutLines, x.req.MaxLines, x.req.MaxBytes)
	res := Result{
		Output:                 join(s.lines),
		Lines:                  s.lines,
		DroppedLines:           s.dropped,
		OmittedBytes:           s.omitted,
		MissedBytes:            x.missed,
		ForeignOutputSuspected: x.col.foreign,
		OutputComplete: x.col.done && !x.col.lostStart && x.missed == 0 && x.gaps == 0 &&
			s.dropped == 0 && s.omitted == 0,
		Shell:       x.sh,
		OnAlternate: s.alt,
		Adopted:     x.adopted,
	}
	switch {
	case x.col.done:
		st := x.col.status
		res.Outcome, res.ExitStatus = Completed, &st
		if st == 0 && res.Output == "" {
			res.LostState = shellrun.StateOnly(x.req.Command)
		}
	case x.statusLost:
		res.Outcome, res.StatusLost = Completed, true
		withoutPrompt(&res, x.col.output(), x.prompt)
	case x.ended != nil || x.gone.Err() != nil:
		res.Outcome, res.ShellEnded = PaneDied, errors.Is(x.ended, errShellGone)
		res.Lost = x.ended != nil && !x.abandoned.Load() && !res.ShellEnded
	}
	return res
}

// promptText is the prompt the line was typed at, trimmed: left of the typed line as redrawAt
// found it, else left of the cursor before anything was typed (a line scrolled sideways, as
// mksh draws one wider than the pane); "" when neither is known.
func (x *run) promptText() string {
	if t := strings.TrimSpace(x.left); t != "" {
		return t
	}
	b := x.before
	if !b.ok || b.y < 0 || b.y >= len(b.rows) {
		return ""
	}
	return strings.TrimSpace(leftOfCursor(b.rows[b.y:b.y+1], b.x, b.cols))
}

// withoutPrompt drops from res, the output of a run whose wrapper ended without its end marker
// (body), the prompt its shell drew after it: body's last line, unterminated, when it ends in
// the prompt the line was typed at. A prompt that changed (a clock, a new directory) stays.
func withoutPrompt(res *Result, body []byte, prompt string) {
	n := len(res.Lines)
	if prompt == "" || n == 0 || len(body) == 0 || body[len(body)-1] == '\n' {
		return
	}
	last := strings.TrimRight(res.Lines[n-1], " ")
	rest, ok := strings.CutSuffix(last, prompt)
	if !ok {
		return
	}
	if rest = strings.TrimRight(rest, " "); rest != "" {
		res.Lines[n-1] = rest
	} else {
		res.Lines = res.Lines[:n-1]
	}
	res.Output = join(res.Lines)
}

// snapshot is the result of a run still going on, as another caller sees it.
func (x *run) snapshot() Result {
	res := x.result()
	if res.Outcome == "" {
		x.waitingForInput(&res)
	}
	return res
}

// printed is how many bytes the command printed so far.
func (x *run) printed() int64 {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.col == nil || !x.col.started {
		return 0
	}
	return x.col.cutBytes + int64(len(x.col.body))
}

// expectEcho notes text typed as the command's input: its echo is left out of the output.
func (x *run) expectEcho(text string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if text != "" && x.col != nil {
		x.col.expect(x.f.Watch().Offset(), text)
	}
}

// waitingForInput fills in whether the command waits for input: its terminal's foreground
// process (not the interactive shell) sleeps reading it.
func (x *run) waitingForInput(res *Result) {
	if !res.StillRunning && res.Outcome != "" {
		return
	}
	if gone, _ := x.lostEnd(); gone {
		return // the wrapper ended unmarked (lostEnd): its shell reads keys at its prompt
	}
	waiting, program, m := x.inputWait(context.Background())
	if !waiting {
		return
	}
	for i := len(res.Lines) - 1; i >= 0; i-- {
		if strings.TrimSpace(res.Lines[i]) != "" {
			res.Prompt = res.Lines[i]
			break
		}
	}
	hidden := x.r.table.SecretInput(m, x.shell, program) || m.SecretAsked(res.Prompt)
	res.WaitingForInput, res.InputHidden, res.InputHint = true, hidden, inputHint(program, m, hidden)
}

// finish gives everything back: the stream, the script file and the pane's reservation; res
// (nil when nothing ran) becomes the record's result.
func (x *run) finish(res *Result) {
	if x.unpersist(res) && res != nil && res.Outcome == Completed { // adopt.go
		res.ShellEnded = true
	}
	x.f.Watch().Release()
	x.remove(x.path)
	x.r.reg.end(x.rec, res)
}

// remove removes the run's files; on another host later, with others (see sweeper): a later
// run's files have other names.
func (x *run) remove(paths ...string) {
	if x.ts.Local() {
		for _, p := range paths {
			os.Remove(p)
		}
		return
	}
	x.r.swept.later(x.ts, paths...)
}

// ids remembers the run ids a runner minted (the newest 1024).
type ids struct {
	mu   sync.Mutex
	set  map[string]bool
	ring []string
}

func (s *ids) mint() string {
	id := shellrun.NewID()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.set == nil {
		s.set = map[string]bool{}
	}
	if len(s.ring) == 1024 {
		delete(s.set, s.ring[0])
		s.ring = s.ring[1:]
	}
	s.ring = append(s.ring, id)
	s.set[id] = true
	return id
}

func (s *ids) has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set[id]
}
