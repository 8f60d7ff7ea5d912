package runner

import (
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

	"github.com/tmux-mcp/tmux-mcp/shellrun"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// Limits and defaults of a run.
const (
	DefaultMaxLines = 200
	MaxLines        = 10000
	// readChunk bounds one read from the stream, so a flood is processed in steps.
	readChunk = 256 << 10
	// bodyWindow bounds the raw output a run keeps while it waits (up to 1.5 times this, as it
	// cuts in batches): twice the largest result.
	bodyWindow = 2 << 20
)

// Outcome says why a run returned.
type Outcome string

// Outcomes of engine.md §3.7.
const (
	Completed Outcome = "completed" // the end marker was seen: ExitStatus is set
	TimedOut  Outcome = "timed_out" // the deadline passed with the pane alive; the command may still run
	PaneDied  Outcome = "pane_died" // the pane (or its tmux server) went away first
	Cancelled Outcome = "cancelled" // the caller gave up; the command may still run
)

// Request is one run. Pane and Family come from Check.
type Request struct {
	Pane    tmux.Pane
	Family  shellrun.Family
	Command string
	// Timeout bounds the wait (already clamped by the caller); it must be > 0.
	Timeout time.Duration
	// MaxLines keeps at most this many lines from the end (DefaultMaxLines when <= 0).
	MaxLines int
	// MaxBytes bounds the returned output in bytes (1,000,000 when <= 0).
	MaxBytes int
	// History types the line without its leading space, so that shells which skip space-led
	// lines record it in their history.
	History bool
	// Release is called exactly once, when the pane is free again: the command ended (end marker,
	// pane dead, server gone), or nothing was typed. That may be long after Run returned
	// TimedOut or Cancelled. Nil is allowed.
	Release func()
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
}

// Runner runs framed commands. It owns a private directory (mode 0700, under os.TempDir) for
// the wrapper scripts, made on first use and removed by Close. A Runner is safe for concurrent
// use; the zero value is not: use New.
type Runner struct {
	seq    atomic.Uint64
	mu     sync.Mutex
	dir    string
	closed bool

	// beforeSend, when set (tests), runs after the script is written and before the line is typed.
	beforeSend func(path string)
	// retype, when set (tests), replaces the typed line.
	retype func(line string) string
}

// New returns a Runner; it creates nothing until the first run.
func New() *Runner { return &Runner{} }

// Close removes the script directory. Runs still waiting keep waiting until their stream ends.
func (r *Runner) Close() {
	r.mu.Lock()
	dir := r.dir
	r.dir, r.closed = "", true
	r.mu.Unlock()
	if dir != "" {
		os.RemoveAll(dir)
	}
}

func (r *Runner) scriptDir() (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return "", errors.New("the runner is closed")
	}
	if r.dir == "" {
		dir, err := os.MkdirTemp("", "tmux-mcp-")
		if err != nil {
			return "", fmt.Errorf("creating the script directory: %w", err)
		}
		r.dir = dir
	}
	return r.dir, nil
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
// command over MaxCommand bytes.
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

// Run types the framed command into the pane and waits for its end, the timeout, the pane's
// death or ctx's cancellation. The caller has run Check and reserved the pane. Errors are
// returned only when nothing is running (Release was then called).
func (r *Runner) Run(ctx context.Context, ts *tmux.Server, req Request) (res Result, err error) {
	began := time.Now()
	release := onceFunc(req.Release)
	if err := ValidateCommand(req.Command); err != nil {
		release()
		return res, err
	}
	if req.MaxLines <= 0 {
		req.MaxLines = DefaultMaxLines
	}
	if req.MaxBytes <= 0 {
		req.MaxBytes = 1_000_000
	}
	dir, err := r.scriptDir()
	if err != nil {
		release()
		return res, err
	}
	path := filepath.Join(dir, "r"+strconv.FormatUint(r.seq.Add(1), 10))
	var id, script, typed string
	for try := 0; ; try++ {
		id = shellrun.NewID()
		script, typed, err = shellrun.ScriptKeepFile(req.Family, req.Pane.PaneCurrentCommand, id, req.Command, path)
		if !errors.Is(err, shellrun.ErrIDInCommand) || try == 3 {
			break
		}
	}
	if err != nil {
		release()
		return res, err
	}
	hub, err := ts.Hub()
	if err != nil {
		release()
		return res, err
	}
	w, err := hub.Watch(ctx, req.Pane.SessionID, req.Pane.PaneID)
	if err != nil && ctx.Err() == nil && !errors.Is(err, stream.ErrHubClosed) {
		// A failed attach is retried once: it can be transient (the session's connection
		// was being set up or torn down).
		w, err = hub.Watch(ctx, req.Pane.SessionID, req.Pane.PaneID)
	}
	if err != nil {
		release()
		return res, fmt.Errorf("watching pane %s: %w", req.Pane.PaneID, err)
	}
	// The offset is taken before anything is sent: nothing the command prints is lost.
	x := &run{ts: ts, w: w, off: w.Offset(), col: newCollector(id, bodyWindow), req: req, id: id, path: path, release: release}
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		x.finish()
		return res, fmt.Errorf("writing the wrapper script: %w", err)
	}
	if r.beforeSend != nil {
		r.beforeSend(path)
	}
	if req.History {
		typed = strings.TrimLeft(typed, " ")
	}
	if r.retype != nil {
		typed = r.retype(typed)
	}
	if req.Family == shellrun.POSIX {
		x.procs = watchShell(req.Pane.PanePID)
	}
	if err := x.send(ctx, typed); err != nil {
		x.finish()
		return res, err
	}
	sent := time.Now()

	wctx, cancel := context.WithTimeout(ctx, req.Timeout)
	werr := x.wait(wctx)
	cancel()
	res = x.result()
	switch {
	case x.col.done:
		res.Outcome = Completed
		st := x.col.status
		res.ExitStatus = &st
	case x.ended != nil:
		res.Outcome = PaneDied
	case werr != nil && ctx.Err() != nil:
		res.Outcome, res.StillRunning = Cancelled, true
	default:
		res.Outcome, res.StillRunning = TimedOut, true
	}
	res.Elapsed = time.Since(began)
	switch {
	case res.StillRunning:
		// The pane stays reserved until the command really ends.
		x.col.discard = true
		go x.background(sent)
	default:
		x.finish()
	}
	return res, nil
}

