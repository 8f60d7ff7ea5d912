package tmux

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/tmux/control"
)

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

// TopologyChange reports whether a notification a TopologyWatch received may mean that
// sessions, windows or panes came or went.
func TopologyChange(n control.Notification) bool {
	switch n.Name {
	case "sessions-changed", "session-renamed", "session-changed", "window-add", "window-close",
		"unlinked-window-add", "unlinked-window-close", "layout-change", "exit":
		return true
	}
	return false
}

// TopologyState reads which sessions, windows and panes the server has, in a form two reads
// compare: State is equal when nothing came, went or was renamed or moved between them.
type TopologyState struct {
	Sessions []string // the session ids, sorted
	State    string
}

func (*TopologyState) commands() ([][]string, error) {
	return [][]string{{"list-panes", "-a", "-F", "#{session_id}:#{window_id}:#{window_index}:#{pane_id}:#{session_name}"}}, nil
}

func (o *TopologyState) read(out [][]string) error {
	lines := append([]string(nil), out[0]...)
	sort.Strings(lines)
	o.State = strings.Join(lines, "\n")
	o.Sessions = nil
	for _, l := range lines {
		id, _, _ := strings.Cut(l, ":")
		if n := len(o.Sessions); n == 0 || o.Sessions[n-1] != id {
			o.Sessions = append(o.Sessions, id)
		}
	}
	return nil
}

func (*TopologyState) mutates() bool { return false }
