package tmux

import (
	"context"
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/tmux/control"
)

// TopologySubscription was the name of a format subscription (refresh-client -B) that listed
// every id of the server. It is no longer set: tmux 3.3a crashes when a subscribed control
// client's session is destroyed while it has unflushed output. The watch relies on tmux's
// topology notifications alone.
const TopologySubscription = "tmux-mcp-topology"

// TopologyWatch is a control client that reports the server's sessions, windows and panes
// coming and going. It never receives pane output and never sizes anything.
type TopologyWatch struct {
	c *client
}

// WatchTopology attaches a control client to the server (to its oldest session)
// and calls fn, on the client's reader goroutine, with every notification tmux sends it:
// %sessions-changed, %window-add, %unlinked-window-close, %layout-change, ... fn must return
// quickly. The watch ends (Done) when its session is destroyed or the
// server exits; start another one then. It fails with ErrServerNotRunning when no server runs
// and with an error when the server has no session to attach to.
func (s *Server) WatchTopology(ctx context.Context, fn func(control.Notification)) (*TopologyWatch, error) {
	return s.watchTopology(ctx, "", fn)
}

// WatchSessionTopology is WatchTopology attached to the session sessionID ($N). tmux reports
// %layout-change (panes split, closed, resized) only for the windows of a client's own
// session, so a watch per session sees every pane come and go.
func (s *Server) WatchSessionTopology(ctx context.Context, sessionID string, fn func(control.Notification)) (*TopologyWatch, error) {
	if !ValidSessionID(sessionID) {
		return nil, fmt.Errorf("session %q: not a session id", sessionID)
	}
	return s.watchTopology(ctx, sessionID, fn)
}

func (s *Server) watchTopology(ctx context.Context, target string, fn func(control.Notification)) (*TopologyWatch, error) {
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	c, err := s.dial(ctx, dialSpec{target: target, quiet: true, opts: control.Options{OnNotification: fn}})
	if err != nil {
		return nil, err
	}
	return &TopologyWatch{c: c}, nil
}

// Done is closed when the watch has ended.
func (t *TopologyWatch) Done() <-chan struct{} { return t.c.conn.Done() }

// Close ends the watch and its client process.
func (t *TopologyWatch) Close() { t.c.close() }
