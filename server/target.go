package server

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Socket is the socket_name argument every targeted tool takes, and the host it is on. SocketName
// has no description: its name says it, and it is in 50 tools of tools/list, which every agent's
// context pays for (the handshake instructions say it picks the tmux server). Host is advertised
// (and taken) only when hosts are configured (see hostOnly); Call.tmuxFor reads it.
type Socket struct {
	SocketName *string `json:"socket_name,omitempty"`
	Host       *string `json:"host,omitempty" jsonschema:"A configured host (LIBTMUX_MCP_HOSTS) or local; null: LIBTMUX_MCP_DEFAULT_HOST"`
}

// PaneTarget selects a pane: pane_id wins, else window_id's active pane, else the session's.
// The arguments are undescribed: their names say what they are and the handshake instructions
// give the order once, instead of in 30 tools of tools/list.
type PaneTarget struct {
	PaneID *string `json:"pane_id,omitempty"`
	SessionTarget
	WindowID *string `json:"window_id,omitempty"`
}

// WindowTarget selects a window: window_id wins, else window_index in the session, else the
// session's active window (undescribed, as PaneTarget).
type WindowTarget struct {
	WindowID    *string `json:"window_id,omitempty"`
	WindowIndex *string `json:"window_index,omitempty"`
	SessionTarget
}

// SessionTarget selects a session: session_id wins, else the exact session_name, else the
// first session (undescribed, as PaneTarget). PaneTarget and WindowTarget hold it too.
type SessionTarget struct {
	SessionName *string `json:"session_name,omitempty"`
	SessionID   *string `json:"session_id,omitempty"`
}

// checkIDs refuses malformed ids before tmux is asked.
func checkIDs(pane, window, session *string) error {
	if p := str(pane); pane != nil && !tmux.ValidPaneID(p) {
		return fail("Pane ids look like %1; list_panes shows them.", "pane_id %q is not a pane id", truncate(p, 80))
	}
	if w := str(window); window != nil && !tmux.ValidWindowID(w) {
		return fail("Window ids look like @1; list_windows shows them.", "window_id %q is not a window id", truncate(w, 80))
	}
	if s := str(session); session != nil && !tmux.ValidSessionID(s) {
		return fail("Session ids look like $1; list_sessions shows them.", "session_id %q is not a session id", truncate(s, 80))
	}
	return nil
}

// target is a resolved call target with the snapshot it was found in.
type target struct {
	ts      *tmux.Server
	snap    *tmux.Snapshot
	session tmux.Session
	window  tmux.Window
	pane    tmux.Pane
}

// snapshot reads the whole topology of the call's server.
func (c *Call) snapshot(ctx context.Context, sock *string) (*tmux.Server, *tmux.Snapshot, error) {
	ts, err := c.tmuxFor(sock)
	if err != nil {
		return nil, nil, err
	}
	snap, err := ts.Snapshot(ctx, tmux.WithAll)
	if err != nil {
		return nil, nil, err
	}
	return ts, snap, nil
}

// resolveSession finds the session: session_id wins, then the exact session_name, then the
// first session in id order.
func resolveSession(snap *tmux.Snapshot, sessionID, sessionName *string) (tmux.Session, error) {
	if err := checkIDs(nil, nil, sessionID); err != nil {
		return tmux.Session{}, err
	}
	if len(snap.Sessions) == 0 {
		return tmux.Session{}, fail("Create one with create_session.", "the tmux server has no sessions")
	}
	names := func() string {
		var c []string
		for _, s := range snap.Sessions {
			c = append(c, fmt.Sprintf("%s (%s)", s.SessionName, s.SessionID))
		}
		return candidates(c)
	}
	switch {
	case sessionID != nil:
		for _, s := range snap.Sessions {
			if s.SessionID == *sessionID {
				return s, nil
			}
		}
		return tmux.Session{}, fail("Sessions: "+names()+".", "no session has id %s", *sessionID)
	case sessionName != nil:
		for _, s := range snap.Sessions {
			if s.SessionName == *sessionName {
				return s, nil
			}
		}
		return tmux.Session{}, fail("Sessions: "+names()+" (names match exactly).", "no session is named %q", truncate(*sessionName, 80))
	}
	first := snap.Sessions[0]
	for _, s := range snap.Sessions[1:] {
		if idNum(s.SessionID) < idNum(first.SessionID) {
			first = s
		}
	}
	return first, nil
}

