package tmux_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestPaneOptionRoundTrip sets a pane's user option to values holding what tmux's parser
// treats specially ("$", "\$", quotes, braces) and reads each back as set, on every version
// (3.4 stores "$" as "\$"); an unset option reads as not set.
func TestPaneOptionRoundTrip(t *testing.T) {
	tmx := testtmux.New(t)
	_, pane := tmx.NewSession("one")
	ts := newServer(t, tmx)
	ctx := context.Background()
	for _, v := range []string{`{"command":"echo $HOME ${x}"}`, `$`, `a\$b`, `\\$`, `\\\$_`, `x'y"z{}#{pane_id};~`, `plain`, `$$ and $1 $-`} {
		if err := ts.Do(ctx, &tmux.SetPaneOption{Pane: pane, Name: "@tmux_mcp_test", Value: v}); err != nil {
			t.Fatal(err)
		}
		got := &tmux.PaneOption{Pane: pane, Name: "@tmux_mcp_test"}
		if err := ts.Do(ctx, got); err != nil || !got.Set || got.Value != v {
			t.Errorf("set %q, read %q (set %v): %v", v, got.Value, got.Set, err)
		}
	}
	if err := ts.Do(ctx, &tmux.UnsetPaneOption{Pane: pane, Name: "@tmux_mcp_test"}); err != nil {
		t.Fatal(err)
	}
	got := &tmux.PaneOption{Pane: pane, Name: "@tmux_mcp_test"}
	if err := ts.Do(ctx, got); err != nil || got.Set || got.Value != "" {
		t.Errorf("unset option read as %+v: %v", got, err)
	}
}

// TestTypingOps types text literally (a leading "-" and a key name among it) after a key
// name, in one batch, and titles the pane.
func TestTypingOps(t *testing.T) {
	tmx := testtmux.New(t)
	_, pane := tmx.NewSession("one")
	ts := newServer(t, tmx)
	ctx := context.Background()
	err := ts.Batch(ctx, &tmux.SendKeys{Pane: pane, Keys: []string{"C-u"}}, &tmux.SendText{Pane: pane, Text: "-n Enter $x"},
		&tmux.SetTitle{Pane: pane, Title: "a #{pane_id} ## title"})
	if err != nil {
		t.Fatal(err)
	}
	var last string
	for range 100 {
		cp, ex := &tmux.Capture{Pane: pane}, &tmux.Expand{Pane: pane, Format: "-#{pane_title}"}
		if err := ts.Batch(ctx, cp, ex); err != nil {
			t.Fatal(err)
		}
		last = cp.Text()
		if strings.Contains(last, "-n Enter $x") {
			if len(ex.Lines) != 1 || ex.Lines[0] != "-a #{pane_id} ## title" {
				t.Fatalf("title %q", ex.Lines)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("screen %q", last)
}

// TestPaneRecordAndWindowTarget reads a pane's record and screen by its window's id (its
// active pane) in the command list of SnapshotOf, and a missing pane as not found.
func TestPaneRecordAndWindowTarget(t *testing.T) {
	tmx := testtmux.New(t)
	_, pane := tmx.NewSession("one")
	ts := newServer(t, tmx)
	ctx := context.Background()
	rec := &tmux.PaneRecord{Pane: pane}
	if err := ts.Do(ctx, rec); err != nil || rec.Record.PaneID != pane || rec.Record.PaneWidth != 80 {
		t.Fatalf("record %+v: %v", rec.Record, err)
	}
	window := rec.Record.WindowID
	st, byWindow := &tmux.Screen{Pane: window}, &tmux.PaneRecord{Pane: window}
	snap, err := ts.SnapshotOf(ctx, window, tmux.WithWindows, st, byWindow)
	if err != nil || snap == nil || len(snap.Windows) != 1 || snap.Windows[0].ActivePaneID != pane {
		t.Fatalf("snapshot %+v: %v", snap, err)
	}
	if st.Pane != pane || st.Width != 80 || byWindow.Record.PaneID != pane {
		t.Fatalf("by window: screen %+v, record %+v", st, byWindow.Record)
	}
	if err := ts.Do(ctx, &tmux.PaneRecord{Pane: "%999"}); !errors.Is(err, tmux.ErrNotFound) {
		t.Fatalf("missing pane: %v", err)
	}
	if _, err := ts.SnapshotOf(ctx, "%999", tmux.WithPanes, &tmux.Capture{Pane: "%999"}); !errors.Is(err, tmux.ErrNotFound) {
		t.Fatalf("missing pane's snapshot: %v", err)
	}
}
