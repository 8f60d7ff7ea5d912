package tmux

import (
	"context"
	"errors"
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/tmux/control"
	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// ErrClosed means the Server handle was closed.
var ErrClosed = errors.New("tmux server handle closed")

// Hub returns the server's live pane streams, made on first use and made anew after the
// daemon restarted.
func (s *Server) Hub() (*stream.Hub, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if s.hub == nil {
		s.hub = stream.NewHub(stream.HubOptions{Dial: s.dialStream, Alive: s.alivePanes})
	}
	return s.hub, nil
}

// ResyncStreams readies pane's streams for a respawn of the pane (see stream.Hub.Resync).
func (s *Server) ResyncStreams(ctx context.Context, pane string) {
	if hub, err := s.Hub(); err == nil {
		hub.Resync(ctx, pane)
	}
}

func (s *Server) dialStream(ctx context.Context, sessionID string, opts control.Options) (*control.Conn, error) {
	c, err := s.dial(ctx, dialSpec{target: sessionID, opts: opts})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.hubIdent = c.ident
	s.mu.Unlock()
	return c.conn, nil
}

// alivePanes says which of panes exist and are not dead. It lists those panes alone (a
// filter in tmux) so that its reply, which a run waits behind on the command connection, does
// not grow with the server's pane count.
func (s *Server) alivePanes(ctx context.Context, panes []string) (map[string]bool, error) {
	alive := make(map[string]bool, len(panes))
	set := "|"
	for _, p := range panes {
		if ValidPaneID(p) { // a pane id holds no "|", "," or "}": safe in the format
			set += p + "|"
		}
	}
	if set == "|" {
		return alive, nil
	}
	out, err := s.Query(ctx, []string{"list-panes", "-a", "-f", "#{m:*|#{pane_id}|*," + set + "}", "-F", "#{pane_id} #{pane_dead}"})
	if err != nil {
		if errors.Is(err, ErrServerNotRunning) {
			return map[string]bool{}, nil
		}
		return nil, err
	}
	for _, l := range out[0] {
		var id string
		var dead int
		if _, err := fmt.Sscanf(l, "%s %d", &id, &dead); err == nil && dead == 0 {
			alive[id] = true
		}
	}
	return alive, nil
}

// WatchPane starts (or joins) the live stream of a pane. Its Offset, read right away, misses
// nothing printed afterwards.
func (s *Server) WatchPane(ctx context.Context, paneID string) (*stream.Watch, error) {
	out, err := s.Query(ctx, []string{"display-message", "-p", "-t", paneID, "#{session_id}"})
	if err != nil {
		return nil, err
	}
	if len(out[0]) != 1 || out[0][0] == "" {
		return nil, fmt.Errorf("pane %s: %w", paneID, ErrNotFound)
	}
	hub, err := s.Hub()
	if err != nil {
		return nil, err
	}
	return hub.Watch(ctx, out[0][0], paneID)
}