// parseIndex reads a window index in its one form: decimal digits with no sign, space or
// leading zero ("0", "12"), below a billion.
func parseIndex(s string) (int, bool) {
	if s == "" || len(s) > 9 || s[0] == '0' && len(s) > 1 || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

func idNum(id string) int {
	n, err := strconv.Atoi(strings.TrimLeft(id, "%@$"))
	if err != nil {
		return 1 << 30
	}
	return n
}

func candidates(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	more := ""
	if len(list) > 12 {
		more = fmt.Sprintf(" and %d more", len(list)-12)
		list = list[:12]
	}
	return strings.Join(list, ", ") + more
}

func findWindow(snap *tmux.Snapshot, id string) (tmux.Window, bool) {
	for _, w := range snap.Windows {
		if w.WindowID == id {
			return w, true
		}
	}
	return tmux.Window{}, false
}

func windowCandidates(snap *tmux.Snapshot, sessionID string) string {
	var c []string
	for _, w := range snap.Windows {
		if sessionID == "" || w.SessionID == sessionID {
			c = append(c, fmt.Sprintf("%s (%s:%d %s)", w.WindowID, w.SessionName, w.WindowIndex, w.WindowName))
		}
	}
	return candidates(c)
}

func paneCandidates(snap *tmux.Snapshot) string {
	var c []string
	seen := map[string]bool{}
	for _, p := range snap.Panes {
		if !seen[p.PaneID] {
			seen[p.PaneID] = true
			c = append(c, fmt.Sprintf("%s (%s:%d.%d)", p.PaneID, p.SessionName, p.WindowIndex, p.PaneIndex))
		}
	}
	sort.SliceStable(c, func(i, j int) bool {
		return idNum(c[i][:strings.IndexByte(c[i], ' ')]) < idNum(c[j][:strings.IndexByte(c[j], ' ')])
	})
	return candidates(c)
}

// resolveWindowIn finds a window: window_id wins, else window_index within the session, else
// the session's active window.
func resolveWindowIn(snap *tmux.Snapshot, t WindowTarget) (tmux.Window, error) {
	if err := checkIDs(nil, t.WindowID, t.SessionID); err != nil {
		return tmux.Window{}, err
	}
	if t.WindowID != nil {
		if w, ok := findWindow(snap, *t.WindowID); ok {
			return w, nil
		}
		return tmux.Window{}, fail("Windows: "+windowCandidates(snap, "")+".", "no window has id %s", *t.WindowID)
	}
	sess, err := resolveSession(snap, t.SessionID, t.SessionName)
	if err != nil {
		return tmux.Window{}, err
	}
	if t.WindowIndex != nil {
		idx, ok := parseIndex(*t.WindowIndex)
		if !ok {
			return tmux.Window{}, fail("Pass the window's number as plain digits, e.g. \"0\" or \"12\" (list_windows shows them).", "window_index %q is not a window index", truncate(*t.WindowIndex, 40))
		}
		for _, w := range snap.Windows {
			if w.SessionID == sess.SessionID && w.WindowIndex == idx {
				return w, nil
			}
		}
		return tmux.Window{}, fail("Windows of "+sess.SessionName+": "+windowCandidates(snap, sess.SessionID)+".", "session %s has no window at index %d", sess.SessionName, idx)
	}
	for _, w := range snap.Windows {
		if w.SessionID == sess.SessionID && w.WindowID == sess.ActiveWindowID {
			return w, nil
		}
	}
	return tmux.Window{}, fmt.Errorf("session %s has no active window: %w", sess.SessionName, tmux.ErrNotFound)
}

// resolvePaneIn finds a pane: pane_id wins, else the window's active pane, else the session's.
func resolvePaneIn(snap *tmux.Snapshot, t PaneTarget) (tmux.Pane, error) {
	if err := checkIDs(t.PaneID, t.WindowID, t.SessionID); err != nil {
		return tmux.Pane{}, err
	}
	id := ""
	switch {
	case t.PaneID != nil:
		id = *t.PaneID
		if p, ok := snap.Pane(id); ok {
			return p, nil
		}
		return tmux.Pane{}, fail("Panes: "+paneCandidates(snap)+".", "no pane has id %s", id)
	case t.WindowID != nil:
		w, err := resolveWindowIn(snap, WindowTarget{WindowID: t.WindowID})
		if err != nil {
			return tmux.Pane{}, err
		}
		id = w.ActivePaneID
	default:
		sess, err := resolveSession(snap, t.SessionID, t.SessionName)
		if err != nil {
			return tmux.Pane{}, err
		}
		id = sess.ActivePaneID
	}
	if p, ok := snap.Pane(id); ok {
		return p, nil
	}
	return tmux.Pane{}, fmt.Errorf("active pane %s: %w", id, tmux.ErrNotFound)
}

// pane resolves a pane target on the call's server.
func (c *Call) pane(ctx context.Context, t PaneTarget, sock *string) (*target, error) {
	if err := checkIDs(t.PaneID, t.WindowID, t.SessionID); err != nil {
		return nil, err
	}
	ts, snap, err := c.snapshot(ctx, sock)
	if err != nil {
		return nil, err
	}
	p, err := resolvePaneIn(snap, t)
	if err != nil {
		return nil, err
	}
	return &target{ts: ts, snap: snap, pane: p}, nil
}

// window resolves a window target on the call's server.
func (c *Call) window(ctx context.Context, t WindowTarget, sock *string) (*target, error) {
	if err := checkIDs(nil, t.WindowID, t.SessionID); err != nil {
		return nil, err
	}
	ts, snap, err := c.snapshot(ctx, sock)
	if err != nil {
		return nil, err
	}
	w, err := resolveWindowIn(snap, t)
	if err != nil {
		return nil, err
	}
	return &target{ts: ts, snap: snap, window: w}, nil
}

// session resolves a session target on the call's server.
func (c *Call) session(ctx context.Context, sessionID, sessionName, sock *string) (*target, error) {
	if err := checkIDs(nil, nil, sessionID); err != nil {
		return nil, err
	}
	ts, snap, err := c.snapshot(ctx, sock)
	if err != nil {
		return nil, err
	}
	sess, err := resolveSession(snap, sessionID, sessionName)
	if err != nil {
		return nil, err
	}
	return &target{ts: ts, snap: snap, session: sess}, nil
}
