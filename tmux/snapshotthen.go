package tmux

import (
	"context"
	"fmt"
)

// SnapshotThen is SnapshotOf with ops run after the read in the same command list, so that
// they see the instant the snapshot shows (the ops read their replies; none may mutate). A
// failure of one of them returns the snapshot with the error.
func (s *Server) SnapshotThen(ctx context.Context, target string, what What, then ...Op) (*Snapshot, error) {
	cmds, err := ofArgs(target, what)
	if err != nil {
		return nil, err
	}
	n := len(cmds)
	counts := make([]int, len(then))
	for i, op := range then {
		if op.mutates() {
			return nil, fmt.Errorf("tmux: SnapshotThen runs reads only")
		}
		c, err := op.commands()
		if err != nil {
			return nil, err
		}
		cmds, counts[i] = append(cmds, c...), len(c)
	}
	out, err := s.Query(ctx, cmds...)
	if len(out) < n {
		if err == nil {
			err = fmt.Errorf("%s: tmux returned %d replies, expected %d", target, len(out), n)
		}
		return nil, err
	}
	snap, perr := parseOf(target, what, out[:n])
	if perr != nil {
		return nil, perr
	}
	out = out[n:]
	for i, op := range then {
		if len(out) < counts[i] {
			break
		}
		if rerr := op.read(out[:counts[i]]); rerr != nil && err == nil {
			err = rerr
		}
		out = out[counts[i]:]
	}
	return snap, err
}
