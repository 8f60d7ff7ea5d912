package runner

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// engine is what a run asks of its tmux server's panes: operations, alone or several in one
// command list (one instant, one round trip). *tmux.Server is one; tests fake it to check what
// the runner makes of a screen without tmux.
type engine interface {
	Do(ctx context.Context, op tmux.Op) error
	Batch(ctx context.Context, ops ...tmux.Op) error
}

// shown is a pane's screen read at one instant: its state and its rows.
type shown struct {
	tmux.Screen
	rows []string
}

// screen reads the pane's cursor, size and history with its visible rows, in one command list.
// ok is false when they cannot be read or do not agree (the cursor off the rows).
func (x *run) screen(ctx context.Context) (s shown, ok bool) {
	st := &tmux.Screen{Pane: x.req.pane.PaneID}
	cp := &tmux.Capture{Pane: st.Pane}
	if err := x.eng.Batch(ctx, st, cp); err != nil {
		return shown{}, false
	}
	if st.Width <= 0 || st.CursorY < 0 || st.CursorY >= len(cp.Lines) {
		return shown{}, false
	}
	return shown{*st, cp.Lines}, true
}
