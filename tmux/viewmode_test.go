package tmux_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestReadViewModeConfigErrors: a server started by a detached new-session with errors in its
// configuration (~/.tmux.conf) shows them in the new pane's view mode (3.3a; later versions
// keep them for the first attached client); ReadViewMode reads each error line, without the
// mode's position indicator, and leaves the mode.
func TestReadViewModeConfigErrors(t *testing.T) {
	tmx := testtmux.NewWithConf(t, "set -g no-such-option-one on", "set -g base-index 1", "set -g no-such-option-two on")
	ts := newServer(t, tmx)
	ctx := context.Background()
	ns := &tmux.NewSession{}
	if err := ts.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	st := &tmux.Screen{Pane: ns.PaneID}
	if err := ts.Do(ctx, st); err != nil {
		t.Fatal(err)
	}
	if st.Mode != "view-mode" {
		t.Skipf("this tmux shows no configuration errors in a detached session's pane (mode %q)", st.Mode)
	}
	v := &tmux.ReadViewMode{Pane: ns.PaneID}
	if err := ts.Do(ctx, v); err != nil {
		t.Fatal(err)
	}
	if len(v.Lines) != 2 || !strings.HasSuffix(v.Lines[0], ".tmux.conf:1: invalid option: no-such-option-one") ||
		!strings.HasSuffix(v.Lines[1], ".tmux.conf:3: invalid option: no-such-option-two") {
		t.Errorf("lines %q", v.Lines)
	}
	if err := ts.Do(ctx, st); err != nil || st.InMode {
		t.Errorf("still in a mode (%q) after ReadViewMode: %v", st.Mode, err)
	}
}