// startGrace bounds the wait for a start marker after the call returned: a shell at its prompt
// starts the wrapper at once, so when none came within this time of typing, the line was lost
// (an interrupted ksh93 discards its typeahead) and the run will never end: the pane is given
// back. A variable for tests.
var startGrace = 10 * time.Second

// background waits, after the call returned, for the command's real end, then frees the pane.
func (x *run) background(sent time.Time) {
	if !x.col.started {
		ctx, cancel := context.WithDeadline(context.Background(), sent.Add(startGrace))
		x.waitFor(ctx, func() bool { return x.col.started })
		cancel()
		if !x.col.started && !x.col.done && x.ended == nil {
			x.finish()
			return
		}
	}
	// A wrapper that lost its end marker ends when its processes do (see procs.go).
	x.waitFor(context.Background(), func() bool { return x.col.started && x.procs != nil && x.procs.gone() })
	x.finish()
}

// run is one run in progress.
type run struct {
	ts      *tmux.Server
	w       *stream.Watch
	off     int64
	col     *collector
	req     Request
	id      string
	path    string
	release func()

	missed    int64
	gaps      int
	ended     error // the stream's end reason
	inlined   bool  // the wrapper was typed inline (the shell could not read the file)
	rewatched bool
	removed   bool       // the script file was removed
	procs     *procWatch // the wrapper's processes, when they can be followed
}

