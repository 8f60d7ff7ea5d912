package server

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/control"
	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// updateEvery is the shortest interval between two resources/updated notifications of a URI.
const updateEvery = 250 * time.Millisecond

// subscriptions tracks which client sessions subscribed to which pane content URIs, and runs
// one watcher per subscribed URI.
type subscriptions struct {
	mu       sync.Mutex
	byURI    map[string]*uriSub
	sessions map[*mcp.ServerSession]map[string]bool
	closed   bool
}

type uriSub struct {
	refs   int // sessions subscribed
	cancel context.CancelFunc
}

// subscribe handles resources/subscribe: only pane content URIs, of panes that exist.
func (s *Server) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	u, err := parseResourceURI(uri)
	if err != nil {
		return invalidURI(uri, err)
	}
	if u.kind != "content" {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Only pane content resources (tmux://panes/{pane_id}/content) can be subscribed to", Data: uriData(uri)}
	}
	ts, err := s.tmuxOn(u.host, u.socket)
	if err != nil {
		return invalidURI(uri, err)
	}
	out, err := ts.Query(ctx, []string{"display-message", "-p", "-t", u.pane, "#{pane_id}"})
	if err != nil || len(out[0]) == 0 || out[0][0] != u.pane {
		if err == nil || errors.Is(err, tmux.ErrNotFound) || errors.Is(err, tmux.ErrServerNotRunning) {
			return resourceNotFound(uri, "no pane "+u.pane+" on this tmux server", "resources/list or list_panes shows the panes there are.")
		}
		return err
	}
	s.ensureTopology(u.host, u.socket)
	s.read.subs.add(req.Session, uri, func(ctx context.Context) { s.pumpUpdates(ctx, ts, u.pane, uri) })
	return nil
}

// unsubscribe handles resources/unsubscribe.
func (s *Server) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	s.read.subs.remove(req.Session, req.Params.URI)
	return nil
}

// add records that ss subscribed to uri, starting uri's watcher (run) when it is the first.
func (sb *subscriptions) add(ss *mcp.ServerSession, uri string, run func(context.Context)) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.closed {
		return
	}
	if sb.byURI == nil {
		sb.byURI = map[string]*uriSub{}
		sb.sessions = map[*mcp.ServerSession]map[string]bool{}
	}
	mine := sb.sessions[ss]
	if mine == nil {
		mine = map[string]bool{}
		sb.sessions[ss] = mine
		if ss != nil {
			// The SDK forgets a closed session's subscriptions without telling the handler.
			go func() {
				ss.Wait()
				sb.dropSession(ss)
			}()
		}
	}
	if mine[uri] {
		return
	}
	mine[uri] = true
	if us := sb.byURI[uri]; us != nil {
		us.refs++
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	sb.byURI[uri] = &uriSub{refs: 1, cancel: cancel}
	go run(ctx)
}

// remove forgets ss's subscription to uri, stopping the watcher when it was the last.
func (sb *subscriptions) remove(ss *mcp.ServerSession, uri string) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	sb.removeLocked(ss, uri)
}

func (sb *subscriptions) removeLocked(ss *mcp.ServerSession, uri string) {
	mine := sb.sessions[ss]
	if !mine[uri] {
		return
	}
	delete(mine, uri)
	if us := sb.byURI[uri]; us != nil {
		us.refs--
		if us.refs == 0 {
			us.cancel()
			delete(sb.byURI, uri)
		}
	}
}

func (sb *subscriptions) dropSession(ss *mcp.ServerSession) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	for uri := range sb.sessions[ss] {
		sb.removeLocked(ss, uri)
	}
	delete(sb.sessions, ss)
}

func (sb *subscriptions) closeAll() {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	sb.closed = true
	for uri, us := range sb.byURI {
		us.cancel()
		delete(sb.byURI, uri)
	}
}

