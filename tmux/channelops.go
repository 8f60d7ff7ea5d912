package tmux

import (
	"context"
	"fmt"
)

// SignalChannel wakes every client waiting on a tmux wait-for channel.
type SignalChannel struct{ Channel string }

func (o *SignalChannel) commands() ([][]string, error) {
	return [][]string{{"wait-for", "-S", o.Channel}}, nil
}

func (*SignalChannel) read([][]string) error { return nil }
func (*SignalChannel) mutates() bool         { return true }

// WaitChannel waits, in a tmux process of its own, until the channel is signalled or ctx ends.
func (s *Server) WaitChannel(ctx context.Context, channel string) error {
	_, err := s.Spawn(ctx, nil, "wait-for", channel)
	return err
}

// Alive reads whether the daemon Ident still runs (its pid and start time) and holds a
// session: Alive is its result.
type Alive struct {
	Ident Identity

	Alive bool
}

func (o *Alive) commands() ([][]string, error) {
	return [][]string{{"display-message", "-p", "#{pid} #{start_time}"}, {"list-sessions", "-F", "#{session_id}"}}, nil
}

func (o *Alive) read(out [][]string) error {
	o.Alive = len(out) == 2 && len(out[0]) == 1 && len(out[1]) > 0 &&
		out[0][0] == fmt.Sprintf("%d %d", o.Ident.PID, o.Ident.StartTime)
	return nil
}

func (*Alive) mutates() bool { return false }
