package tmux_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestCreateAndArrangeOps makes a session, a window and a split with the create ops (their
// ids read back), arranges them with the pane and window ops, and checks each change in a
// snapshot; names and titles with # and spaces come back as they were given.
func TestCreateAndArrangeOps(t *testing.T) {
	tmx := testtmux.New(t)
	ts := newServer(t, tmx)
	ctx := context.Background()
	name, dir := "odd #{name} s", tmx.Home
	ns := &tmux.NewSession{Name: &name, Spawn: tmux.Spawn{Dir: &dir, Env: []string{"OPS_X=1"}}}
	if err := ts.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	if !tmux.ValidSessionID(ns.SessionID) || !tmux.ValidPaneID(ns.PaneID) {
		t.Fatalf("NewSession ids %q %q", ns.SessionID, ns.PaneID)
	}
	wname := "w #1"
	nw := &tmux.NewWindow{Session: ns.SessionID, Name: &wname, Spawn: tmux.Spawn{Argv: []string{"cat"}}}
	sp := &tmux.SplitWindow{Pane: ns.PaneID, Direction: "right", Size: "10"}
	if err := ts.Batch(ctx, nw, sp); err != nil {
		t.Fatal(err)
	}
	title := "a #{title}"
	ops := []tmux.Op{
		&tmux.SetPaneTitle{Pane: sp.PaneID, Title: title},
		&tmux.ResizePane{Pane: ns.PaneID, Height: ptr(10)},
		&tmux.SelectPane{Pane: sp.PaneID},
		&tmux.RenameWindow{Window: tmux.WindowIn(ns.SessionID, nw.WindowID), Name: "renamed #"},
		&tmux.RenameSession{Session: ns.SessionID, Name: "s2 #"},
		&tmux.SetPaneOption{Pane: sp.PaneID, Name: "@ops", Value: "v"},
		&tmux.CopyMode{Pane: nw.PaneID, ScrollUp: 1},
	}
	if err := ts.Batch(ctx, ops...); err != nil {
		t.Fatal(err)
	}
	snap, err := ts.Snapshot(ctx, tmux.WithAll)
	if err != nil {
		t.Fatal(err)
	}
	split, _ := snap.Pane(sp.PaneID)
	inMode, _ := snap.Pane(nw.PaneID)
	if split.PaneTitle != title || !split.PaneActive || split.PaneWidth != 10 || !inMode.PaneInMode ||
		snap.Sessions[0].SessionName != "s2 #" || len(snap.Windows) != 2 || snap.Windows[1].WindowName != "renamed #" {
		t.Fatalf("after the ops: %+v", snap)
	}
	if err := ts.Batch(ctx, &tmux.CopyMode{Pane: nw.PaneID, Exit: true}, &tmux.ToggleZoom{Pane: sp.PaneID},
		&tmux.SwapPanes{Source: sp.PaneID, Target: ns.PaneID}, &tmux.SelectLayout{Window: tmux.WindowIn(ns.SessionID, nw.WindowID), Layout: "tiled"},
		&tmux.SelectWindow{Session: ns.SessionID, Direction: "next"}, &tmux.ClearPane{Pane: ns.PaneID},
		&tmux.RespawnPane{Pane: nw.PaneID, Kill: true, Argv: []string{"cat"}}); err != nil {
		t.Fatal(err)
	}
	if err := ts.Do(ctx, &tmux.SelectPane{Pane: ns.PaneID, Direction: "sideways"}); err == nil || !strings.Contains(err.Error(), "sideways") {
		t.Errorf("a bad direction: %v", err)
	}
	if err := ts.Kill(ctx, nw.WindowID); err != nil {
		t.Fatal(err)
	}
	if err := ts.Do(ctx, &tmux.SetPaneTitle{Pane: nw.PaneID, Title: "x"}); !errors.Is(err, tmux.ErrNotFound) {
		t.Errorf("a killed window's pane: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }

// TestCreateAfterLastSessionKilled: a session made right after the server's last one was
// killed is made, though the old server may still be on its way out (a tmux client that
// reaches it is told "server exited unexpectedly"): an agent's clean start.
func TestCreateAfterLastSessionKilled(t *testing.T) {
	tmx := testtmux.New(t)
	ts := newServer(t, tmx)
	ctx := context.Background()
	for i := range 15 {
		ns := &tmux.NewSession{}
		if err := ts.Create(ctx, ns); err != nil {
			t.Fatalf("new session %d, right after the last one was killed: %v", i, err)
		}
		if err := ts.Kill(ctx, ns.SessionID); err != nil {
			t.Fatalf("killing session %d: %v", i, err)
		}
	}
}
