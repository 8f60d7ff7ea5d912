package stream

import (
	"context"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/control"
)

// link is one session's control connection and the panes watched through
// it. Lock order: Hub.mu before link.mu.
type link struct {
	hub     *Hub
	session string
	ready   chan struct{} // closed when the dial finished
	// attached is closed at the first %session-changed: tmux has attached
	// the client, so its commands have a current client.
	attached     chan struct{}
	attachedOnce sync.Once
	dialErr      error         // set before ready is closed
	conn         *control.Conn // set under Hub.mu when ready

	check     chan struct{} // capacity 1: a liveness check is due
	quit      chan struct{} // closed by shutdown
	closeOnce sync.Once

	mu        sync.Mutex
	c         *control.Conn // the connection as soon as Dial returned
	panes     map[string]*paneStream
	dead      bool
	moved     bool // the client left the session (%session-changed)
	replacing bool // Hub.replace is opening a connection to take over
	sawExit   bool
	timer     *time.Timer
	lingerGen int
}

// paneStream is one watched pane: its ring and the UTF-8 holdback in front
// of it. hold and scratch are guarded by link.mu; link, the link that
// carries it now (Hub.replace moves it), by Hub.mu.
type paneStream struct {
	id      string
	link    *link
	ring    *Ring
	refs    int
	gen     int64
	hold    Holdback
	scratch []byte
}

func newLink(h *Hub, session string) *link {
	return &link{
		hub:      h,
		session:  session,
		ready:    make(chan struct{}),
		attached: make(chan struct{}),
		check:    make(chan struct{}, 1),
		quit:     make(chan struct{}),
		panes:    make(map[string]*paneStream),
	}
}

// addWatch joins or starts pane's stream. Called with Hub.mu held on a live
// link.
func (l *link) addWatch(pane string) *Watch {
	l.mu.Lock()
	ps := l.panes[pane]
	fresh := ps == nil
	if fresh {
		ps = &paneStream{id: pane, link: l, ring: NewRing(l.hub.opts.RingSize), gen: l.hub.gen.Add(1)}
		l.panes[pane] = ps
	}
	ps.refs++
	l.stopLingerLocked()
	l.mu.Unlock()
	if fresh {
		l.kick() // find out soon whether the pane exists at all
	}
	return &Watch{hub: l.hub, session: l.session, ps: ps}
}

// release drops one reference to ps; the last one drops the stream, and the
// last stream starts the linger.
func (l *link) release(ps *paneStream) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ps.refs--
	if ps.refs > 0 {
		return
	}
	if l.panes[ps.id] == ps {
		delete(l.panes, ps.id)
		ps.ring.Close(ErrReleased)
	}
	if len(l.panes) == 0 && !l.dead {
		l.startLingerLocked()
	}
}

func (l *link) stopLingerLocked() {
	l.lingerGen++ // invalidates a timer that already fired
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
}

func (l *link) startLingerLocked() {
	l.stopLingerLocked()
	gen := l.lingerGen
	d := max(l.hub.opts.Linger, 0)
	l.timer = time.AfterFunc(d, func() { l.hub.closeIdle(l, gen) })
}

// onOutput appends a pane's output to its ring, if the pane is watched. It
// runs on the reader goroutine; o.Data is copied (the buffer is reused).
func (l *link) onOutput(o control.Output) {
	l.mu.Lock()
	if ps := l.panes[o.Pane]; ps != nil {
		ps.scratch = ps.hold.Append(ps.scratch[:0], o.Data)
		ps.ring.Write(ps.scratch)
		if cap(ps.scratch) > 1<<20 {
			ps.scratch = nil
		}
	}
	l.mu.Unlock()
}

// onNotification answers flow control, schedules liveness checks after
// topology changes, and relays every notification to the Hub's listeners.
// It runs on the reader goroutine, so it never waits for a reply.
func (l *link) onNotification(n control.Notification) {
	switch n.Name {
	case "pause":
		if len(n.Args) == 1 {
			pane := n.Args[0]
			l.mu.Lock()
			replace := false
			if ps := l.panes[pane]; ps != nil {
				// tmux discarded output it held for us: unknown bytes.
				ps.hold.Reset()
				ps.ring.MarkGap()
				replace = !l.replacing && !l.dead
				l.replacing = l.replacing || replace
			}
			c := l.c
			l.mu.Unlock()
			if c != nil {
				_ = c.Send([]string{"refresh-client", "-A", pane + ":continue"})
			}
			if replace {
				// Continuing is not always enough (see Hub.replace).
				go l.hub.replace(l)
			}
		}
	case "layout-change", "window-close", "unlinked-window-close", "window-pane-changed",
		"sessions-changed", "session-window-changed",
		// automatic-rename marks a window whose active pane died under
		// remain-on-exit ("bash[dead]"): the only sign tmux gives of it.
		"window-renamed":
		l.kick()
	case "session-changed":
		l.attachedOnce.Do(func() { close(l.attached) })
		// The client was moved to another session (its own was destroyed
		// under detach-on-destroy off): its output no longer covers ours.
		if len(n.Args) > 0 && n.Args[0] != l.session && len(l.session) > 0 && l.session[0] == '$' {
			l.mu.Lock()
			l.moved = true
			l.mu.Unlock()
			l.kick()
		}
	case "exit":
		l.mu.Lock()
		l.sawExit = true
		l.mu.Unlock()
	}
	l.hub.notifyListeners(l.session, n)
}

