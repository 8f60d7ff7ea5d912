package policy

import (
	"github.com/tmux-mcp/tmux-mcp/internal/hint"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// SelfHint is what to do instead of touching the place this MCP server runs in.
const SelfHint = "This MCP server runs there (is_caller=true in list_panes marks its pane); work in other panes, windows or sessions, or do it yourself from a terminal if you really mean it."

// Place is where this MCP server runs on one tmux server, for the self-protection guards:
// when unsure, the guards refuse (a wrong guess could kill or type into the agent's own pane). A pane a person watches is the runner's
// guard (runner.Guard), which knows the pane's clients.
type Place struct {
	On       bool            // the caller is, or may be, inside this tmux server
	Pane     string          // its pane id; "" when TMUX_PANE is unset
	Found    bool            // the pane was found among the panes, so windows and sessions are known
	Windows  map[string]bool // windows holding the caller's pane
	Sessions map[string]bool // sessions linking those windows
}

// PlaceIn is the caller's place on a tmux server: on says whether it is (or may be) inside that
// server, panes are the server's panes (nil when they were not read).
func (c *Caller) PlaceIn(on bool, panes []tmux.Pane) Place {
	pl := Place{Windows: map[string]bool{}, Sessions: map[string]bool{}}
	if c == nil || !on {
		return pl
	}
	pl.On, pl.Pane = true, c.PaneID
	if pl.Pane == "" {
		return pl
	}
	for _, p := range panes { // a pane appears once per session linking its window
		if p.PaneID == pl.Pane {
			pl.Found = true
			pl.Windows[p.WindowID] = true
			pl.Sessions[p.SessionID] = true
		}
	}
	return pl
}

// GuardPane refuses to kill, respawn or clear (verb) the caller's own pane.
func (pl Place) GuardPane(verb, pane string) error {
	switch {
	case !pl.On:
		return nil
	case pl.Pane == "":
		return hint.New(SelfHint, "refusing to %s pane %s: this MCP server runs inside this tmux server and cannot tell which pane is its own (TMUX_PANE is unset)", verb, pane)
	case pl.Pane == pane:
		return hint.New(SelfHint, "refusing to %s pane %s: this MCP server runs in it", verb, pane)
	}
	return nil
}

// GuardInput refuses to type into the caller's own pane, which would type into the client
// talking to this server.
func (pl Place) GuardInput(pane string) error {
	switch {
	case !pl.On:
		return nil
	case pl.Pane == pane:
		return hint.New("Pick another pane (list_panes marks this one is_caller: true), or create one with split_window or create_window.",
			"refusing to type into pane %s: it is the pane this MCP server runs in, so it would type into the client that is talking to this server", pane)
	case pl.Pane == "":
		return hint.New(SelfHint, "refusing to type into pane %s: this MCP server runs inside this tmux server and cannot tell which pane is its own (TMUX_PANE is unset)", pane)
	}
	return nil
}

// GuardRun refuses a run while this server cannot tell which pane is its own (inside this
// tmux server, TMUX_PANE unset), unless forced: force accepts the own pane, so it accepts this
// doubt too. The own pane itself is refused by the run's preflight (runner.Check, given
// RunGuard's pane), after the checks that come first there (a pane a person watches).
func (pl Place) GuardRun(pane string, force bool) error {
	if pl.On && pl.Pane == "" && !force {
		return hint.New(SelfHint, "refusing to run in pane %s: this MCP server runs inside this tmux server and cannot tell which pane is its own (TMUX_PANE is unset)", pane)
	}
	return nil
}

// OwnPane is the caller's pane on this tmux server, "" when it is not on it or its pane is
// unknown: what a run's preflight refuses without force.
func (pl Place) OwnPane() string {
	if !pl.On {
		return ""
	}
	return pl.Pane
}

// GuardWindow refuses to kill the window holding the caller's pane.
func (pl Place) GuardWindow(id string) error { return pl.guardGroup("window", id, pl.Windows) }

// GuardSession refuses to kill the session holding the caller's pane.
func (pl Place) GuardSession(id string) error { return pl.guardGroup("session", id, pl.Sessions) }

func (pl Place) guardGroup(what, id string, holds map[string]bool) error {
	switch {
	case !pl.On:
		return nil
	case !pl.Found:
		return hint.New(SelfHint, "refusing to kill %s %s: this MCP server runs inside this tmux server and cannot tell where its own pane is", what, id)
	case holds[id]:
		return hint.New(SelfHint, "refusing to kill %s %s: it holds pane %s, where this MCP server runs", what, id, pl.Pane)
	}
	return nil
}

// GuardServer refuses to kill the tmux server the caller runs in.
func (pl Place) GuardServer() error {
	if pl.On {
		return hint.New(SelfHint, "refusing to kill this tmux server: this MCP server runs inside it")
	}
	return nil
}
