package live

import (
	"context"
	"errors"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// Updates calls fn whenever pane prints, at most once every every, and once more when the
// pane is gone; it returns then, when ctx ends, or when the pane's stream cannot be followed.
// It blocks on the pane's stream: a quiet pane costs nothing.
func Updates(ctx context.Context, ts *tmux.Server, pane string, every time.Duration, fn func()) {
	for ctx.Err() == nil {
		w, err := ts.WatchPane(ctx, pane)
		if err != nil {
			return
		}
		err = updates(ctx, w, every, fn)
		w.Release()
		if !errors.Is(err, stream.ErrSessionGone) {
			return
		}
		// The pane's window lives on in another session: watch it through that one.
	}
}

func updates(ctx context.Context, w *stream.Watch, every time.Duration, fn func()) error {
	off := w.Offset()
	for {
		if err := w.Wait(ctx, off); err != nil {
			if errors.Is(err, stream.ErrPaneGone) {
				fn() // now gone
			}
			return err
		}
		off = w.Offset()
		fn()
		t := time.NewTimer(every)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
}
