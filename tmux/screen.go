package tmux

import (
	"fmt"
	"strconv"
	"strings"
)

// Screen is a pane's screen state, read with display-message: its size, cursor, history and
// modes. Set Pane (a pane id, %N, or a window id, @N, for its active pane) and run it; the
// other fields are its result (Pane then the pane's id).
type Screen struct {
	Pane string

	Width, Height    int
	CursorX, CursorY int
	CursorVisible    bool
	AlternateOn      bool // a full-screen program (vim, less) shows its alternate screen
	InMode           bool // copy or view mode
	Mode             string
	ScrollPosition   int  // lines scrolled back in copy mode
	Scrolled         bool // ScrollPosition is set (copy and view mode)
	HistorySize      int
	HistoryLimit     int
	Dead             bool
	Command          string // pane_current_command
	TTY              string // the pane's terminal device (pane_tty)
}

// pane_current_command is printed once: a /proc lookup in tmux, computed again for a length.
var screenFields = printedOnce([]field{
	{name: "pane_id"}, {name: "pane_width"}, {name: "pane_height"},
	{name: "cursor_x"}, {name: "cursor_y"}, {name: "cursor_flag"},
	{name: "alternate_on"}, {name: "pane_in_mode"}, {name: "pane_mode"},
	{name: "scroll_position"}, {name: "history_size"}, {name: "history_limit"},
	{name: "pane_dead"}, {name: "pane_tty", text: true}, {name: "pane_current_command", text: true},
}, "pane_current_command")

var screenFormat = format(screenFields)

func (o *Screen) commands() ([][]string, error) {
	if !validPaneTarget(o.Pane) {
		return nil, invalidPane(o.Pane)
	}
	return [][]string{{"display-message", "-p", "-t", o.Pane, screenFormat}}, nil
}

func (o *Screen) read(out [][]string) error {
	if len(out[0]) != 1 || !strings.HasPrefix(out[0][0], o.Pane+sep) && !(ValidWindowID(o.Pane) && strings.HasPrefix(out[0][0], "%")) {
		return notFound("pane", o.Pane)
	}
	r, err := parseRow(screenFields, out[0][0])
	if err != nil {
		return err
	}
	*o = Screen{
		Pane: r.str("pane_id"), Width: r.int("pane_width"), Height: r.int("pane_height"),
		CursorX: r.int("cursor_x"), CursorY: r.int("cursor_y"), CursorVisible: r.bool("cursor_flag"),
		AlternateOn: r.bool("alternate_on"), InMode: r.bool("pane_in_mode"), Mode: r.str("pane_mode"),
		ScrollPosition: r.int("scroll_position"), Scrolled: r.str("scroll_position") != "", HistorySize: r.int("history_size"),
		HistoryLimit: r.int("history_limit"), Dead: r.bool("pane_dead"), Command: r.str("pane_current_command"),
		TTY: r.str("pane_tty"),
	}
	return nil
}

func (*Screen) mutates() bool { return false }

// Capture reads the text of a pane (capture-pane -p). Set Pane (a pane id, or a window id for
// its active pane) and the options; Lines is its result, one string per row, top to bottom.
type Capture struct {
	Pane string
	// Start and End are rows: 0 is the top of the visible screen, negative rows are history
	// (-HistorySize the oldest); nil is the top of the screen and the bottom of the screen.
	Start, End *int
	Join       bool // a line wrapped by the terminal is one line (-J)
	Escapes    bool // keep colours and attributes as escape sequences (-e)
	Trailing   bool // keep trailing blanks (-N): a bar of background colour to the end of a row

	Lines []string
}

func (o *Capture) commands() ([][]string, error) {
	if !validPaneTarget(o.Pane) {
		return nil, invalidPane(o.Pane)
	}
	args := []string{"capture-pane", "-p", "-t", o.Pane}
	for _, f := range []struct {
		on   bool
		flag string
	}{{o.Join, "-J"}, {o.Escapes, "-e"}, {o.Trailing, "-N"}} {
		if f.on {
			args = append(args, f.flag)
		}
	}
	if o.Start != nil {
		args = append(args, "-S", strconv.Itoa(*o.Start))
	}
	if o.End != nil {
		args = append(args, "-E", strconv.Itoa(*o.End))
	}
	return [][]string{args}, nil
}

func (o *Capture) read(out [][]string) error {
	o.Lines = out[0]
	return nil
}

func (*Capture) mutates() bool { return false }

// Text is the capture as one string, rows joined by newlines.
func (o *Capture) Text() string { return strings.Join(o.Lines, "\n") }

// validPaneTarget reports whether id names a pane: its own id, or its window's (tmux takes the
// window's active pane).
func validPaneTarget(id string) bool { return ValidPaneID(id) || ValidWindowID(id) }

// checkPanes refuses an op whose pane argument is no pane id (%N) before tmux sees it.
func checkPanes(ids ...string) error {
	for _, id := range ids {
		if !ValidPaneID(id) {
			return invalidPane(id)
		}
	}
	return nil
}

func invalidPane(id string) error {
	return fmt.Errorf("tmux: %q is not a pane id (%%N)", id)
}

func notFound(kind, id string) error {
	return &CommandError{Command: []string{"display-message"}, Message: "can't find " + kind + ": " + id}
}
