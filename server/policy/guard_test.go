package policy

import (
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

func TestPlaceGuards(t *testing.T) {
	panes := []tmux.Pane{
		{PaneID: "%1", WindowID: "@1", SessionID: "$1"},
		{PaneID: "%2", WindowID: "@2", SessionID: "$1"},
		{PaneID: "%2", WindowID: "@2", SessionID: "$2"}, // @2 linked into $2 too
	}
	var none *Caller
	if pl := none.PlaceIn(true, panes); pl.On || pl.GuardPane("kill", "%2") != nil || pl.GuardServer() != nil {
		t.Errorf("outside tmux: %+v", pl)
	}
	c := &Caller{PaneID: "%2"}
	if pl := c.PlaceIn(false, panes); pl.GuardPane("kill", "%2") != nil || pl.GuardSession("$1") != nil || pl.GuardInput("%2") != nil {
		t.Error("on another server the guards refuse")
	}
	pl := c.PlaceIn(true, panes)
	for what, err := range map[string]error{
		"own pane":    pl.GuardPane("kill", "%2"),
		"own window":  pl.GuardWindow("@2"),
		"own session": pl.GuardSession("$2"),
		"own server":  pl.GuardServer(),
		"typing":      pl.GuardInput("%2"),
	} {
		if err == nil {
			t.Errorf("%s: not refused", what)
		}
	}
	if pl.GuardPane("kill", "%1") != nil || pl.GuardWindow("@1") != nil || pl.GuardInput("%1") != nil {
		t.Error("another pane or window is refused")
	}
	// Unsure (TMUX_PANE unset, or the pane not among those read): refuse.
	unsure := (&Caller{}).PlaceIn(true, panes)
	if err := unsure.GuardPane("respawn", "%1"); err == nil || !strings.Contains(err.Error(), "TMUX_PANE is unset") {
		t.Errorf("unset TMUX_PANE: %v", err)
	}
	if err := c.PlaceIn(true, nil).GuardSession("$9"); err == nil || !strings.Contains(err.Error(), "cannot tell where") {
		t.Errorf("panes not read: %v", err)
	}
}

// TestPlaceRun: a run's own pane is the preflight's (OwnPane), an unknown own pane refuses
// every run but a forced one.
func TestPlaceRun(t *testing.T) {
	tests := []struct {
		name      string
		caller    *Caller
		on, force bool
		own       string
		refused   bool
	}{
		{"outside tmux", nil, true, false, "", false},
		{"another server", &Caller{PaneID: "%2"}, false, false, "", false},
		{"known pane", &Caller{PaneID: "%2"}, true, false, "%2", false},
		{"unknown pane", &Caller{}, true, false, "", true},
		{"unknown pane, forced", &Caller{}, true, true, "", false},
	}
	for _, tc := range tests {
		pl := tc.caller.PlaceIn(tc.on, nil)
		err := pl.GuardRun("%1", tc.force)
		if pl.OwnPane() != tc.own || (err != nil) != tc.refused {
			t.Errorf("%s: own pane %q, refusal %v", tc.name, pl.OwnPane(), err)
		}
		if err != nil && !strings.Contains(err.Error(), "refusing to run in pane %1") {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
