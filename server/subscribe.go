package server

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/live"
	"github.com/tmux-mcp/tmux-mcp/tmux/topowatch"
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
	if err := ts.Do(ctx, &tmux.Screen{Pane: u.pane}); err != nil {
		if errors.Is(err, tmux.ErrNotFound) || errors.Is(err, tmux.ErrServerNotRunning) {
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
// updateEvery, and once more when the pane is gone (now not found).
func (s *Server) pumpUpdates(ctx context.Context, ts *tmux.Server, pane, uri string) {
	go s.cmds.follow(ctx, ts, pane, false) // a subscribed pane's commands are listed too (beside: it must not delay the pump)
	live.Updates(ctx, ts, pane, updateEvery, func() {
		s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
	})
}

// ---- list_changed

// topology watches, per tmux server that resources were asked of, its sessions, windows and
// panes, and turns their changes into notifications/resources/list_changed.
type topology struct{ w topowatch.Watcher }

// ensureTopology starts the topology watch of the socket's server unless it runs (or failed a
// moment ago). It never waits.
func (s *Server) ensureTopology(host, sock *string) {
	if ts, err := s.tmuxOn(host, sock); err == nil {
		s.read.topo.w.Ensure(ts, s.topologyEvents(ts))
	}
}

// kickTopology restarts the topology watch of a server a client has asked resources of, after
// a tool created a session there: a watch that stopped because the server had no session (or
// was not running) sees nothing by itself, and the client's list would stay stale.
func (s *Server) kickTopology(host, sock *string) {
	if ts, err := s.tmuxOn(host, sock); err == nil {
		s.read.topo.w.Restart(ts, s.topologyEvents(ts))
	}
}

func (s *Server) topologyEvents(ts *tmux.Server) topowatch.Events {
	return topowatch.Events{
		Changed: s.resourceListChanged,
		Gone:    func() { s.broadcast("warning", logTmux, serverGoneNote(ts)) },
	}
}

// resourceListChanged sends notifications/resources/list_changed to every client: the SDK
// sends it (debounced) when a template is registered again, which changes nothing else.
func (s *Server) resourceListChanged() {
	s.mcp.AddResourceTemplate(resourceTemplates[0], s.readResource)
}

func (tp *topology) closeAll() { tp.w.Close() }
