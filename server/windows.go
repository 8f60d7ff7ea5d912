package server

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// windowTools: renaming, selecting, laying out, resizing, moving and killing windows and
// sessions, and killing a server. Panes are panes.go's.
func windowTools() []*Tool {
	return []*Tool{
		define(spec{Name: "rename_session", Title: "Rename tmux Session", Tier: policy.Mutating, Toolsets: []string{policy.Manage}, Ann: annMUT,
			Description: "Rename a session, literally."},
			renameSession),
		define(spec{Name: "select_window", Title: "Select tmux Window", Tier: policy.Mutating, Toolsets: []string{policy.Manage}, Ann: annMUT,
			Description: "Make a window current in its session: window_id, window_index or direction.",
			Input:       edits(enum("direction", "next", "previous", "last"))},
			selectWindow),
		define(spec{Name: "rename_window", Title: "Rename tmux Window", Tier: policy.Mutating, Toolsets: []string{policy.Manage}, Ann: annMUT,
			Description: "Rename a window, literally."},
			renameWindow),
		define(spec{Name: "select_layout", Title: "Select tmux Layout", Tier: policy.Mutating, Toolsets: []string{policy.Manage}, Ann: annMUT,
			Description: "Arrange a window's panes: a preset (even-horizontal, main-vertical, tiled, ...) or a window_layout string."},
			selectLayout),
		define(spec{Name: "resize_window", Title: "Resize tmux Window", Tier: policy.Mutating, Toolsets: []string{policy.Manage}, Ann: annMUT,
			Description: "Resize a window to width and/or height cells.",
			Input:       edits(minimum("width", 1), minimum("height", 1))},
			resizeWindow),
		define(spec{Name: "move_window", Title: "Move tmux Window", Tier: policy.Mutating, Toolsets: []string{policy.Manage}, Ann: annMUT,
			Description: "Move a window to another index and/or session."},
			moveWindow),
		define(spec{Name: "kill_window", Title: "Kill tmux Window", Tier: policy.Mutating, Toolsets: []string{policy.Teardown}, Ann: annDESTR,
			Description: "Kill a window and its panes; at mutating, only one this server created."},
			killWindow),
		define(spec{Name: "kill_session", Title: "Kill tmux Session", Tier: policy.Mutating, Toolsets: []string{policy.Teardown}, Ann: annDESTR,
			Description: "Kill a session (session_name or session_id) and its windows; at mutating, only one this server created."},
			killSession),
		define(spec{Name: "kill_server", Title: "Kill tmux Server", Tier: policy.Destructive, Ann: annDESTR,
			Description: "Kill a tmux server and all in it. Not the one this MCP server runs in."},
			killServer),
	}
}

// windowTarget names a window within a session for commands that care which link is meant.
func windowTarget(w tmux.Window) string { return tmux.WindowIn(w.SessionID, w.WindowID) }

// windowRow returns the snapshot row of window id as linked in session (else its first row).
func windowRow(snap *tmux.Snapshot, sessionID, id string) (tmux.Window, bool) {
	var first tmux.Window
	found := false
	for _, w := range snap.Windows {
		if w.WindowID != id {
			continue
		}
		if w.SessionID == sessionID {
			return w, true
		}
		if !found {
			first, found = w, true
		}
	}
	return first, found
}

// windowIn re-reads a window as linked in session.
func windowNow(ctx context.Context, ts *tmux.Server, sessionID, id string) (tmux.Window, error) {
	snap, err := ts.Snapshot(ctx, tmux.WithWindows)
	if err != nil {
		return tmux.Window{}, err
	}
	if w, ok := windowRow(snap, sessionID, id); ok {
		return w, nil
	}
	return tmux.Window{}, fmt.Errorf("window %s: %w", id, tmux.ErrNotFound)
}

// ---- rename_session

type renameSessionIn struct {
	NewName string `json:"new_name" jsonschema:"No ':' or '.'"`
	SessionTarget
	Socket
}

