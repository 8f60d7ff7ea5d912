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

// markCreated marks what a create tool made, target being the new session ("$1"), window
// ("@2") or pane ("%3"): a session's first window and pane, a window's first pane too. A
// failure only leaves the object unmarked (killable at the destructive tier alone).
func markCreated(ctx context.Context, ts *tmux.Server, target string) {
	set := func(scope, t, name, value string) []string {
		return []string{"set-option", scope, "-F", "-t", t, name, value}
	}
	var cmds [][]string
	switch {
	case strings.HasPrefix(target, "$"):
		cmds = append(cmds, []string{"set-option", "-t", target, ownSession, target},
			set("-w", target+":", ownWindow, "#{window_id}"), set("-p", target+":", ownPane, "#{pane_id}"))
	case strings.HasPrefix(target, "@"):
		cmds = append(cmds, set("-w", target, ownWindow, "#{window_id}"), set("-p", target, ownPane, "#{pane_id}"))
	default:
		cmds = append(cmds, set("-p", target, ownPane, "#{pane_id}"))
	}
	ts.Exec(ctx, cmds...)
}

// ownedFormat says, for each pane listed, whether this server created it, its window and its
// session: "1 1 1" when all three.
var ownedFormat = "#{pane_id} #{==:#{" + ownPane + "},#{pane_id}} #{==:#{" + ownWindow + "},#{window_id}} #{==:#{" + ownSession + "},#{session_id}}"

// checkOwned refuses, below the destructive tier, a kill of what this server did not create:
// the pane, or the window or session (scope "-s") with every pane in it. what names the object
// for the message ("pane %3").
func (c *Call) checkOwned(ctx context.Context, ts *tmux.Server, what, target string, level int) error {
	if c.tier() >= policy.Destructive {
		return nil
	}
	args := []string{"list-panes", "-F", ownedFormat, "-t", target}
	switch level {
	case levelPane:
		args = []string{"display-message", "-p", "-t", target, ownedFormat}
	case levelSession:
		args = append(args, "-s")
	}
	out, err := ts.Query(ctx, args)
	if err != nil {
		return err
	}
	top := false // the object itself is not this server's
	var panes []string
	for _, line := range out[0] {
		f := strings.Fields(line)
		if len(f) != 4 {
			continue
		}
		top = top || (level == levelSession && f[3] != "1") || (level == levelWindow && f[2] != "1")
		if f[1] != "1" || (level == levelSession && f[2] != "1") {
			panes = append(panes, f[0])
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