// send types line and Enter in one command list (one round trip). It is not interrupted by
// the caller's cancellation: half a send would leave a line in the pane.
func (x *run) send(ctx context.Context, line string) error {
	pane := x.req.Pane.PaneID
	_, err := x.ts.Exec(context.WithoutCancel(ctx),
		[]string{"send-keys", "-t", pane, "-l", line},
		[]string{"send-keys", "-t", pane, "Enter"})
	if err != nil {
		return fmt.Errorf("typing into pane %s: %w", pane, err)
	}
	return nil
}

// wait consumes the stream until the end marker, the stream's end or ctx's end.
func (x *run) wait(ctx context.Context) error { return x.waitFor(ctx, nil) }

// waitFor is wait that also returns once stop (when not nil) reports true.
func (x *run) waitFor(ctx context.Context, stop func() bool) error {
	for {
		if x.pump() {
			if x.ended == nil || !errors.Is(x.ended, stream.ErrSessionGone) || x.rewatched {
				return nil
			}
			// The session carrying the stream went while the pane lives on in another one.
			x.rewatched = true
			w, err := x.ts.WatchPane(ctx, x.req.Pane.PaneID)
			if err != nil {
				return nil
			}
			x.w.Release()
			x.w, x.off, x.ended = w, w.Offset(), nil
			x.gaps++ // what was printed in between is lost
			continue
		}
		if stop != nil && stop() {
			return nil
		}
		x.maybeInline(ctx)
		if err := x.w.Wait(ctx, x.off); err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// pump reads what the stream holds; it reports true when the run is over (end marker seen or
// stream ended).
func (x *run) pump() bool {
	for {
		data, next, missed, err := x.w.Read(x.off, readChunk)
		if missed > 0 {
			x.missed += missed
			x.col.missed()
		}
		if len(data) > 0 {
			if g := x.w.Gaps(x.off, next); g > 0 {
				x.gaps += g
				x.col.missed()
			}
			x.off = next
			x.col.feed(data)
			if x.col.started && !x.removed {
				// The shell has the file open: it no longer needs its name.
				x.removed = true
				os.Remove(x.path)
			}
			if x.col.done {
				return true
			}
			continue
		}
		if err != nil {
			x.ended = err
			return true
		}
		return false
	}
}

// maybeInline types the whole wrapper once when the pane's shell failed to read the script
// file (it runs elsewhere: ssh, a container, another user).
func (x *run) maybeInline(ctx context.Context) {
	if x.inlined || x.col.started || !shellrun.SourcingFailed(x.col.pre, x.path) {
		return
	}
	x.inlined = true
	os.Remove(x.path)
	line, err := shellrun.InlineFor(x.req.Family, x.req.Pane.PaneCurrentCommand, x.id, x.req.Command)
	if err != nil {
		return
	}
	if x.req.History {
		line = strings.TrimLeft(line, " ")
	}
	x.col.resetPre() // the error message is not output
	_ = x.send(ctx, line)
}

// result shapes what was gathered.
func (x *run) result() Result {
	s := shape(x.col.output(), x.id, x.col.cutLines, x.req.MaxLines, x.req.MaxBytes)
	out := join(s.lines)
	return Result{
		Output:                 out,
		Lines:                  s.lines,
		DroppedLines:           s.dropped,
		OmittedBytes:           s.omitted,
		MissedBytes:            x.missed,
		ForeignOutputSuspected: s.foreign,
		OutputComplete: x.col.done && !x.col.lostStart && x.missed == 0 && x.gaps == 0 &&
			s.dropped == 0 && s.omitted == 0,
	}
}

// finish gives everything back: the stream, the script file (the wrapper removes it itself
// once it runs) and the pane's reservation.
func (x *run) finish() {
	x.w.Release()
	os.Remove(x.path)
	x.release()
}

func onceFunc(f func()) func() {
	if f == nil {
		return func() {}
	}
	return sync.OnceFunc(f)
}