// kick schedules a liveness check; a burst of kicks costs one check.
func (l *link) kick() {
	select {
	case l.check <- struct{}{}:
	default:
	}
}

// run serves the link until its connection ends or it is shut down.
func (l *link) run() {
	for {
		select {
		case <-l.check:
			l.checkAlive()
			l.mu.Lock()
			moved := l.moved
			l.mu.Unlock()
			if moved {
				l.conn.Close() // the streams end through died below
			}
		case <-l.conn.Done():
			select {
			case <-l.quit: // we closed it: nothing died
			default:
				l.died()
			}
			return
		case <-l.quit:
			return
		}
	}
}

// checkAlive ends the streams of panes that Alive no longer lists. Only
// streams created before the call started are judged, so a pane created and
// watched while the call ran is not mistaken for a gone one.
func (l *link) checkAlive() {
	alive := l.hub.opts.Alive
	if alive == nil {
		return
	}
	g0 := l.hub.gen.Load()
	ids := l.paneIDs()
	if len(ids) == 0 {
		return // nothing to judge: spare the call
	}
	ctx, cancel := context.WithTimeout(l.hub.ctx, aliveTimeout)
	panes, err := alive(ctx, ids)
	cancel()
	if err != nil {
		return // a dead server shows up as the connection ending
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dead {
		return
	}
	removed := false
	for id, ps := range l.panes {
		if ps.gen <= g0 && !panes[id] {
			delete(l.panes, id)
			l.endLocked(ps, ErrPaneGone)
			removed = true
		}
	}
	if removed && len(l.panes) == 0 {
		l.startLingerLocked()
	}
}

// paneIDs lists the panes l streams.
func (l *link) paneIDs() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	ids := make([]string, 0, len(l.panes))
	for id := range l.panes {
		ids = append(ids, id)
	}
	return ids
}

// endLocked flushes ps's held bytes into its ring and ends it.
func (l *link) endLocked(ps *paneStream, reason error) {
	if held := ps.hold.Flush(); held != nil {
		ps.ring.Write(held)
	}
	ps.ring.Close(reason)
}

// died handles a connection that ended on its own: the server went away,
// the session was destroyed, or the client was moved. Alive tells which.
func (l *link) died() {
	l.hub.removeLink(l)
	l.mu.Lock()
	sawExit := l.sawExit
	l.mu.Unlock()
	if !sawExit {
		l.hub.notifyListeners(l.session, control.Notification{Name: "exit", Raw: "%exit"})
	}
	var alive map[string]bool
	if fn := l.hub.opts.Alive; fn != nil {
		ctx, cancel := context.WithTimeout(l.hub.ctx, postMortemTimeout)
		panes, err := fn(ctx, l.paneIDs())
		cancel()
		if err == nil {
			alive = panes
		}
	}
	l.shutdown(func(pane string) error {
		switch {
		case l.hub.ctx.Err() != nil:
			return ErrHubClosed
		case alive == nil:
			return ErrServerGone
		case !alive[pane]:
			return ErrPaneGone
		default:
			return ErrSessionGone
		}
	})
}

// shutdown ends every stream with reason(pane) (none when reason is nil),
// stops the linger and the run loop, and closes the connection.
func (l *link) shutdown(reason func(pane string) error) {
	l.mu.Lock()
	l.dead = true
	l.stopLingerLocked()
	panes := l.panes
	l.panes = make(map[string]*paneStream)
	for _, ps := range panes {
		r := ErrHubClosed
		if reason != nil {
			r = reason(ps.id)
		}
		l.endLocked(ps, r)
	}
	c := l.c
	l.mu.Unlock()
	l.closeOnce.Do(func() {
		close(l.quit)
		if c != nil {
			c.Close()
		}
	})
}
