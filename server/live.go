package server

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// liveIdle is how long a pane stream opened for cursors stays open with no call using it.
const liveIdle = 5 * time.Minute

// liveGen numbers the streams liveReads opens: a cursor names the one it was made in, so a
// stream that was closed and opened again (offsets restart) is recognised.
var liveGen atomic.Uint64

// liveReads keeps pane streams open between calls, so that a cursor handed out by one call can
// be read from by a later one (capture_since, wait_for_text). An entry is released after
// liveIdle without use, by a timer (nothing polls).
type liveReads struct {
	mu sync.Mutex
	m  map[paneKey]*liveEntry
}

// liveEntry is one open pane stream.
type liveEntry struct {
	key   paneKey
	w     *stream.Watch
	gen   uint64
	users int         // calls using it now
	timer *time.Timer // the idle release, armed while users == 0
	tgen  int         // invalidates a timer that fired while being re-armed
}

// Watch returns the entry's stream.
func (e *liveEntry) Watch() *stream.Watch { return e.w }

// acquire returns the open stream of the pane k (opening one when there is none or it ended);
// give it back with release.
func (lr *liveReads) acquire(ctx context.Context, ts *tmux.Server, k paneKey) (*liveEntry, error) {
	if e := lr.take(k); e != nil {
		return e, nil
	}
	w, err := ts.WatchPane(ctx, k.Pane)
	if err != nil {
		return nil, err
	}
	lr.mu.Lock()
	defer lr.mu.Unlock()
	if lr.m == nil {
		lr.m = map[paneKey]*liveEntry{}
	}
	if e := lr.m[k]; e != nil && e.w.Err() == nil {
		// Another call opened it meanwhile: share theirs.
		w.Release()
		lr.useLocked(e)
		return e, nil
	}
	e := &liveEntry{key: k, w: w, gen: liveGen.Add(1), users: 1}
	lr.m[k] = e
	return e, nil
}

// take returns the pane's live entry, in use, or nil (dropping an ended one).
func (lr *liveReads) take(k paneKey) *liveEntry {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	e := lr.m[k]
	if e == nil {
		return nil
	}
	if e.w.Err() != nil {
		delete(lr.m, k)
		e.w.Release()
		return nil
	}
	lr.useLocked(e)
	return e
}

func (lr *liveReads) useLocked(e *liveEntry) {
	e.users++
	e.tgen++
	if e.timer != nil {
		e.timer.Stop()
		e.timer = nil
	}
}

// peek returns the pane's live entry without using it, or nil.
func (lr *liveReads) peek(k paneKey) *liveEntry {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	return lr.m[k]
}

// release gives an entry back; the last user arms its idle release.
func (lr *liveReads) release(e *liveEntry) {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	e.users--
	if e.users > 0 {
		return
	}
	if lr.m[e.key] != e || e.w.Err() != nil {
		if lr.m[e.key] == e {
			delete(lr.m, e.key)
		}
		e.w.Release()
		return
	}
	e.tgen++
	tgen := e.tgen
	e.timer = time.AfterFunc(liveIdle, func() { lr.expire(e, tgen) })
}

// drop forgets an entry whose stream can no longer serve (it ended).
func (lr *liveReads) drop(e *liveEntry) {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	if lr.m[e.key] == e {
		delete(lr.m, e.key)
	}
}

func (lr *liveReads) expire(e *liveEntry, tgen int) {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	if e.tgen != tgen || e.users > 0 {
		return
	}
	if lr.m[e.key] == e {
		delete(lr.m, e.key)
	}
	e.w.Release()
}

// closeAll releases every stream (the server is closing).
func (lr *liveReads) closeAll() {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	for k, e := range lr.m {
		if e.timer != nil {
			e.timer.Stop()
		}
		e.tgen++
		e.w.Release()
		delete(lr.m, k)
	}
}
