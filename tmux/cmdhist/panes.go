package cmdhist

import (
	"context"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/marks"
	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// MaxFollowed bounds the panes followed at once: each holds a live stream (its ring grows to
// 1 MiB). Past it, the pane followed longest without a look is let go.
const MaxFollowed = 64

// MarksSeenOption is the pane option set once a pane showed marks: it tells doctor (and
// another process of this server) that the pane's commands can be listed.
const MarksSeenOption = "@tmux_mcp_marks_seen"

// key names a pane on one daemon: a restarted server reuses pane ids.
type key struct {
	daemon tmux.Identity
	pane   string
}

// Panes are the panes whose marks are followed. The zero value is ready to use.
type Panes struct {
	mu     sync.Mutex
	m      map[key]*Pane
	closed bool
	nextID uint64
}

// Pane is one followed pane: its live stream, read by its own goroutine into a history.
type Pane struct {
	key       key
	since     time.Time
	fromStart bool // followed since its shell started
	cancel    context.CancelFunc
	done      chan struct{}

	mu      sync.Mutex
	h       marks.History
	w       *stream.Watch
	stream  uint64
	ended   error
	used    time.Time
	flagged bool          // MarksSeenOption was set
	read    int64         // offset read up to, in the current stream
	adv     chan struct{} // closed when read advances (or the follow ends)
}

// ID is the pane's id.
func (f *Pane) ID() string { return f.key.pane }

// Since is when the pane began to be followed.
func (f *Pane) Since() time.Time { return f.since }

// FromStart says the pane was followed from its shell's start: no command is unknown.
func (f *Pane) FromStart() bool { return f.fromStart }

// Follow returns pane's follow on ts, starting one (before the pane's shell prints, when
// fromStart: call it right after creating the pane).
func (fs *Panes) Follow(ctx context.Context, ts *tmux.Server, pane string, fromStart bool) (*Pane, error) {
	id, err := ts.Identity(ctx)
	if err != nil {
		return nil, err
	}
	k := key{daemon: id, pane: pane}
	if f := fs.get(k); f != nil && f.alive() {
		f.touch()
		return f, nil
	}
	w, err := ts.WatchPane(ctx, pane)
	if err != nil {
		return nil, err
	}
	off := w.Offset() // now, not when the reader starts: a new shell's first prompt may be next
	fctx, cancel := context.WithCancel(context.Background())
	f := &Pane{key: k, since: time.Now(), fromStart: fromStart, cancel: cancel, done: make(chan struct{}), w: w, used: time.Now(), adv: make(chan struct{})}
	if fromStart {
		f.h.AtStart()
	}
	if old, err := fs.add(f); old != nil || err != nil {
		cancel()
		w.Release()
		if old != nil {
			old.touch()
		}
		return old, err
	}
	go f.run(fctx, ts, fs, off)
	return f, nil
}

// add records f unless the follows are closed or another call started one meanwhile (old).
func (fs *Panes) add(f *Pane) (old *Pane, err error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.closed {
		return nil, tmux.ErrClosed
	}
	if old := fs.m[f.key]; old != nil && old.alive() {
		return old, nil
	}
	if fs.m == nil {
		fs.m = map[key]*Pane{}
	}
	fs.evictLocked()
	f.stream = fs.newStreamLocked()
	f.h.NewStream(f.stream)
	fs.m[f.key] = f
	return nil, nil
}

func (fs *Panes) newStreamLocked() uint64 {
	fs.nextID++
	return fs.nextID
}

// evictLocked lets go of the pane looked at least recently when too many are followed.
func (fs *Panes) evictLocked() {
	if len(fs.m) < MaxFollowed {
		return
	}
	var oldest *Pane
	for _, f := range fs.m {
		f.mu.Lock()
		if oldest == nil || f.used.Before(oldest.used) {
			oldest = f
		}
		f.mu.Unlock()
	}
	delete(fs.m, oldest.key)
	oldest.cancel()
}

func (fs *Panes) get(k key) *Pane {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.m[k]
}

// forget drops f, once its follow ended.
func (fs *Panes) forget(f *Pane) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.m[f.key] == f {
		delete(fs.m, f.key)
	}
}

// NoteRun starts following the pane of a run about to start, so that the run is listed with
// its command line (ByServer). Call the returned func once the run returned.
func (fs *Panes) NoteRun(ctx context.Context, ts *tmux.Server, pane, command string) func() {
	f, err := fs.Follow(ctx, ts, pane, false)
	if err != nil {
		return func() {}
	}
	f.mu.Lock()
	f.h.Runs(command)
	f.mu.Unlock()
	return func() {
		// A run that never started leaves its line queued: the next run must not take it.
		// The start marker was read before the run returned (the runner reads the same
		// stream), but this pane's reader may not have reached it yet: wait for it.
		f.caughtUp(ctx)
		f.mu.Lock()
		f.h.Unqueue(command)
		f.mu.Unlock()
	}
}

// Close stops following every pane.
func (fs *Panes) Close() {
	fs.mu.Lock()
	fs.closed = true
	all := fs.m
	fs.m = nil
	fs.mu.Unlock()
	for _, f := range all {
		f.cancel()
		<-f.done
	}
}

func (f *Pane) alive() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ended == nil
}

func (f *Pane) touch() {
	f.mu.Lock()
	f.used = time.Now()
	f.mu.Unlock()
}
