package tmux

import (
	"context"
)

// Op is one thing asked of tmux or told to it, at the level a caller means it (a pane's screen
// state, a capture, keys to send): it builds its own command lines and reads its own reply, so
// no caller outside this package speaks tmux. An Op holds its arguments and, after it has run,
// its result; run it alone with Server.Do, or with others in one command list with Batch.
type Op interface {
	// commands are the tmux command lines the op needs, run in order in one command list.
	commands() ([][]string, error)
	// read takes each command's output lines (one slice per command).
	read(out [][]string) error
	// mutates says whether the op changes anything; a read-only list may be retried after a
	// lost connection, one that mutates never is.
	mutates() bool
}

// Do runs one op.
func (s *Server) Do(ctx context.Context, op Op) error { return s.Batch(ctx, op) }

// Batch runs ops in one command list, so that they see one instant of the server (no other
// client's command runs between them) for one round trip. Ops run in order; the first command
// that fails ends the list, and its error (a *CommandError) is returned after the ops before it
// have read their replies.
func (s *Server) Batch(ctx context.Context, ops ...Op) error {
	var cmds [][]string
	counts := make([]int, len(ops))
	mutation := false
	for i, op := range ops {
		c, err := op.commands()
		if err != nil {
			return err
		}
		cmds = append(cmds, c...)
		counts[i] = len(c)
		mutation = mutation || op.mutates()
	}
	out, err := s.run(ctx, cmds, mutation)
	if mutation && err == nil {
		s.mutated()
	}
	for i, op := range ops {
		if len(out) < counts[i] {
			break
		}
		if rerr := op.read(out[:counts[i]]); rerr != nil && err == nil {
			err = rerr // an op's own error says what it read
		}
		out = out[counts[i]:]
	}
	return err
}