func renameSession(ctx context.Context, c *Call, in *renameSessionIn) (tmux.Session, error) {
	if err := checkSessionName(&in.NewName); err != nil {
		return tmux.Session{}, renamed(err, "session_name", "new_name")
	}
	t, err := c.session(ctx, in.SessionID, in.SessionName, in.SocketName)
	if err != nil {
		return tmux.Session{}, err
	}
	for _, s := range t.snap.Sessions {
		if s.SessionName == in.NewName && s.SessionID != t.session.SessionID {
			return tmux.Session{}, fail("Choose another new_name (list_sessions shows the names in use).", "a session named %q already exists (%s)", truncate(in.NewName, 80), s.SessionID)
		}
	}
	if err := t.ts.Do(ctx, &tmux.RenameSession{Session: t.session.SessionID, Name: in.NewName}); err != nil {
		return tmux.Session{}, err
	}
	return findSession(ctx, t.ts, t.session.SessionID)
}

// renamed reports a validation error under the argument name the caller used.
func renamed(err error, from, to string) error {
	var te *toolError
	if errors.As(err, &te) {
		return &toolError{Msg: strings.Replace(te.Msg, from, to, 1), Hint: te.Hint}
	}
	return err
}

// ---- select_window

type selectWindowIn struct {
	WindowID    *string `json:"window_id,omitempty"`
	WindowIndex *Index  `json:"window_index,omitempty"`
	Direction   *string `json:"direction,omitempty" jsonschema:"last: previous current window"`
	SessionTarget
	Socket
}

func selectWindow(ctx context.Context, c *Call, in *selectWindowIn) (tmux.Window, error) {
	if in.WindowID == nil && in.WindowIndex == nil && in.Direction == nil {
		return tmux.Window{}, fail("Pass window_id, window_index (with the session) or direction (next, previous, last).", "select_window needs window_id, window_index or direction")
	}
	if err := checkIDs(nil, in.WindowID, in.SessionID); err != nil {
		return tmux.Window{}, err
	}
	ts, snap, err := c.snapshot(ctx, in.SocketName)
	if err != nil {
		return tmux.Window{}, err
	}
	var sessionID string
	var op *tmux.SelectWindow
	if in.WindowID != nil || in.WindowIndex != nil {
		w, err := resolveWindowIn(snap, WindowTarget{WindowID: in.WindowID, WindowIndex: in.WindowIndex, SessionTarget: in.SessionTarget})
		if err != nil {
			return tmux.Window{}, err
		}
		if in.WindowID != nil && (in.SessionID != nil || in.SessionName != nil) {
			// The window as linked in the session the caller named, when it is linked there.
			if s, err := resolveSession(snap, in.SessionID, in.SessionName); err == nil {
				if lw, ok := windowRow(snap, s.SessionID, w.WindowID); ok {
					w = lw
				}
			}
		}
		sessionID = w.SessionID
		op = &tmux.SelectWindow{Window: windowTarget(w)}
	} else {
		s, err := resolveSession(snap, in.SessionID, in.SessionName)
		if err != nil {
			return tmux.Window{}, err
		}
		sessionID = s.SessionID
		op = &tmux.SelectWindow{Session: s.SessionID, Direction: *in.Direction}
	}
	if err := ts.Do(ctx, op); err != nil {
		var ce *tmux.CommandError
		if errors.As(err, &ce) && in.Direction != nil {
			return tmux.Window{}, fail("Select a window by window_id or window_index instead (list_windows shows them).", "cannot select the %s window of session %s: %s", *in.Direction, sessionID, strings.TrimSpace(ce.Message))
		}
		return tmux.Window{}, err
	}
	sessions, err := ts.Snapshot(ctx, tmux.WithSessions)
	if err != nil {
		return tmux.Window{}, err
	}
	for _, s := range sessions.Sessions {
		if s.SessionID == sessionID {
			return windowNow(ctx, ts, sessionID, s.ActiveWindowID)
		}
	}
	return tmux.Window{}, fmt.Errorf("session %s: %w", sessionID, tmux.ErrNotFound)
}

// ---- rename_window

type renameWindowIn struct {
	NewName string `json:"new_name"`
	WindowTarget
	Socket
}

