package tmux

import (
	"context"
	"errors"

	"github.com/tmux-mcp/tmux-mcp/tmux/control"
)

// LoadBuffer puts data in the tmux buffer name, never on a command line another process could
// read: as a word over the control connection (set-buffer), or through the stdin of a spawned
// load-buffer when no control client is attached or tmux cannot take data as a word (NUL,
// byte 0xFF). The control path costs a round trip where a spawned tmux costs a process (3 to
// 5 ms here, an ssh session of about 15 ms on another host).
func (s *Server) LoadBuffer(ctx context.Context, name string, data []byte) error {
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	// (set-buffer takes no empty data.)
	if cc, err := s.commandClient(ctx); err == nil && cc != nil && len(data) > 0 {
		_, err := s.send(ctx, cc, [][]string{{"set-buffer", "-b", name, "--", string(data)}}, true)
		if !errors.Is(err, control.ErrUnsendable) {
			return err
		}
	}
	_, err := s.Spawn(ctx, data, "load-buffer", "-b", name, "-")
	return err
}
