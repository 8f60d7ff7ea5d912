package server

import (
	"context"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// What this server created carries a tmux user option naming the object itself, one option per
// level (a pane's options inherit its window's, a window's its session's, so one name would
// answer for all): tmux keeps it, so a later server process knows it too. At the mutating tier
// kill_pane, kill_window and kill_session remove only such objects; at destructive, anything.
const (
	ownSession = "@tmux_mcp_session"
	ownWindow  = "@tmux_mcp_window"
	ownPane    = "@tmux_mcp_pane"
)

// owned are the tags of what this server created.
var owned = tmux.Tags{Session: ownSession, Window: ownWindow, Pane: ownPane}

// markCreated marks what a create tool made, target being the new session ("$1"), window
// ("@2") or pane ("%3"): a session's first window and pane, a window's first pane too. A
// failure only leaves the object unmarked (killable at the destructive tier alone).
func markCreated(ctx context.Context, ts *tmux.Server, target string) {
	_ = ts.Do(ctx, &tmux.Tag{Tags: owned, Target: target})
}

// checkOwned refuses, below the destructive tier, a kill of what this server did not create:
// the pane, or the window or session with every pane in it. what names the object for the
// message ("pane %3").
func (c *Call) checkOwned(ctx context.Context, ts *tmux.Server, what, target string, level int) error {
	if c.tier() >= policy.Destructive {
		return nil
	}
	op := &tmux.Tagged{Tags: owned, Target: target}
	if err := ts.Do(ctx, op); err != nil {
		return err
	}
	top := false // the object itself is not this server's
	var panes []string
	for _, p := range op.Panes {
		top = top || (level == levelSession && !p.Session) || (level == levelWindow && !p.Window)
		if !p.Own || (level == levelSession && !p.Window) {
			panes = append(panes, p.Pane)
		}
	}
	const hint = "At the mutating tier this server kills only the sessions, windows and panes it created; set LIBTMUX_SAFETY=destructive (or --safety destructive) to kill others."
	switch {
	case top || level == levelPane && len(panes) > 0:
		return fail(hint, "%s was not created by this server", what)
	case len(panes) > 0:
		return fail(hint, "%s holds panes (or windows) this server did not create: %s", what, strings.Join(panes[:min(len(panes), 5)], " "))
	}
	return nil
}

// Levels of checkOwned.
const (
	levelPane = iota
	levelWindow
	levelSession
)
