package tmux

import (
	"context"
	"fmt"
	"strings"
	"time"

	tmuxformat "github.com/tmux-mcp/tmux-mcp/tmux/format"
)

// Spawn is what a new pane starts: Argv (empty: tmux's default command), in Dir when set (as
// it is, never expanded), with Env (NAME=value) added to its environment.
type Spawn struct {
	Dir  *string
	Env  []string
	Argv []string
}

// NewSession makes a detached session; Name and WindowName are taken as they are. Its results
// are the new session's id and the ids of its one window and pane. Run it with Server.Create, which may
// start the tmux server.
type NewSession struct {
	Name, WindowName *string
	Width, Height    *int
	Spawn

	SessionID, WindowID, PaneID string
}

// NewWindow makes a window in Session: at the next free index, or, with After or Before,
// next to the window Beside. Detached unless Attach. Its results are the window's id and its
// pane's.
type NewWindow struct {
	Session       string // session id ($N)
	Beside        string // window id (@N), with After or Before
	After, Before bool
	Attach        bool
	Name          *string
	Spawn

	WindowID, PaneID string
}

// SplitWindow splits Pane into a new detached pane: below it, or Direction above, left or
// right; Size is tmux's -l (cells, or a percentage "30%"), "" for half. Its result is the new
// pane's id.
type SplitWindow struct {
	Pane      string
	Direction string
	Size      string
	Spawn

	PaneID string
}

// newIDs prints the ids of what a new-* command made.
const newIDs = "#{session_id}" + sep + "#{window_id}" + sep + "#{pane_id}"

func (o *NewSession) commands() ([][]string, error) {
	args := []string{"new-session", "-d", "-P", "-F", newIDs}
	args = appendName(args, "-s", o.Name)
	args = appendName(args, "-n", o.WindowName)
	args = appendSpawn(args, o.Dir, nil)
	args = appendSize(args, o.Width, o.Height)
	return [][]string{append(appendSpawn(args, nil, o.Env), o.Argv...)}, nil
}

// Create runs new-session through a tmux process of its own, not over control mode: it may
// have to start the server. A server whose last session was just killed exits a moment
// later; a client that reaches it meanwhile is told "server exited unexpectedly" and nothing
// was made (the server is gone with whatever it held), so Create tries again, for up to
// exitingWait, and the next try starts a new server.
func (s *Server) Create(ctx context.Context, o *NewSession) error {
	cmds, err := o.commands()
	if err != nil {
		return err
	}
	out, err := s.Spawn(ctx, nil, cmds[0]...)
	for start := time.Now(); err != nil && serverExited(err) && time.Since(start) < exitingWait; {
		select {
		case <-ctx.Done():
			return err
		case <-time.After(10 * time.Millisecond):
		}
		out, err = s.Spawn(ctx, nil, cmds[0]...)
	}
	if err != nil {
		return err
	}
	s.mutated()
	return o.read([][]string{out})
}

// exitingWait bounds how long Create waits for an exiting server to be gone.
const exitingWait = 3 * time.Second

func (o *NewSession) read(out [][]string) (err error) {
	o.SessionID, o.WindowID, o.PaneID, err = readIDs(out)
	return err
}

func (*NewSession) mutates() bool { return true }

func (o *NewWindow) commands() ([][]string, error) {
	args := []string{"new-window", "-P", "-F", newIDs}
	if !o.Attach {
		args = append(args, "-d")
	}
	target := o.Session + ":"
	switch {
	case o.After:
		args, target = append(args, "-a"), o.Beside
	case o.Before:
		args, target = append(args, "-b"), o.Beside
	}
	args = append(args, "-t", target)
	args = appendName(args, "-n", o.Name)
	return [][]string{append(appendSpawn(args, o.Dir, o.Env), o.Argv...)}, nil
}

func (o *NewWindow) read(out [][]string) (err error) {
	_, o.WindowID, o.PaneID, err = readIDs(out)
	return err
}

func (*NewWindow) mutates() bool { return true }

func (o *SplitWindow) commands() ([][]string, error) {
	if err := checkPanes(o.Pane); err != nil {
		return nil, err
	}
	args := []string{"split-window", "-d", "-P", "-F", newIDs, "-t", o.Pane}
	flags, ok := map[string][]string{"": {"-v"}, "below": {"-v"}, "above": {"-v", "-b"}, "left": {"-h", "-b"}, "right": {"-h"}}[o.Direction]
	if !ok {
		return nil, fmt.Errorf("tmux: %q is no direction to split a pane in", o.Direction)
	}
	args = append(args, flags...)
	if o.Size != "" {
		args = append(args, "-l", o.Size)
	}
	return [][]string{append(appendSpawn(args, o.Dir, o.Env), o.Argv...)}, nil
}

func (o *SplitWindow) read(out [][]string) (err error) {
	_, _, o.PaneID, err = readIDs(out)
	return err
}

func (*SplitWindow) mutates() bool { return true }

// readIDs reads the line newIDs printed.
func readIDs(out [][]string) (session, window, pane string, err error) {
	if len(out) == 0 || len(out[0]) == 0 {
		return "", "", "", fmt.Errorf("tmux printed no id of what it made")
	}
	f := strings.Split(out[0][0], sep)
	if len(f) != 3 {
		return "", "", "", fmt.Errorf("tmux printed %q for the ids of what it made", out[0][0])
	}
	return f[0], f[1], f[2], nil
}

func appendName(args []string, flag string, name *string) []string {
	if name == nil {
		return args
	}
	return append(args, flag, tmuxformat.Escape(*name))
}
