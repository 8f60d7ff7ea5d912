package tmux_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestPanePathAndOption reads a pane's directory, sets one of its user options, and fails as
// not found for a pane that does not exist.
func TestPanePathAndOption(t *testing.T) {
	tmx := testtmux.New(t)
	_, pane := tmx.NewSession("one")
	ts := newServer(t, tmx)
	ctx := context.Background()
	p := &tmux.PanePath{Pane: pane}
	if err := ts.Do(ctx, p); err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(tmx.Home)
	if got, _ := filepath.EvalSymlinks(p.Path); got != want {
		t.Errorf("path %q, want %q", p.Path, tmx.Home)
	}
	if err := ts.Do(ctx, &tmux.SetPaneOption{Pane: pane, Name: "@tmux_mcp_test", Value: "a b\tc"}); err != nil {
		t.Fatal(err)
	}
	if got := tmx.Tmux("show-options", "-p", "-v", "-t", pane, "@tmux_mcp_test"); got != "a b\tc" {
		t.Errorf("option %q", got)
	}
	if err := ts.Do(ctx, &tmux.PanePath{Pane: "%999"}); !errors.Is(err, tmux.ErrNotFound) {
		t.Errorf("missing pane: %v, want not found", err)
	}
	if err := ts.Do(ctx, &tmux.SetPaneOption{Pane: "x", Name: "@a", Value: "1"}); err == nil || !strings.Contains(err.Error(), "pane id") {
		t.Errorf("bad pane id: %v", err)
	}
}

// TestTopologyState lists the sessions and changes its state when a window comes, not when
// nothing changed.
func TestTopologyState(t *testing.T) {
	tmx := testtmux.New(t)
	s1, _ := tmx.NewSession("one")
	s2, _ := tmx.NewSession("two")
	ts := newServer(t, tmx)
	ctx := context.Background()
	a, b := &tmux.TopologyState{}, &tmux.TopologyState{}
	if err := ts.Batch(ctx, a, b); err != nil {
		t.Fatal(err)
	}
	if strings.Join(a.Sessions, " ") != strings.Join(sortedIDs(s1, s2), " ") || a.State != b.State {
		t.Fatalf("sessions %q (want %s %s), states %q / %q", a.Sessions, s1, s2, a.State, b.State)
	}
	tmx.NewWindow("one")
	c := &tmux.TopologyState{}
	if err := ts.Do(ctx, c); err != nil {
		t.Fatal(err)
	}
	if c.State == a.State || len(c.Sessions) != 2 {
		t.Fatalf("after a new window: %q, %q", c.Sessions, c.State)
	}
}

func sortedIDs(ids ...string) []string {
	if ids[0] > ids[1] {
		ids[0], ids[1] = ids[1], ids[0]
	}
	return ids
}
