package stream

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// KeepIdle is how long a Keeper keeps a stream open with no caller using it.
const KeepIdle = 5 * time.Minute

// keptGen numbers the streams Keepers open, across the process: a cursor names the one it was
// made in, so a stream that was closed and opened again (offsets restart) is recognised.
var keptGen atomic.Uint64

// Keeper keeps pane streams open between calls, by a key K naming the pane, so that a cursor
// handed out by one call can be read from by a later one. An entry is released after KeepIdle
// without use, by a timer (nothing polls). The zero value is ready to use.
type Keeper[K comparable] struct {
	mu sync.Mutex
	m  map[K]*Kept[K]
}

// Kept is one open stream of a Keeper.
type Kept[K comparable] struct {
	key   K
	w     *Watch
	gen   uint64
	users int         // callers using it now
	timer *time.Timer // the idle release, armed while users == 0
	tgen  int         // invalidates a timer that fired while being re-armed
}

// Watch returns the kept stream.
func (e *Kept[K]) Watch() *Watch { return e.w }

// Gen returns the stream's generation: unique in the process, and new when a stream of the
// same pane is opened again.
func (e *Kept[K]) Gen() uint64 { return e.gen }

// Acquire returns the open stream of pane k, opening one with open when there is none or it
// ended; give it back with Release.
func (lr *Keeper[K]) Acquire(ctx context.Context, k K, open func(context.Context) (*Watch, error)) (*Kept[K], error) {
	if e := lr.take(k); e != nil {
		return e, nil
	}
	w, err := open(ctx)
	if err != nil {
		return nil, err
	}
	lr.mu.Lock()
	defer lr.mu.Unlock()
	if lr.m == nil {
		lr.m = map[K]*Kept[K]{}
	}
	if e := lr.m[k]; e != nil && e.w.Err() == nil {
		// Another caller opened it meanwhile: share theirs.
		w.Release()
		lr.useLocked(e)
		return e, nil
	}
	e := &Kept[K]{key: k, w: w, gen: keptGen.Add(1), users: 1}
	lr.m[k] = e
	return e, nil
}

// take returns the pane's entry, in use, or nil (dropping an ended one).
func (lr *Keeper[K]) take(k K) *Kept[K] {
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

func (lr *Keeper[K]) useLocked(e *Kept[K]) {
	e.users++
	e.tgen++
	if e.timer != nil {
		e.timer.Stop()
		e.timer = nil
	}
}

// Release gives an entry back; the last user arms its idle release.
func (lr *Keeper[K]) Release(e *Kept[K]) {
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
	e.timer = time.AfterFunc(KeepIdle, func() { lr.expire(e, tgen) })
}

// Drop forgets an entry whose stream can no longer serve (it ended); its users still
// Release it.
func (lr *Keeper[K]) Drop(e *Kept[K]) {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	if lr.m[e.key] == e {
		delete(lr.m, e.key)
	}
}

func (lr *Keeper[K]) expire(e *Kept[K], tgen int) {
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

// CloseAll releases every stream (the owner is closing).
func (lr *Keeper[K]) CloseAll() {
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
