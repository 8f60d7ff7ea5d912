package runner

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Key names a pane on one tmux daemon: a restarted server reuses pane ids.
type Key struct {
	Daemon tmux.Identity
	Pane   string
}

func (k Key) String() string { return fmt.Sprintf("%s@%d", k.Pane, k.Daemon.PID) }

// Record is one run, kept after it ended until the next run in its pane: a run that outlived
// its call (timed out, cancelled) can be waited for and its result read later.
type Record struct {
	Key     Key
	Holder  string // names the run while it holds the pane, e.g. `run_shell_command "make"`
	Command string
	Started time.Time
	// size is the pane's width and height when the run began: the next run without a process
	// table tells from it that the pane was resized since (see awaitSize).
	size [2]int

	done chan struct{} // closed once the command ended (or the run was given up)

	mu    sync.Mutex
	live  *run           // while it runs
	final *Result        // once it ended
	onEnd []func(Result) // called with the final result before Done closes (OnEnd)
}

// OnEnd has f called with the run's final result as it ends, before Done is closed: what f
// does (a recording's marker) is done by the time a waiter sees the end. A run already ended
// has f called at once.
func (rec *Record) OnEnd(f func(Result)) {
	rec.mu.Lock()
	final := rec.final
	if final == nil {
		rec.onEnd = append(rec.onEnd, f)
	}
	rec.mu.Unlock()
	if final != nil {
		f(*final)
	}
}

// ended returns the run's final result, and false while it runs.
func (rec *Record) ended() (Result, bool) {
	select {
	case <-rec.done:
		return rec.Result(), true
	default:
		return Result{}, false
	}
}

// Done is closed once the command ended: its end marker came, its pane died or was
// respawned, or (without one) the shell was seen back at its prompt.
func (rec *Record) Done() <-chan struct{} { return rec.done }

// Result returns the run's result: the final one once Done is closed, else what it has
// printed so far with Outcome TimedOut and StillRunning set (WaitingForInput says whether its
// foreground program waits to read the terminal). A run whose end is known but that still
// holds its pane (settling: its shell runs its prompt hooks, up to shellWait) has its outcome
// already.
func (rec *Record) Result() Result {
	rec.mu.Lock()
	final, x := rec.final, rec.live
	rec.mu.Unlock()
	if final != nil {
		return *final
	}
	if x == nil {
		return Result{Outcome: TimedOut, StillRunning: true}
	}
	res := x.snapshot()
	if res.Outcome == "" {
		res.Outcome, res.StillRunning = TimedOut, true
	}
	res.Elapsed = time.Since(rec.Started)
	return res
}

// settling reports whether the run's end is known while it still holds its pane (settle).
func (rec *Record) settling() bool {
	rec.mu.Lock()
	x := rec.live
	rec.mu.Unlock()
	return x != nil && x.over()
}

// registry holds the runs of a Runner by pane: the one holding a pane (reserved) and the last
// one of every pane (records).
type registry struct {
	mu       sync.Mutex
	reserved map[Key]*Record
	records  map[Key]*Record
}

// reserve takes the pane for a new run; it fails naming the holder when the pane is taken.
func (g *registry) reserve(k Key, holder, command string) (*Record, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.reserved == nil {
		g.reserved, g.records = map[Key]*Record{}, map[Key]*Record{}
	}
	if h, ok := g.reserved[k]; ok {
		return nil, &Refusal{Reason: Busy, Pane: k.Pane, Holder: h.Holder}
	}
	rec := &Record{Key: k, Holder: holder, Command: command, Started: time.Now(), done: make(chan struct{})}
	g.reserved[k] = rec
	return rec, nil
}

// attach makes rec the pane's record once something ran (the line was entered).
func (g *registry) attach(rec *Record) {
	g.mu.Lock()
	g.records[rec.Key] = rec
	g.mu.Unlock()
}

// end frees the pane and keeps res as the record's final result (res is nil when nothing
// ran: the previous record stays).
func (g *registry) end(rec *Record, res *Result) {
	g.mu.Lock()
	if g.reserved[rec.Key] == rec {
		delete(g.reserved, rec.Key)
	}
	g.mu.Unlock()
	rec.mu.Lock()
	if rec.final != nil {
		rec.mu.Unlock()
		return
	}
	if res == nil {
		res = &Result{Outcome: PaneDied}
	}
	rec.final, rec.live = res, nil
	onEnd := rec.onEnd
	rec.onEnd = nil
	rec.mu.Unlock()
	for _, f := range onEnd {
		f(*res)
	}
	close(rec.done)
}

