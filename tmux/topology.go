package tmux

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/tmux/control"
)

// TopologySubscription names the format subscription a TopologyWatch sets: its
// %subscription-changed notifications carry a server-wide list of session, window and pane ids.
const TopologySubscription = "tmux-mcp-topology"

// topologyFormat lists every session, window and pane of the server. tmux re-evaluates a
// subscription once a second and reports it only when its value changed, which covers panes
// in sessions the client is not attached to (tmux sends %layout-change only for its own).
const topologyFormat = "#{S:#{session_id}=#{session_name}#{W:@#{window_index}#{window_id}#{P:#{pane_id}}};}"

// TopologyWatch is a control client that reports the server's sessions, windows and panes
// coming and going. It never receives pane output and never sizes anything.
type TopologyWatch struct {
	c *client
}

// WatchTopology attaches a control client to the server (to its most recently used session)
// and calls fn, on the client's reader goroutine, with every notification tmux sends it:
// %sessions-changed, %window-add, %unlinked-window-close, %layout-change, ... and a
// %subscription-changed named TopologySubscription whenever the server-wide list of ids
// changes. fn must return quickly. The watch ends (Done) when its session is destroyed or the
// server exits; start another one then. It fails with ErrServerNotRunning when no server runs
// and with an error when the server has no session to attach to.
func (s *Server) WatchTopology(ctx context.Context, fn func(control.Notification)) (*TopologyWatch, error) {
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	c, err := s.dial(ctx, "", control.Options{OnNotification: fn})
	if err != nil {
		return nil, err
	}
	_, err = c.conn.Do(ctx,
		[]string{"refresh-client", "-f", "no-output,ignore-size"},
		[]string{"refresh-client", "-B", TopologySubscription + "::" + topologyFormat},
	)
	if err != nil {
		c.close()
		return nil, err
	}
	return &TopologyWatch{c: c}, nil
}

// Done is closed when the watch has ended.
func (t *TopologyWatch) Done() <-chan struct{} { return t.c.conn.Done() }

// Close ends the watch and its client process.
func (t *TopologyWatch) Close() { t.c.close() }
