package tmux_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestSnapshotThen reads a pane's record and, in the same command list, its screen and text;
// refuses a mutation after the read; a missing pane fails as not found.
func TestSnapshotThen(t *testing.T) {
	tmx := testtmux.New(t)
	_, pane := tmx.NewSession("then")
	ts := newServer(t, tmx)
	ctx := context.Background()
	st, cp := &tmux.Screen{Pane: pane}, &tmux.Capture{Pane: pane}
	snap, err := ts.SnapshotThen(ctx, pane, tmux.WithPanes|tmux.WithClients, st, cp)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := snap.Pane(pane); !ok || st.Width != p.PaneWidth || len(cp.Lines) != p.PaneHeight {
		t.Fatalf("snapshot %+v, screen %+v, %d lines", snap.Panes, st, len(cp.Lines))
	}
	if _, err := ts.SnapshotThen(ctx, pane, tmux.WithPanes, &tmux.ClearPane{Pane: pane}); err == nil {
		t.Error("SnapshotThen ran a mutation")
	}
	if _, err := ts.SnapshotThen(ctx, "%999", tmux.WithPanes, &tmux.Screen{Pane: "%999"}); !errors.Is(err, tmux.ErrNotFound) {
		t.Errorf("a missing pane: %v", err)
	}
}
