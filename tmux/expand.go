package tmux

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