func renameWindow(ctx context.Context, c *Call, in *renameWindowIn) (tmux.Window, error) {
	if err := checkWindowName("new_name", &in.NewName); err != nil {
		return tmux.Window{}, err
	}
	t, err := c.window(ctx, in.WindowTarget, in.SocketName)
	if err != nil {
		return tmux.Window{}, err
	}
	if err := t.ts.Do(ctx, &tmux.RenameWindow{Window: windowTarget(t.window), Name: in.NewName}); err != nil {
		return tmux.Window{}, err
	}
	return windowNow(ctx, t.ts, t.window.SessionID, t.window.WindowID)
}

// ---- select_layout

var (
	builtinLayouts = []string{"even-horizontal", "even-vertical", "main-horizontal", "main-vertical", "tiled"}
	layoutRe       = lazyRegexp(`^[0-9a-f]{4},[0-9]+x[0-9]+,[0-9]+,[0-9]+[0-9x,{}\[\]]*$`)
)

type selectLayoutIn struct {
	Layout string `json:"layout"`
	WindowTarget
	Socket
}

func selectLayout(ctx context.Context, c *Call, in *selectLayoutIn) (tmux.Window, error) {
	l := in.Layout
	isBuiltin := false
	for _, b := range builtinLayouts {
		isBuiltin = isBuiltin || l == b
	}
	if !isBuiltin && (len(l) > 8192 || !layoutRe().MatchString(l)) {
		return tmux.Window{}, fail("Use one of "+strings.Join(builtinLayouts, ", ")+", or a layout string copied from window_layout (list_windows).", "layout %q is neither a built-in layout nor a layout string", truncate(in.Layout, 80))
	}
	t, err := c.window(ctx, in.WindowTarget, in.SocketName)
	if err != nil {
		return tmux.Window{}, err
	}
	if err := t.ts.Do(ctx, &tmux.SelectLayout{Window: windowTarget(t.window), Layout: l}); err != nil {
		var ce *tmux.CommandError
		if errors.As(err, &ce) {
			return tmux.Window{}, fail("A layout string must match the window's pane count and carry a valid checksum; copy one from window_layout, or use a built-in layout.", "tmux refused layout %q: %s", truncate(l, 80), strings.TrimSpace(ce.Message))
		}
		return tmux.Window{}, err
	}
	return windowNow(ctx, t.ts, t.window.SessionID, t.window.WindowID)
}

// ---- resize_window

type resizeWindowIn struct {
	WindowTarget
	Width  *int `json:"width,omitempty"`
	Height *int `json:"height,omitempty"`
	Socket
}

func resizeWindow(ctx context.Context, c *Call, in *resizeWindowIn) (tmux.Window, error) {
	if in.Width == nil && in.Height == nil {
		return tmux.Window{}, fail("Pass width and/or height in cells.", "resize_window needs width or height")
	}
	if err := errors.Join(checkSize("width", in.Width), checkSize("height", in.Height)); err != nil {
		return tmux.Window{}, err
	}
	t, err := c.window(ctx, in.WindowTarget, in.SocketName)
	if err != nil {
		return tmux.Window{}, err
	}
	if err := t.ts.Do(ctx, &tmux.ResizeWindow{Window: windowTarget(t.window), Width: in.Width, Height: in.Height}); err != nil {
		return tmux.Window{}, err
	}
	return windowNow(ctx, t.ts, t.window.SessionID, t.window.WindowID)
}

// ---- move_window

type moveWindowIn struct {
	WindowTarget
	DestinationIndex   *Index  `json:"destination_index,omitempty" jsonschema:"Default: next free index"`
	DestinationSession *string `json:"destination_session,omitempty" jsonschema:"Exact name or id; default: its own"`
	Socket
}