// pumpUpdates sends resources/updated for uri whenever the pane prints, at most once every
// updateEvery: it blocks on the pane's live stream, so a quiet pane costs nothing.
func (s *Server) pumpUpdates(ctx context.Context, ts *tmux.Server, pane, uri string) {
	for ctx.Err() == nil {
		w, err := ts.WatchPane(ctx, pane)
		if err != nil {
			return
		}
		err = s.pumpWatch(ctx, w, uri)
		w.Release()
		if !errors.Is(err, stream.ErrSessionGone) {
			return
		}
		// The pane's window lives on in another session: watch it through that one.
	}
}

func (s *Server) pumpWatch(ctx context.Context, w *stream.Watch, uri string) error {
	off := w.Offset()
	for {
		if err := w.Wait(ctx, off); err != nil {
			if errors.Is(err, stream.ErrPaneGone) {
				s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}) // now not found
			}
			return err
		}
		off = w.Offset()
		s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
		t := time.NewTimer(updateEvery)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
}

// ---- list_changed

// topology runs, per tmux server that resources were asked of, one control client per session
// (tmux reports pane changes only to clients of the pane's session) and turns their
// notifications into notifications/resources/list_changed. Nothing polls: a check runs when
// tmux reports a change, and compares the server's sessions, windows and panes with the last.
type topology struct {
	mu     sync.Mutex
	m      map[*tmux.Server]*topoEntry
	closed bool
	quit   chan struct{} // closed by closeAll
}

type topoEntry struct {
	running bool // runTopology serves the entry
	retryAt time.Time
	kick    chan struct{} // capacity 1: a check is due
	watches map[string]*tmux.TopologyWatch
	seen    bool   // last holds a state
	last    string // sessions, windows and panes at the last check
}

const (
	// topologyRetry spaces out attempts to watch a server that could not be watched.
	topologyRetry = time.Second
	// maxTopologySessions bounds the control clients of one server's watch; sessions beyond
	// it still announce windows and sessions coming and going, not panes.
	maxTopologySessions = 64
)

// ensureTopology starts the topology watch of the socket's server unless it runs (or failed a
// moment ago). It never waits.
func (s *Server) ensureTopology(host, sock *string) {
	ts, err := s.tmuxOn(host, sock)
	if err != nil {
		return
	}
	tp := &s.read.topo
	tp.mu.Lock()
	defer tp.mu.Unlock()
	if tp.closed {
		return
	}
	if tp.m == nil {
		tp.m = map[*tmux.Server]*topoEntry{}
		tp.quit = make(chan struct{})
	}
	e := tp.m[ts]
	if e == nil {
		e = &topoEntry{kick: make(chan struct{}, 1), watches: map[string]*tmux.TopologyWatch{}}
		tp.m[ts] = e
	}
	if e.running || time.Now().Before(e.retryAt) {
		return
	}
	e.running = true
	go s.runTopology(ts, e, tp.quit)
}

// kickTopology restarts the topology watch of a server a client has asked resources of, after
// a tool created a session there: a watch that stopped because the server had no session (or
// was not running) sees nothing by itself, and the client's list would stay stale.
func (s *Server) kickTopology(host, sock *string) {
	ts, err := s.tmuxOn(host, sock)
	if err != nil {
		return
	}
	tp := &s.read.topo
	tp.mu.Lock()
	e := tp.m[ts]
	if e == nil || e.running {
		tp.mu.Unlock()
		return
	}
	e.retryAt = time.Time{}
	tp.mu.Unlock()
	s.ensureTopology(host, sock)
}

