package stream

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/control"
)

// Defaults of HubOptions.
const (
	DefaultLinger      = 30 * time.Second
	DefaultPauseAfter  = 3 // seconds
	DefaultDialTimeout = 10 * time.Second
	// aliveTimeout bounds one Alive call.
	aliveTimeout = 5 * time.Second
	// postMortemTimeout bounds the Alive call that decides, after a
	// connection died, whether the server is gone: it must be quick.
	postMortemTimeout = 700 * time.Millisecond
)

// HubOptions configure a Hub.
type HubOptions struct {
	// Dial opens a control connection attached to the session sessionID
	// (normally `tmux -C attach -t <id>`), passing opts to control.NewConn
	// unchanged: the Hub learns that the attach has finished from the
	// %session-changed notification tmux sends then (commands that run
	// earlier fail with "no current client"), so Dial may return before
	// it. ctx bounds only the attach: the connection must outlive it (do
	// not tie the process to ctx). Required.
	Dial func(ctx context.Context, sessionID string, opts control.Options) (*control.Conn, error)
	// Alive says which of panes (the ones a connection streams) exist and
	// are not dead; it may list others too. The Hub calls it when a pane is
	// first watched and after topology notifications (coalesced: a burst
	// costs one call, off the reader goroutine) to end the streams of panes
	// that are gone, and once after a connection dies to tell a vanished
	// server from a destroyed session. It is asked about the watched panes
	// alone so that its cost does not grow with the server's pane count.
	// Nil disables both: streams then end only with their connection, as
	// ErrServerGone.
	Alive func(ctx context.Context, panes []string) (map[string]bool, error)
	// RingSize is each watched pane's ring capacity (DefaultRingSize when
	// <= 0).
	RingSize int
	// Linger is how long a connection stays open with nothing watched
	// (DefaultLinger when 0; a negative value closes it at once).
	Linger time.Duration
	// PauseAfter is tmux's pause-after flow-control age in seconds
	// (DefaultPauseAfter when <= 0): output tmux has held that long for a
	// client that does not read is discarded and the pane paused, which the
	// Hub answers at once with continue and a fresh connection for the
	// session (see Hub.replace); the loss is recorded as a gap. It only
	// fires when this process stalls; the ring bounds memory.
	PauseAfter int
	// DialTimeout bounds an attach plus its setup (DefaultDialTimeout when
	// <= 0).
	DialTimeout time.Duration
}

// Hub runs live pane streams: one control connection per tmux session that
// holds a watched pane (tmux sends %output to a control client only for
// panes in windows linked into its session), opened on first use, shared by
// every watcher of that session's panes, and closed after a linger with
// nothing watched. Each watched pane has a Ring fed from %output; output of
// unwatched panes is discarded. A Hub serves one tmux server.
//
// A Hub is safe for concurrent use.
type Hub struct {
	opts   HubOptions
	ctx    context.Context // cancelled by Close: stops dials and checks
	cancel context.CancelFunc
	gen    atomic.Int64 // stamps pane streams, see link.check

	mu     sync.Mutex
	closed bool
	links  map[string]*link

	lmu       sync.Mutex
	listeners map[int]func(string, control.Notification)
	nextL     int
	lsnap     atomic.Pointer[[]func(string, control.Notification)]
}

// NewHub returns a Hub; it opens nothing until the first Watch.
func NewHub(opts HubOptions) *Hub {
	if opts.RingSize <= 0 {
		opts.RingSize = DefaultRingSize
	}
	if opts.Linger == 0 {
		opts.Linger = DefaultLinger
	}
	if opts.PauseAfter <= 0 {
		opts.PauseAfter = DefaultPauseAfter
	}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = DefaultDialTimeout
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Hub{
		opts:      opts,
		ctx:       ctx,
		cancel:    cancel,
		links:     make(map[string]*link),
		listeners: make(map[int]func(string, control.Notification)),
	}
}

