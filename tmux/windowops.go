package tmux

import (
	"context"
	"fmt"

	tmuxformat "github.com/tmux-mcp/tmux-mcp/tmux/format"
)

// Operations on sessions and windows. A window is named by its session and its id (Window:
// "$S:@W"), so that a window linked into several sessions is the one in the session meant.

// WindowIn names window (@N) as linked in session ($N).
func WindowIn(session, window string) string { return session + ":" + window }

// RenameSession renames a session (an id, $N) to Name, taken as it is.
type RenameSession struct{ Session, Name string }

func (o *RenameSession) commands() ([][]string, error) {
	if !ValidSessionID(o.Session) {
		return nil, fmt.Errorf("tmux: %q is not a session id ($N)", o.Session)
	}
	return [][]string{{"rename-session", "-t", o.Session, tmuxformat.Escape(o.Name)}}, nil
}

func (*RenameSession) read([][]string) error { return nil }
func (*RenameSession) mutates() bool         { return true }

// RenameWindow renames a window (WindowIn) to Name, taken as it is.
type RenameWindow struct{ Window, Name string }

func (o *RenameWindow) commands() ([][]string, error) {
	return [][]string{{"rename-window", "-t", o.Window, tmuxformat.Escape(o.Name)}}, nil
}

func (*RenameWindow) read([][]string) error { return nil }
func (*RenameWindow) mutates() bool         { return true }

// SelectWindow makes a window (WindowIn) its session's current window; or, with Direction
// next, previous or last, the window that way from Session's current one.
type SelectWindow struct {
	Window    string
	Session   string
	Direction string
}

func (o *SelectWindow) commands() ([][]string, error) {
	if o.Direction == "" {
		return [][]string{{"select-window", "-t", o.Window}}, nil
	}
	cmd, ok := map[string]string{"next": "next-window", "previous": "previous-window", "last": "last-window"}[o.Direction]
	if !ok {
		return nil, fmt.Errorf("tmux: %q is no direction to select a window in", o.Direction)
	}
	return [][]string{{cmd, "-t", o.Session}}, nil
}

func (*SelectWindow) read([][]string) error { return nil }
func (*SelectWindow) mutates() bool         { return true }

// SelectLayout arranges a window's panes (WindowIn) by a built-in layout's name or a layout
// string (window_layout).
type SelectLayout struct{ Window, Layout string }

func (o *SelectLayout) commands() ([][]string, error) {
	return [][]string{{"select-layout", "-t", o.Window, o.Layout}}, nil
}

func (*SelectLayout) read([][]string) error { return nil }
func (*SelectLayout) mutates() bool         { return true }

// ResizeWindow sets a window's width and/or height (nil leaves one as it is).
type ResizeWindow struct {
	Window        string
	Width, Height *int
}

func (o *ResizeWindow) commands() ([][]string, error) {
	return [][]string{appendSize([]string{"resize-window", "-t", o.Window}, o.Width, o.Height)}, nil
}

func (*ResizeWindow) read([][]string) error { return nil }
func (*ResizeWindow) mutates() bool         { return true }

// MoveWindow moves a window (WindowIn) to session Destination ($N) at Index ("" for the next
// free one); Detached leaves the destination's current window as it is.
type MoveWindow struct {
	Window, Destination, Index string
	Detached                   bool
}

func (o *MoveWindow) commands() ([][]string, error) {
	args := []string{"move-window"}
	if o.Detached {
		args = append(args, "-d")
	}
	return [][]string{append(args, "-s", o.Window, "-t", o.Destination+":"+o.Index)}, nil
}

func (*MoveWindow) read([][]string) error { return nil }
func (*MoveWindow) mutates() bool         { return true }

// Kill ends a pane (%N), a window (@N) or a session ($N), or, with target "", the whole
// server. It runs in a tmux process of its own: a kill may end the session the command
// connection is attached to (or the server), before it could answer.
func (s *Server) Kill(ctx context.Context, target string) error {
	var args []string
	switch {
	case target == "":
		args = []string{"kill-server"}
	case ValidPaneID(target):
		args = []string{"kill-pane", "-t", target}
	case ValidWindowID(target):
		args = []string{"kill-window", "-t", target}
	case ValidSessionID(target):
		args = []string{"kill-session", "-t", target}
	default:
		return fmt.Errorf("tmux: %q is not a pane, window or session id", target)
	}
	_, err := s.Spawn(ctx, nil, args...)
	return err
}
