// Package topowatch tells when the sessions, windows and panes of tmux servers change. Per
// server it runs one control client per session (tmux reports pane changes only to clients of
// the pane's session) and, whenever one reports a change, compares the server's sessions,
// windows and panes with the last look. Nothing polls. The package knows nothing of MCP.
package topowatch

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/control"
)

const (
	// retryAfter spaces out attempts to watch a server that could not be watched.
	retryAfter = time.Second
	// maxSessions bounds the control clients of one server's watch; sessions beyond it still
	// announce windows and sessions coming and going, not panes.
	maxSessions = 64
	// lookTimeout bounds one look at a server and one attach.
	lookTimeout = 5 * time.Second
)

// Events are what a watch of one server reports, each on the watch's goroutine.
type Events struct {
	// Changed: sessions, windows or panes came, went, moved or were renamed.
	Changed func()
	// Gone: the server, which had panes, no longer runs.
	Gone func()
}

// Watcher watches tmux servers. The zero value is ready to use.
type Watcher struct {
	mu     sync.Mutex
	m      map[*tmux.Server]*entry
	closed bool
	quit   chan struct{} // closed by Close
}

type entry struct {
	ts      *tmux.Server
	ev      Events
	running bool // run serves the entry
	retryAt time.Time
	kick    chan struct{} // capacity 1: a look is due
	watches map[string]*tmux.TopologyWatch
	seen    bool   // last holds a state
	last    string // sessions, windows and panes at the last look
}

// Ensure starts watching ts unless its watch runs (or failed a moment ago). It never waits.
// The watch ends when the server has no session left to attach to; call Ensure again later.
func (tw *Watcher) Ensure(ts *tmux.Server, ev Events) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.closed {
		return
	}
	if tw.m == nil {
		tw.m = map[*tmux.Server]*entry{}
		tw.quit = make(chan struct{})
	}
	e := tw.m[ts]
	if e == nil {
		e = &entry{ts: ts, kick: make(chan struct{}, 1), watches: map[string]*tmux.TopologyWatch{}}
		tw.m[ts] = e
	}
	e.ev = ev
	if e.running || time.Now().Before(e.retryAt) {
		return
	}
	e.running = true
	go tw.run(e, tw.quit)
}

// Restart starts again, at once, the stopped watch of a server watched before: after a
// session was created there, a watch that stopped because the server had no session (or was
// not running) sees nothing by itself.
func (tw *Watcher) Restart(ts *tmux.Server, ev Events) {
	tw.mu.Lock()
	e := tw.m[ts]
	if e == nil || e.running {
		tw.mu.Unlock()
		return
	}
	e.retryAt = time.Time{}
	tw.mu.Unlock()
	tw.Ensure(ts, ev)
}

// Close ends every watch.
func (tw *Watcher) Close() {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.closed {
		return
	}
	tw.closed = true
	if tw.quit != nil {
		close(tw.quit)
	}
	for _, e := range tw.m {
		e.closeWatchesLocked()
	}
}

func (e *entry) poke() {
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

func (e *entry) closeWatchesLocked() {
	for id, w := range e.watches {
		w.Close()
		delete(e.watches, id)
	}
}

// run looks and re-attaches whenever tmux reports a change, until the server has no session
// left to attach to.
func (tw *Watcher) run(e *entry, quit chan struct{}) {
	for {
		sessions := tw.look(e)
		tw.mu.Lock()
		closed := tw.closed
		tw.mu.Unlock()
		live := 0
		if !closed {
			live = tw.attach(e, sessions)
		}
		if closed || live == 0 {
			tw.mu.Lock()
			e.closeWatchesLocked()
			e.running = false
			e.retryAt = time.Now().Add(retryAfter)
			tw.mu.Unlock()
			return
		}
		select {
		case <-e.kick:
		case <-quit:
		}
	}
}

// attach gives every session a watch (dropping those of sessions gone or watches that ended)
// and returns how many watches run.
func (tw *Watcher) attach(e *entry, sessions []string) int {
	for _, id := range tw.missing(e, sessions) {
		ctx, cancel := context.WithTimeout(context.Background(), lookTimeout)
		w, err := e.ts.WatchSessionTopology(ctx, id, func(n control.Notification) {
			if tmux.TopologyChange(n) {
				e.poke()
			}
		})
		cancel()
		if err != nil {
			continue // the session went away meanwhile: the next look sees it
		}
		go func() {
			<-w.Done()
			e.poke()
		}()
		tw.mu.Lock()
		if tw.closed {
			w.Close()
		} else {
			e.watches[id] = w
		}
		tw.mu.Unlock()
		// Attaching took a moment: what changed meanwhile is caught by the look it triggers.
		e.poke()
	}
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return len(e.watches)
}

// missing drops the watches of sessions gone and watches that ended, and returns the sessions
// to attach to.
func (tw *Watcher) missing(e *entry, sessions []string) []string {
	want := map[string]bool{}
	for _, id := range sessions {
		want[id] = true
	}
	tw.mu.Lock()
	defer tw.mu.Unlock()
	for id, w := range e.watches {
		select {
		case <-w.Done():
			delete(e.watches, id)
		default:
			if !want[id] {
				w.Close()
				delete(e.watches, id)
			}
		}
	}
	var missing []string
	for _, id := range sessions {
		if e.watches[id] == nil && len(e.watches)+len(missing) < maxSessions {
			missing = append(missing, id)
		}
	}
	return missing
}

// look compares the server's sessions, windows and panes with the last look, reports a
// change, and returns the session ids.
func (tw *Watcher) look(e *entry) []string {
	ctx, cancel := context.WithTimeout(context.Background(), lookTimeout)
	defer cancel()
	st := &tmux.TopologyState{}
	err := e.ts.Do(ctx, st)
	if err != nil {
		st = &tmux.TopologyState{}
	}
	tw.mu.Lock()
	changed := e.seen && st.State != e.last
	gone := e.seen && e.last != "" && errors.Is(err, tmux.ErrServerNotRunning)
	e.seen, e.last = true, st.State
	ev := e.ev
	tw.mu.Unlock()
	if changed && ev.Changed != nil {
		ev.Changed()
	}
	if gone && ev.Gone != nil {
		ev.Gone()
	}
	return st.Sessions
}
