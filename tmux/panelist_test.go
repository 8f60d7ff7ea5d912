package tmux_test

import (
	"context"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestPaneList lists the panes with the brief fields, the same as Snapshot's for those, and
// fails (so that a caller reads every field instead) when a path holds the field separator.
func TestPaneList(t *testing.T) {
	tmx := testtmux.New(t)
	_, pane := tmx.NewSession("list")
	ts := newServer(t, tmx)
	ctx := context.Background()
	if err := ts.Do(ctx, &tmux.SetPaneTitle{Pane: pane, Title: "a ␞ title"}); err != nil {
		t.Fatal(err)
	}
	full, err := ts.Snapshot(ctx, tmux.WithPanes|tmux.WithClients)
	if err != nil {
		t.Fatal(err)
	}
	op := &tmux.PaneList{}
	if err := ts.Do(ctx, op); err != nil {
		t.Fatal(err)
	}
	f, b := full.Panes[0], op.Snapshot.Panes[0]
	if len(op.Snapshot.Panes) != 1 || b.PaneID != f.PaneID || b.PaneTitle != "a ␞ title" || b.PaneCurrentPath != f.PaneCurrentPath ||
		b.PaneCurrentCommand != f.PaneCurrentCommand || b.SessionName != f.SessionName || b.WindowID != f.WindowID || b.PaneActive != f.PaneActive {
		t.Fatalf("brief %+v, full %+v", b, f)
	}
	if op.Snapshot.Parts&tmux.WithClients == 0 {
		t.Error("the brief list did not read the clients")
	}
}
