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
	ts, err := s.tmuxFor(u.socket)
	if err != nil {
		return invalidURI(uri, err)
	}
	out, err := ts.Query(ctx, []string{"display-message", "-p", "-t", u.pane, "#{pane_id}"})
	if err != nil || len(out[0]) == 0 || out[0][0] != u.pane {
		if err == nil || errors.Is(err, tmux.ErrNotFound) || errors.Is(err, tmux.ErrServerNotRunning) {
			return resourceNotFound(uri, "no pane "+u.pane+" on this tmux server")
		}
		return err
	}
	s.ensureTopology(u.socket)
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

// topology runs one topology watch per tmux server that resources were asked of; each one
// turns tmux's notifications into notifications/resources/list_changed.
type topology struct {
	mu     sync.Mutex
	m      map[*tmux.Server]*topoEntry
	closed bool
}

type topoEntry struct {
	tw       *tmux.TopologyWatch
	starting bool
	retryAt  time.Time
	kick     chan struct{} // capacity 1: a check is due
	seen     bool          // last holds a state
	last     string        // sessions, windows and panes at the last check
}

// topologyRetry spaces out attempts to watch a server that could not be watched.
const topologyRetry = time.Second

// ensureTopology starts the topology watch of the socket's server unless it runs (or failed a
// moment ago). It never waits.
func (s *Server) ensureTopology(sock *string) {
	ts, err := s.tmuxFor(sock)
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
	}
	e := tp.m[ts]
	if e == nil {
		e = &topoEntry{kick: make(chan struct{}, 1)}
		tp.m[ts] = e
	}
	if e.tw != nil || e.starting || time.Now().Before(e.retryAt) {
		return
	}
	e.starting = true
	go s.runTopology(ts, e)
}

// topologyNote reports whether a notification may mean sessions, windows or panes came or went.
func topologyNote(n control.Notification) bool {
	switch n.Name {
	case "sessions-changed", "session-renamed", "session-changed", "window-add", "window-close",
		"unlinked-window-add", "unlinked-window-close", "layout-change", "exit":
		return true
	case "subscription-changed":
		return len(n.Args) > 0 && n.Args[0] == tmux.TopologySubscription
	}
	return false
}

func (s *Server) runTopology(ts *tmux.Server, e *topoEntry) {
	tp := &s.read.topo
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		tw, err := ts.WatchTopology(ctx, func(n control.Notification) {
			if topologyNote(n) {
				select {
				case e.kick <- struct{}{}:
				default:
				}
			}
		})
		cancel()
		if err != nil {
			tp.mu.Lock()
			e.starting = false
			e.retryAt = time.Now().Add(topologyRetry)
			tp.mu.Unlock()
			s.checkTopology(ts, e) // a server that went away changed the list
			return
		}
		tp.mu.Lock()
		if tp.closed {
			tp.mu.Unlock()
			tw.Close()
			return
		}
		e.tw, e.starting = tw, false
		tp.mu.Unlock()
		began := time.Now()
		s.checkTopology(ts, e)
	wait:
		for {
			select {
			case <-e.kick:
				s.checkTopology(ts, e)
			case <-tw.Done():
				break wait
			}
		}
		s.checkTopology(ts, e)
		tp.mu.Lock()
		e.tw = nil
		if tp.closed || time.Since(began) < topologyRetry {
			// Closing, or a watch that ends at once: leave it to the next resource request.
			e.retryAt = time.Now().Add(topologyRetry)
			tp.mu.Unlock()
			return
		}
		e.starting = true
		tp.mu.Unlock()
		// Its session was destroyed (or the server exited): attach again at once.
	}
}

// checkTopology compares the server's sessions, windows and panes with the last check and
// announces a change.
func (s *Server) checkTopology(ts *tmux.Server, e *topoEntry) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	state := ""
	if out, err := ts.Query(ctx, []string{"list-panes", "-a", "-F", "#{session_id}:#{window_id}:#{window_index}:#{pane_id}:#{session_name}"}); err == nil {
		lines := append([]string(nil), out[0]...)
		sort.Strings(lines)
		state = strings.Join(lines, "\n")
	}
	tp := &s.read.topo
	tp.mu.Lock()
	changed := e.seen && state != e.last
	e.seen, e.last = true, state
	tp.mu.Unlock()
	if changed {
		s.resourceListChanged()
	}
}

// resourceListChanged sends notifications/resources/list_changed to every client: the SDK
// sends it (debounced) when a template is registered again, which changes nothing else.
func (s *Server) resourceListChanged() {
	s.mcp.AddResourceTemplate(resourceTemplates[0], s.readResource)
}

func (tp *topology) closeAll() {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	tp.closed = true
	for _, e := range tp.m {
		if e.tw != nil {
			e.tw.Close()
		}
	}
}