func (e *topoEntry) poke() {
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

// topologyNote reports whether a notification may mean sessions, windows or panes came or went.
func topologyNote(n control.Notification) bool {
	switch n.Name {
	case "sessions-changed", "session-renamed", "session-changed", "window-add", "window-close",
		"unlinked-window-add", "unlinked-window-close", "layout-change", "exit":
		return true
	}
	return false
}

// runTopology checks and re-attaches whenever tmux reports a change, until the server has no
// session left to attach to (the next resource request starts it again).
func (s *Server) runTopology(ts *tmux.Server, e *topoEntry, quit chan struct{}) {
	tp := &s.read.topo
	for {
		sessions := s.checkTopology(ts, e)
		tp.mu.Lock()
		closed := tp.closed
		tp.mu.Unlock()
		live := 0
		if !closed {
			live = s.attachSessions(ts, e, sessions)
		}
		if closed || live == 0 {
			tp.mu.Lock()
			for id, tw := range e.watches {
				tw.Close()
				delete(e.watches, id)
			}
			e.running = false
			e.retryAt = time.Now().Add(topologyRetry)
			tp.mu.Unlock()
			return
		}
		select {
		case <-e.kick:
		case <-quit:
		}
	}
}

// attachSessions gives every session a watch (dropping those of sessions gone or watches that
// ended) and returns how many watches run.
func (s *Server) attachSessions(ts *tmux.Server, e *topoEntry, sessions []string) int {
	tp := &s.read.topo
	want := map[string]bool{}
	for _, id := range sessions {
		want[id] = true
	}
	tp.mu.Lock()
	for id, tw := range e.watches {
		select {
		case <-tw.Done():
			delete(e.watches, id)
		default:
			if !want[id] {
				tw.Close()
				delete(e.watches, id)
			}
		}
	}
	var missing []string
	for _, id := range sessions {
		if e.watches[id] == nil && len(e.watches)+len(missing) < maxTopologySessions {
			missing = append(missing, id)
		}
	}
	tp.mu.Unlock()
	for _, id := range missing {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		tw, err := ts.WatchSessionTopology(ctx, id, func(n control.Notification) {
			if topologyNote(n) {
				e.poke()
			}
		})
		cancel()
		if err != nil {
			continue // the session went away meanwhile: the next check sees it
		}
		go func() {
			<-tw.Done()
			e.poke()
		}()
		tp.mu.Lock()
		if tp.closed {
			tw.Close()
		} else {
			e.watches[id] = tw
		}
		tp.mu.Unlock()
		// Attaching took a moment: what changed meanwhile is caught by the check it triggers.
		e.poke()
	}
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return len(e.watches)
}

// checkTopology compares the server's sessions, windows and panes with the last check,
// announces a change, and returns the session ids.
func (s *Server) checkTopology(ts *tmux.Server, e *topoEntry) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	state := ""
	var sessions []string
	out, err := ts.Query(ctx, []string{"list-panes", "-a", "-F", "#{session_id}:#{window_id}:#{window_index}:#{pane_id}:#{session_name}"})
	if err == nil {
		lines := append([]string(nil), out[0]...)
		sort.Strings(lines)
		state = strings.Join(lines, "\n")
		for _, l := range lines {
			id, _, _ := strings.Cut(l, ":")
			if n := len(sessions); n == 0 || sessions[n-1] != id {
				sessions = append(sessions, id)
			}
		}
	}
	tp := &s.read.topo
	tp.mu.Lock()
	changed := e.seen && state != e.last
	gone := e.seen && e.last != "" && errors.Is(err, tmux.ErrServerNotRunning)
	e.seen, e.last = true, state
	tp.mu.Unlock()
	if changed {
		s.resourceListChanged()
	}
	if gone {
		s.broadcast("warning", logTmux, serverGoneNote(ts))
	}
	return sessions
}

// resourceListChanged sends notifications/resources/list_changed to every client: the SDK
// sends it (debounced) when a template is registered again, which changes nothing else.
func (s *Server) resourceListChanged() {
	s.mcp.AddResourceTemplate(resourceTemplates[0], s.readResource)
}

func (tp *topology) closeAll() {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	if tp.closed {
		return
	}
	tp.closed = true
	if tp.quit != nil {
		close(tp.quit)
	}
	for _, e := range tp.m {
		for id, tw := range e.watches {
			tw.Close()
			delete(e.watches, id)
		}
	}
}
