package tmux

import "strings"

// Expand expands a caller's format in a pane's context (display-message -p). Set Pane (a pane
// id, or a window id for its active pane) and Format; Lines is what tmux printed.
type Expand struct {
	Pane, Format string

	Lines []string
}

func (o *Expand) commands() ([][]string, error) {
	if !validPaneTarget(o.Pane) {
		return nil, invalidPane(o.Pane)
	}
	// "--": a format that starts with "-" is a format, not a flag.
	return [][]string{{"display-message", "-p", "-t", o.Pane, "--", o.Format}}, nil
}

func (o *Expand) read(out [][]string) error {
	o.Lines = out[0]
	return nil
}

func (*Expand) mutates() bool { return false }

// WindowName reads the name of the window of Pane (a pane id): a program's name sequence may
// have set it (allow-rename). Name is its result.
type WindowName struct {
	Pane string

	Name string
}

func (o *WindowName) commands() ([][]string, error) {
	if err := checkPanes(o.Pane); err != nil {
		return nil, err
	}
	return [][]string{{"display-message", "-p", "-t", o.Pane, "#{window_name}"}}, nil
}

func (o *WindowName) read(out [][]string) error {
	o.Name = strings.Join(out[0], "\n")
	return nil
}

func (*WindowName) mutates() bool { return false }
