package server

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/marks"
	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// maxFollowed bounds the panes whose commands are followed at once: each holds a live stream
// (its ring grows to 1 MiB). Past it, the pane followed longest without a look is let go.
const maxFollowed = 64

// Pane options that tell doctor (and another process of this server) about a pane's marks:
// the shell this server started with its integration, and that marks were seen.
const (
	integrationOption = "@tmux_mcp_shell_integration"
	marksSeenOption   = "@tmux_mcp_marks_seen"
)

// follows are the panes whose shell-integration marks this server follows (commands.go).
type follows struct {
	mu     sync.Mutex
	m      map[paneKey]*paneFollow
	closed bool
	nextID uint64
}

// paneFollow is one followed pane: its live stream, read by its own goroutine into a history.
type paneFollow struct {
	key       paneKey
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
	flagged bool          // marksSeenOption was set
	read    int64         // offset read up to, in the current stream
	adv     chan struct{} // closed when read advances (or the follow ends)
}

// caughtUp waits (a little at most) until the history holds what the pane's stream held when
// called, so that a result reflects the output read so far.
func (f *paneFollow) caughtUp(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	f.mu.Lock()
	w := f.w
	f.mu.Unlock()
	target := w.Offset()
	for {
		f.mu.Lock()
		done := f.w != w || f.read >= target || f.ended != nil
		adv := f.adv
		f.mu.Unlock()
		if done {
			return
		}
		select {
		case <-adv:
		case <-ctx.Done():
			return
		}
	}
}

// advanced records that the reader reached off; called with f.mu held.
func (f *paneFollow) advancedLocked(off int64) {
	f.read = off
	close(f.adv)
	f.adv = make(chan struct{})
}

// follow returns pane's follow, starting one (before the pane's shell prints, when fromStart).
func (fs *follows) follow(ctx context.Context, ts *tmux.Server, pane string, fromStart bool) (*paneFollow, error) {
	id, err := ts.Identity(ctx)
	if err != nil {
		return nil, err
	}
	key := paneKey{Daemon: id, Pane: pane}
	fs.mu.Lock()
	if f := fs.m[key]; f != nil && f.alive() {
		fs.mu.Unlock()
		f.touch()
		return f, nil
	}
	fs.mu.Unlock()
	w, err := ts.WatchPane(ctx, pane)
	if err != nil {
		return nil, err
	}
	off := w.Offset() // now, not when the reader starts: a new shell's first prompt may be next
	fctx, cancel := context.WithCancel(context.Background())
	f := &paneFollow{key: key, since: time.Now(), fromStart: fromStart, cancel: cancel, done: make(chan struct{}), w: w, used: time.Now(), adv: make(chan struct{})}
	fs.mu.Lock()
	if fs.closed {
		fs.mu.Unlock()
		cancel()
		w.Release()
		return nil, tmux.ErrClosed
	}
	if old := fs.m[key]; old != nil && old.alive() {
		fs.mu.Unlock() // another call started it meanwhile
		cancel()
		w.Release()
		old.touch()
		return old, nil
	}
	if fs.m == nil {
		fs.m = map[paneKey]*paneFollow{}
	}
	fs.evictLocked()
	fs.nextID++
	f.stream = fs.nextID
	f.h.NewStream(f.stream)
	fs.m[key] = f
	fs.mu.Unlock()
	go f.run(fctx, ts, fs, off)
	return f, nil
}

// evictLocked lets go of the pane looked at least recently when too many are followed.
func (fs *follows) evictLocked() {
	if len(fs.m) < maxFollowed {
		return
	}
	var oldest *paneFollow
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

// get returns the follow of a pane, if any.
func (fs *follows) get(key paneKey) *paneFollow {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.m[key]
}

// noteRun starts following the pane of a run about to start, so that the run is listed with
// its command line. Call the returned func once the run returned.
func (fs *follows) noteRun(ctx context.Context, ts *tmux.Server, pane, command string) func() {
	f, err := fs.follow(ctx, ts, pane, false)
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

func (fs *follows) closeAll() {
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

func (f *paneFollow) alive() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ended == nil
}

func (f *paneFollow) touch() {
	f.mu.Lock()
	f.used = time.Now()
	f.mu.Unlock()
}

// run reads the pane's stream into the history until the pane is gone or the follow ends.
func (f *paneFollow) run(ctx context.Context, ts *tmux.Server, fs *follows, off int64) {
	defer close(f.done)
	f.mu.Lock()
	w := f.w
	f.advancedLocked(off)
	f.mu.Unlock()
	if !f.fromStart {
		f.queryCwd(ctx, ts) // the directory of the first command, in a shell without OSC 7
	}
	var buf []byte
	for {
		data, next, missed, err := w.AppendRead(buf, off, 64<<10)
		buf = data[:0]
		if missed > 0 || (len(data) > 0 && w.Gaps(off, next) > 0) {
			f.mu.Lock()
			f.h.Gap()
			f.mu.Unlock()
		}
		if len(data) > 0 {
			f.take(ctx, ts, data, next-int64(len(data)))
			off = next
			continue
		}
		if err == nil {
			err = w.Wait(ctx, off)
			if err == nil {
				continue
			}
		}
		if ctx.Err() == nil && !errors.Is(err, stream.ErrPaneGone) {
			// The connection went (the pane's session ended but the pane lives on elsewhere,
			// or tmux was reconnected): follow it on a new stream, with a gap.
			if nw, werr := ts.WatchPane(ctx, f.key.Pane); werr == nil {
				fs.mu.Lock()
				fs.nextID++
				id := fs.nextID
				fs.mu.Unlock()
				f.mu.Lock()
				w.Release()
				w, f.w, f.stream = nw, nw, id
				f.h.NewStream(id)
				off = w.Offset()
				f.advancedLocked(off)
				f.mu.Unlock()
				continue
			}
		}
		f.mu.Lock()
		f.ended = err
		if f.ended == nil {
			f.ended = ctx.Err()
		}
		w.Release()
		f.advancedLocked(off)
		f.mu.Unlock()
		fs.mu.Lock()
		if fs.m[f.key] == f {
			delete(fs.m, f.key)
		}
		fs.mu.Unlock()
		return
	}
}

// take feeds data (at offset off) to the history, then does what the marks ask of tmux: the
// directory of a shell that does not report it, and the pane option doctor reads.
func (f *paneFollow) take(ctx context.Context, ts *tmux.Server, data []byte, off int64) {
	f.mu.Lock()
	done := f.h.Finished()
	f.h.Write(data, off, time.Now())
	f.advancedLocked(off + int64(len(data)))
	needCwd := f.h.Finished() != done && f.h.AtPrompt() && !f.h.SawCwd()
	flag := f.h.SawMarks() && !f.flagged
	f.flagged = f.flagged || flag
	f.mu.Unlock()
	if !needCwd && !flag {
		return
	}
	qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if flag {
		_, _ = ts.Exec(qctx, []string{"set-option", "-p", "-t", f.key.Pane, marksSeenOption, "1"})
	}
	if needCwd {
		f.queryCwd(qctx, ts) // at its prompt the shell's directory is where its next command runs
	}
}

// queryCwd sets the directory of the next command from tmux, for a shell without OSC 7.
func (f *paneFollow) queryCwd(ctx context.Context, ts *tmux.Server) {
	out, err := ts.Query(ctx, []string{"display-message", "-p", "-t", f.key.Pane, "#{pane_current_path}"})
	if err == nil && len(out) > 0 && len(out[0]) == 1 && out[0][0] != "" {
		f.mu.Lock()
		f.h.SetCwd(out[0][0])
		f.mu.Unlock()
	}
}
