package tmux

import "context"

// SnapshotOfThen is SnapshotOf with ops run after its reads in the same command list: one
// round trip, one instant. The ops may name target's id (a window's stands for its active
// pane). The snapshot is nil when its own reads failed; err is the first failure.
func (s *Server) SnapshotOfThen(ctx context.Context, target string, what What, ops ...Op) (*Snapshot, error) {
	of := &snapshotOf{target: target, what: what}
	err := s.Batch(ctx, append([]Op{of}, ops...)...)
	return of.snap, err
}

// snapshotOf is SnapshotOf's reads as an op.
type snapshotOf struct {
	target string
	what   What

	snap *Snapshot
}

func (o *snapshotOf) commands() ([][]string, error) { return ofArgs(o.target, o.what) }

func (o *snapshotOf) read(out [][]string) (err error) {
	o.snap, err = parseOf(o.target, o.what, out)
	return err
}

func (*snapshotOf) mutates() bool { return false }
