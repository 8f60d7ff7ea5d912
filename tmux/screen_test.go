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

// TestScreenAndCaptureBatch reads a pane's screen state and text in one command list, and a
// pane that does not exist fails as not found.
func TestScreenAndCaptureBatch(t *testing.T) {
	tmx := testtmux.New(t)
	_, pane := tmx.NewSession("one")
	ts := newServer(t, tmx)
	ctx := context.Background()
	if _, err := ts.Command(ctx, "send-keys", "-t", pane, "-l", "printf 'x%.0s' $(seq 100); echo"); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Command(ctx, "send-keys", "-t", pane, "Enter"); err != nil {
		t.Fatal(err)
	}
	var last []string
	for range 100 {
		st := &tmux.Screen{Pane: pane}
		zero, cp := 0, &tmux.Capture{Pane: pane, Join: true}
		cp.Start = &zero
		if err := ts.Batch(ctx, st, cp); err != nil {
			t.Fatal(err)
		}
		if st.Width != 80 || st.Height != 24 || st.AlternateOn || st.HistoryLimit == 0 {
			t.Fatalf("screen %+v", st)
		}
		last = cp.Lines
		if strings.Contains(cp.Text(), strings.Repeat("x", 100)) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the joined line never showed: %q", last)
}

func TestScreenNotFound(t *testing.T) {
	tmx := testtmux.New(t)
	tmx.NewSession("one")
	ts := newServer(t, tmx)
	err := ts.Do(context.Background(), &tmux.Screen{Pane: "%999"})
	if !errors.Is(err, tmux.ErrNotFound) {
		t.Fatalf("got %v, want not found", err)
	}
	if err := ts.Do(context.Background(), &tmux.Capture{Pane: "x"}); err == nil || !strings.Contains(err.Error(), "pane id") {
		t.Fatalf("got %v, want a word about the pane id", err)
	}
}
