package tmux

import (
	"fmt"
	"strconv"

	tmuxformat "github.com/tmux-mcp/tmux-mcp/tmux/format"
)

// Operations that arrange panes and change their state. Each takes a pane id (%N) where it
// names a pane; none reads anything back: read the pane again (SnapshotOf) for its new state.

// SelectPane makes a pane active: Pane itself, or with Direction (up, down, left or right)
// its neighbour that way, or with Direction "last" the previously active pane of Pane's window.
type SelectPane struct {
	Pane      string
	Direction string
}

func (o *SelectPane) commands() ([][]string, error) {
	if err := checkPanes(o.Pane); err != nil {
		return nil, err
	}
	flag, ok := map[string]string{"": "", "up": "-U", "down": "-D", "left": "-L", "right": "-R", "last": "-l"}[o.Direction]
	if !ok {
		return nil, fmt.Errorf("tmux: %q is no direction to select a pane in", o.Direction)
	}
	if flag == "" {
		return [][]string{{"select-pane", "-t", o.Pane}}, nil
	}
	return [][]string{{"select-pane", flag, "-t", o.Pane}}, nil
}

func (*SelectPane) read([][]string) error { return nil }
func (*SelectPane) mutates() bool         { return true }

// SwapPanes swaps two panes, leaving the active pane where it was.
type SwapPanes struct{ Source, Target string }

func (o *SwapPanes) commands() ([][]string, error) {
	if err := checkPanes(o.Source, o.Target); err != nil {
		return nil, err
	}
	return [][]string{{"swap-pane", "-d", "-s", o.Source, "-t", o.Target}}, nil
}

func (*SwapPanes) read([][]string) error { return nil }
func (*SwapPanes) mutates() bool         { return true }

// ToggleZoom zooms a pane to fill its window, or unzooms its window when it is zoomed.
type ToggleZoom struct{ Pane string }

func (o *ToggleZoom) commands() ([][]string, error) {
	if err := checkPanes(o.Pane); err != nil {
		return nil, err
	}
	return [][]string{{"resize-pane", "-Z", "-t", o.Pane}}, nil
}

func (*ToggleZoom) read([][]string) error { return nil }
func (*ToggleZoom) mutates() bool         { return true }

// ResizePane sets a pane's width and/or height in cells (nil leaves one as it is).
type ResizePane struct {
	Pane          string
	Width, Height *int
}

func (o *ResizePane) commands() ([][]string, error) {
	if err := checkPanes(o.Pane); err != nil {
		return nil, err
	}
	return [][]string{appendSize([]string{"resize-pane", "-t", o.Pane}, o.Width, o.Height)}, nil
}

func (*ResizePane) read([][]string) error { return nil }
func (*ResizePane) mutates() bool         { return true }

// SetPaneTitle sets a pane's title, as it is (never expanded as a format).
type SetPaneTitle struct{ Pane, Title string }

func (o *SetPaneTitle) commands() ([][]string, error) {
	if err := checkPanes(o.Pane); err != nil {
		return nil, err
	}
	return [][]string{{"select-pane", "-t", o.Pane, "-T", tmuxformat.Escape(o.Title)}}, nil
}

func (*SetPaneTitle) read([][]string) error { return nil }
func (*SetPaneTitle) mutates() bool         { return true }

// ClearPane clears a pane's screen and its history, in one command list: nothing the program
// prints can land between the two.
type ClearPane struct{ Pane string }

func (o *ClearPane) commands() ([][]string, error) {
	if err := checkPanes(o.Pane); err != nil {
		return nil, err
	}
	return [][]string{{"send-keys", "-R", "-t", o.Pane}, {"clear-history", "-t", o.Pane}}, nil
}

func (*ClearPane) read([][]string) error { return nil }
func (*ClearPane) mutates() bool         { return true }

// CopyMode puts a pane in copy mode, scrolled up ScrollUp lines (0: not scrolled); with Exit,
// it leaves copy mode instead.
type CopyMode struct {
	Pane     string
	ScrollUp int
	Exit     bool
}

func (o *CopyMode) commands() ([][]string, error) {
	if err := checkPanes(o.Pane); err != nil {
		return nil, err
	}
	if o.Exit {
		return [][]string{{"send-keys", "-t", o.Pane, "-X", "cancel"}}, nil
	}
	cmds := [][]string{{"copy-mode", "-t", o.Pane}}
	if o.ScrollUp > 0 {
		cmds = append(cmds, []string{"send-keys", "-t", o.Pane, "-X", "-N", strconv.Itoa(o.ScrollUp), "scroll-up"})
	}
	return cmds, nil
}

func (*CopyMode) read([][]string) error { return nil }
func (*CopyMode) mutates() bool         { return true }

// RespawnPane starts a new program in a pane: Argv (empty: the pane's default command), in
// Dir when set, with Env (NAME=value) added to its environment; Kill ends the program that
// runs there first (else the pane must be dead).
type RespawnPane struct {
	Pane string
	Kill bool
	Dir  *string
	Env  []string
	Argv []string
}

func (o *RespawnPane) commands() ([][]string, error) {
	if err := checkPanes(o.Pane); err != nil {
		return nil, err
	}
	args := []string{"respawn-pane", "-t", o.Pane}
	if o.Kill {
		args = append(args, "-k")
	}
	return [][]string{append(appendSpawn(args, o.Dir, o.Env), o.Argv...)}, nil
}

func (*RespawnPane) read([][]string) error { return nil }
func (*RespawnPane) mutates() bool         { return true }

// PipePane pipes a pane's output to a shell command (tmux runs it with /bin/sh -c, after
// expanding it as a format and through strftime: the caller escapes it), or, with Command
// empty, stops the pane's pipe.
type PipePane struct{ Pane, Command string }

func (o *PipePane) commands() ([][]string, error) {
	if err := checkPanes(o.Pane); err != nil {
		return nil, err
	}
	if o.Command == "" {
		return [][]string{{"pipe-pane", "-t", o.Pane}}, nil
	}
	return [][]string{{"pipe-pane", "-t", o.Pane, o.Command}}, nil
}

func (*PipePane) read([][]string) error { return nil }
func (*PipePane) mutates() bool         { return true }

// appendSize adds -x and -y for the sizes that are set.
func appendSize(args []string, width, height *int) []string {
	if width != nil {
		args = append(args, "-x", strconv.Itoa(*width))
	}
	if height != nil {
		args = append(args, "-y", strconv.Itoa(*height))
	}
	return args
}

// appendSpawn adds the start directory (as it is, never expanded) and the environment of a
// new process.
func appendSpawn(args []string, dir *string, env []string) []string {
	if dir != nil {
		args = append(args, "-c", tmuxformat.Escape(*dir))
	}
	for _, kv := range env {
		args = append(args, "-e", kv)
	}
	return args
}