// Watch starts, or joins, the stream of paneID, a pane of a window linked
// into session sessionID. When it returns, the session's connection is
// attached and set up, so w.Offset() taken right away misses nothing the
// pane prints afterwards. A pane that does not exist is found out by the
// next liveness check, which Watch schedules: its stream then ends with
// ErrPaneGone. Release the Watch when done.
func (h *Hub) Watch(ctx context.Context, sessionID, paneID string) (*Watch, error) {
	if h.opts.Dial == nil {
		return nil, errors.New("stream: HubOptions.Dial is nil")
	}
	for {
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			return nil, ErrHubClosed
		}
		l := h.links[sessionID]
		if l == nil {
			l = newLink(h, sessionID)
			h.links[sessionID] = l
			go h.dial(l)
		}
		if l.conn != nil { // set under h.mu once the link is ready
			w := l.addWatch(paneID)
			h.mu.Unlock()
			return w, nil
		}
		h.mu.Unlock()
		select {
		case <-l.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if l.dialErr != nil {
			return nil, l.dialErr
		}
		// Ready: loop to join it (or to redial if it already died).
	}
}

// dial attaches l's connection and sets it up; it runs in its own
// goroutine so that concurrent Watch calls share it and none is bound to
// another caller's context.
func (h *Hub) dial(l *link) {
	conn, err := h.attach(l)
	h.mu.Lock()
	if h.closed {
		err = ErrHubClosed // whatever else failed, Close caused it
	}
	if err != nil {
		if conn != nil {
			conn.Close()
		}
		if h.links[l.session] == l {
			delete(h.links, l.session)
		}
		if !errors.Is(err, ErrHubClosed) {
			err = fmt.Errorf("stream: attach to session %s: %w", l.session, err)
		}
		l.dialErr = err
	} else {
		l.conn = conn
		// Every waiter may have given up meanwhile: an idle link must
		// still close after its linger (joining stops the timer).
		l.mu.Lock()
		if len(l.panes) == 0 {
			l.startLingerLocked()
		}
		l.mu.Unlock()
		go l.run()
	}
	close(l.ready)
	h.mu.Unlock()
}

// attach opens l's connection, waits for tmux to attach it and sets up flow
// control. On error it returns the connection, if one was opened, for the
// caller to close.
func (h *Hub) attach(l *link) (*control.Conn, error) {
	ctx, cancel := context.WithTimeout(h.ctx, h.opts.DialTimeout)
	defer cancel()
	conn, err := h.opts.Dial(ctx, l.session, control.Options{
		OnOutput:           l.onOutput,
		OnNotification:     l.onNotification,
		RerouteFlowControl: true,
	})
	if err == nil && conn == nil {
		err = errors.New("Dial returned no connection")
	}
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.c = conn // callbacks may need it before the link is ready
	l.mu.Unlock()
	// Commands written before tmux has processed the attach run without a
	// client ("no current client"): wait for the attach to finish.
	select {
	case <-l.attached:
	case <-conn.Done():
		err = conn.Err()
		if err == nil {
			err = control.ErrClosed
		}
		return conn, err
	case <-ctx.Done():
		return conn, fmt.Errorf("waiting for the attach: %w", ctx.Err())
	}
	// No format subscription (refresh-client -B) to spot panes that die
	// under remain-on-exit: tmux 3.3a's subscription timer dereferences
	// the client's session without a check and crashes the server when
	// it fires for a control client whose session is gone.
	_, err = conn.Do(ctx,
		[]string{"refresh-client", "-f", fmt.Sprintf("pause-after=%d", h.opts.PauseAfter)})
	return conn, err
}

// replace moves old's streams to a fresh connection to the same session and
// closes old's. tmux 3.3a now and then sends a control client nothing more
// of a pane it has paused, %continue or not, while its commands are still
// answered; a client attached afterwards gets the pane's output. The rings
// carry on with a gap at the switch: bytes printed around it may be missing
// (or, rarely, repeated). If the new connection cannot be had, old stays.
func (h *Hub) replace(old *link) {
	nl := newLink(h, old.session)
	conn, err := h.attach(nl)
	h.mu.Lock()
	old.mu.Lock()
	old.replacing = false
	if err != nil || h.closed || old.dead || h.links[old.session] != old {
		old.mu.Unlock()
		h.mu.Unlock()
		if conn != nil {
			conn.Close()
		}
		return
	}
	nl.mu.Lock()
	nl.panes, old.panes = old.panes, make(map[string]*paneStream)
	for _, ps := range nl.panes {
		ps.link = nl
		ps.hold.Reset()
		ps.ring.MarkGap()
	}
	if len(nl.panes) == 0 {
		nl.startLingerLocked()
	}
	nl.mu.Unlock()
	old.dead = true
	old.mu.Unlock()
	nl.conn = conn
	h.links[nl.session] = nl
	close(nl.ready)
	go nl.run()
	h.mu.Unlock()
	old.shutdown(nil) // no streams left to end: only the connection closes
}