// holder returns what reserves the pane, if anything.
func (g *registry) holder(k Key) (string, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if rec, ok := g.reserved[k]; ok {
		return rec.Holder, true
	}
	return "", false
}

func (g *registry) current(k Key) *Record {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.reserved[k]
}

func (g *registry) last(k Key) *Record {
	g.mu.Lock()
	defer g.mu.Unlock()
	if rec, ok := g.reserved[k]; ok && rec.live != nil {
		return rec
	}
	return g.records[k]
}

// Holder returns what holds pane k (a run of this Runner), if anything: other input into the
// pane is refused meanwhile, except as input for the running command (Input).
func (r *Runner) Holder(k Key) (string, bool) { return r.reg.holder(k) }

// Ending is how long input into a pane a run holds, or another run there, waits for the
// holding run to end before it is refused: a command's last output comes a moment before its
// end marker and the shell's prompt, so an agent that saw that output (wait_for_text) and
// typed the next thing at once was told the pane is busy.
const Ending = 1500 * time.Millisecond

// HolderAfter is Holder after waiting up to grace (or ctx) for the run holding pane k to end;
// for one that ended and waits for its shell's prompt (settling), up to that wait's bound: a
// wait_for_run said it completed.
func (r *Runner) HolderAfter(ctx context.Context, k Key, grace time.Duration) (string, bool) {
	rec := r.reg.current(k)
	if rec == nil {
		return "", false
	}
	if rec.settling() {
		grace = max(grace, shellWait)
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-rec.done:
	case <-t.C:
	case <-ctx.Done():
	}
	return r.reg.holder(k)
}

// Last returns the run holding pane k, else the last run that ran there, else nil.
func (r *Runner) Last(k Key) *Record { return r.reg.last(k) }

// Await waits until rec ended or ctx is done, and returns its result (see Record.Result). It
// sends progress about every second while it waits, when progress is not nil.
func (r *Runner) Await(ctx context.Context, rec *Record, progress func(Progress)) Result {
	stop := startProgress(progress, func() Progress { return rec.progress() })
	defer stop()
	waits := rec.waitsForInput(time.Now())
	for {
		select {
		case <-rec.done:
		case <-ctx.Done():
		case <-waits.C:
			if !waits.now() {
				continue
			}
		}
		waits.Stop()
		return rec.Result()
	}
}

// Abandon ends the run holding pane k now, with outcome PaneDied: its pane was killed or
// respawned, so its end marker will never come. It reports whether a run held the pane. It
// returns once the run's result is kept (bounded by abandonWait): a wait_for_run right after
// a kill or respawn reports pane_died, not a run still going while it finishes (it removes
// its name from the pane, a tmux round trip, before it frees the pane).
func (r *Runner) Abandon(k Key) bool {
	rec := r.reg.current(k)
	if rec == nil {
		return false
	}
	rec.mu.Lock()
	x := rec.live
	rec.mu.Unlock()
	if x == nil {
		r.reg.end(rec, nil)
		return true
	}
	x.abandon()
	t := time.NewTimer(abandonWait)
	defer t.Stop()
	select {
	case <-rec.done:
	case <-t.C:
	}
	return true
}

// abandonWait bounds how long Abandon waits for the abandoned run to finish.
const abandonWait = 5 * time.Second

// Input sends keys (typed by send) to the command a run holds pane k with, as its input: an
// answer to its prompt, keys for a full-screen program it started. The terminal's echo of text
// is left out of the run's output. It fails when no run holds the pane.
func (r *Runner) Input(k Key, text string, send func() error) error {
	rec := r.reg.current(k)
	if rec == nil {
		return fmt.Errorf("no run holds pane %s", k.Pane)
	}
	rec.mu.Lock()
	x := rec.live
	rec.mu.Unlock()
	if x == nil {
		return fmt.Errorf("the run in pane %s has not started its command yet", k.Pane)
	}
	x.expectEcho(text)
	return send()
}

// Progress is what a run has done so far.
type Progress struct {
	Elapsed time.Duration
	Printed int64 // bytes the command printed
}

func (rec *Record) progress() Progress {
	rec.mu.Lock()
	x := rec.live
	rec.mu.Unlock()
	p := Progress{Elapsed: time.Since(rec.Started)}
	if x != nil {
		p.Printed = x.printed()
	}
	return p
}

// startProgress calls send with what get returns about every second until stop is called.
func startProgress(send func(Progress), get func() Progress) (stop func()) {
	if send == nil {
		return func() {}
	}
	t := time.NewTicker(time.Second)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-t.C:
				send(get())
			case <-done:
				return
			}
		}
	}()
	return func() {
		t.Stop()
		close(done)
		wg.Wait()
	}
}