func moveWindow(ctx context.Context, c *Call, in *moveWindowIn) (tmux.Window, error) {
	idx := ""
	if in.DestinationIndex != nil {
		n, ok := parseIndex(index(in.DestinationIndex))
		if !ok {
			return tmux.Window{}, fail("Pass a window index as plain digits, such as \"3\", or omit destination_index for the next free index.", "destination_index %q is not a window index", truncate(index(in.DestinationIndex), 40))
		}
		idx = strconv.Itoa(n)
	}
	if in.DestinationSession != nil {
		if err := checkName("destination_session", in.DestinationSession); err != nil {
			return tmux.Window{}, err
		}
	}
	t, err := c.windowWith(ctx, in.WindowTarget, in.SocketName, readSessions)
	if err != nil {
		return tmux.Window{}, err
	}
	dest := t.window.SessionID
	if d := in.DestinationSession; d != nil {
		var s tmux.Session
		if strings.HasPrefix(*d, "$") {
			s, err = resolveSession(t.snap, d, nil)
		} else {
			s, err = resolveSession(t.snap, nil, d)
		}
		if err != nil {
			return tmux.Window{}, err
		}
		dest = s.SessionID
	}
	// Keep a current window current when it stays in its session; elsewhere, do not change
	// which window the destination shows.
	op := &tmux.MoveWindow{Window: windowTarget(t.window), Destination: dest, Index: idx,
		Detached: !(dest == t.window.SessionID && t.window.WindowActive)}
	if err := t.ts.Do(ctx, op); err != nil {
		var ce *tmux.CommandError
		if errors.As(err, &ce) && strings.Contains(ce.Message, "index in use") {
			return tmux.Window{}, fail("Pick a free destination_index (list_windows shows the used ones), or omit it for the next free index.", "index %s is in use in session %s", idx, dest)
		}
		return tmux.Window{}, err
	}
	return windowNow(ctx, t.ts, dest, t.window.WindowID)
}

// ---- kill_window

type killWindowIn struct {
	WindowID string `json:"window_id"`
	Socket
}

func killWindow(ctx context.Context, c *Call, in *killWindowIn) (resultOut, error) {
	if err := checkIDs(nil, &in.WindowID, nil); err != nil {
		return resultOut{}, err
	}
	t, err := c.windowWith(ctx, WindowTarget{WindowID: &in.WindowID}, in.SocketName, readAll)
	if err != nil {
		return resultOut{}, err
	}
	if err := c.callerPlace(ctx, t.ts, t.snap).GuardWindow(in.WindowID); err != nil {
		return resultOut{}, err
	}
	if err := c.checkOwned(ctx, t.ts, "window "+in.WindowID, in.WindowID, levelWindow); err != nil {
		return resultOut{}, err
	}
	if err := t.ts.Kill(ctx, in.WindowID); err != nil {
		return resultOut{}, err
	}
	return resultOut{Result: "Window " + in.WindowID + " killed"}, nil
}

// ---- kill_session

func killSession(ctx context.Context, c *Call, in *sessionIn) (resultOut, error) {
	if in.SessionID == nil && in.SessionName == nil {
		return resultOut{}, fail("Pass session_name or session_id (list_sessions shows them); kill_session never picks a session for you.", "kill_session needs session_name or session_id")
	}
	t, err := c.sessionWith(ctx, in.SessionID, in.SessionName, in.SocketName, readAll)
	if err != nil {
		return resultOut{}, err
	}
	id := t.session.SessionID
	if err := c.callerPlace(ctx, t.ts, t.snap).GuardSession(id); err != nil {
		return resultOut{}, err
	}
	if err := c.checkOwned(ctx, t.ts, fmt.Sprintf("session %s (%s)", id, t.session.SessionName), id, levelSession); err != nil {
		return resultOut{}, err
	}
	if err := t.ts.Kill(ctx, id); err != nil {
		return resultOut{}, err
	}
	return resultOut{Result: fmt.Sprintf("Session %s (%s) killed", id, t.session.SessionName)}, nil
}

// ---- kill_server

func killServer(ctx context.Context, c *Call, in *socketOnly) (resultOut, error) {
	ts, err := c.tmuxFor(in.SocketName)
	if err != nil {
		return resultOut{}, err
	}
	if _, err := ts.Identity(ctx); err != nil {
		return resultOut{}, err // not running (or not answering): nothing to kill
	}
	if err := c.callerPlace(ctx, ts, nil).GuardServer(); err != nil {
		return resultOut{}, err
	}
	if err := ts.Kill(ctx, ""); err != nil {
		return resultOut{}, err
	}
	return resultOut{Result: "tmux server killed"}, nil
}