// Close ends every stream with ErrHubClosed and closes every connection.
// Later Watch calls fail with ErrHubClosed.
func (h *Hub) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	links := h.links
	h.links = make(map[string]*link)
	h.cancel()
	for _, l := range links {
		l.mu.Lock()
		l.dead = true
		l.mu.Unlock()
	}
	h.mu.Unlock()
	for _, l := range links {
		l.shutdown(func(string) error { return ErrHubClosed })
	}
}

// Listen registers fn to receive every notification of every open
// connection with the session it came from (for example to announce
// topology changes). fn runs on a connection's reader goroutine and must
// return quickly. When a connection dies without tmux saying %exit, fn gets
// a synthetic "exit" notification. The returned func unregisters fn.
func (h *Hub) Listen(fn func(sessionID string, n control.Notification)) func() {
	h.lmu.Lock()
	id := h.nextL
	h.nextL++
	h.listeners[id] = fn
	h.snapshotLocked()
	h.lmu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			h.lmu.Lock()
			delete(h.listeners, id)
			h.snapshotLocked()
			h.lmu.Unlock()
		})
	}
}

func (h *Hub) snapshotLocked() {
	s := make([]func(string, control.Notification), 0, len(h.listeners))
	for _, fn := range h.listeners {
		s = append(s, fn)
	}
	h.lsnap.Store(&s)
}

func (h *Hub) notifyListeners(session string, n control.Notification) {
	if s := h.lsnap.Load(); s != nil {
		for _, fn := range *s {
			fn(session, n)
		}
	}
}

// removeLink forgets l if it is still the session's link, under h.mu, and
// marks it dead so no Watch joins it any more.
func (h *Hub) removeLink(l *link) {
	h.mu.Lock()
	if h.links[l.session] == l {
		delete(h.links, l.session)
	}
	l.mu.Lock()
	l.dead = true
	l.mu.Unlock()
	h.mu.Unlock()
}

// CheckPanes schedules a liveness check on every open connection, ending
// the streams of panes that are gone. tmux announces no pane that dies under
// remain-on-exit (unless its window is renamed), so a caller that suspects
// one (say, at a deadline) calls this; checks are coalesced and run in the
// background.
func (h *Hub) CheckPanes() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, l := range h.links {
		if l.conn != nil {
			l.kick()
		}
	}
}

// closeIdle closes l when its linger timer fired and it is still idle.
func (h *Hub) closeIdle(l *link, gen int) {
	h.mu.Lock()
	l.mu.Lock()
	if l.dead || l.lingerGen != gen || len(l.panes) > 0 {
		l.mu.Unlock()
		h.mu.Unlock()
		return
	}
	l.dead = true
	if h.links[l.session] == l {
		delete(h.links, l.session)
	}
	l.mu.Unlock()
	h.mu.Unlock()
	l.shutdown(nil)
}

// Resync brings every connection's read position in pane up to tmux's own before the pane is
// respawned, dropping output tmux still held for it (marked as a gap where the pane is
// streamed). tmux (3.3a to 3.7c) keeps a pane's read positions across a respawn: one a
// connection had not reached when the pane's process ended made tmux read the new process's
// first output from past the end of its buffer and crash. Turning the pane's output off and
// on again (refresh-client -A) sets the connection's position to tmux's own.
func (h *Hub) Resync(ctx context.Context, pane string) {
	h.mu.Lock()
	var links []*link
	for _, l := range h.links {
		if l.conn != nil {
			links = append(links, l)
		}
	}
	h.mu.Unlock()
	for _, l := range links {
		l.mu.Lock()
		if ps := l.panes[pane]; ps != nil {
			ps.hold.Reset()
			ps.ring.MarkGap()
		}
		l.mu.Unlock()
		_, _ = l.conn.Do(ctx, []string{"refresh-client", "-A", pane + ":off"}, []string{"refresh-client", "-A", pane + ":on"})
	}
}
