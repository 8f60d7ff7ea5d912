package tmux

import "strings"

// A pane's user options (names starting with @) hold what a caller keeps with a pane across
// server processes. Their values come back as they were set: tmux 3.4's command parser stores
// a "$" of a quoted argument as "\$" (3.3 and 3.7 store it as given), which PaneOption undoes.

// PaneOption reads a user option of a pane. Set Pane and Name; Value is its value and Set
// whether the pane has it.
type PaneOption struct {
	Pane, Name string

	Value string
	Set   bool
}

// dollarProbe is expanded in the same command list as the option is read: it comes back as
// "\$" from a tmux whose parser stores "$" so.
const dollarProbe = "x$y"

func (o *PaneOption) commands() ([][]string, error) {
	if !ValidPaneID(o.Pane) {
		return nil, invalidPane(o.Pane)
	}
	return [][]string{
		{"show-options", "-p", "-q", "-v", "-t", o.Pane, o.Name},
		{"display-message", "-p", "-t", o.Pane, dollarProbe},
	}, nil
}

func (o *PaneOption) read(out [][]string) error {
	o.Value, o.Set = "", false
	if len(out[0]) == 0 {
		return nil
	}
	o.Value, o.Set = strings.Join(out[0], "\n"), true
	if len(out) > 1 && len(out[1]) == 1 && out[1][0] != dollarProbe {
		// Every "$" was stored with a "\" before it: remove that one.
		o.Value = strings.ReplaceAll(o.Value, `\$`, "$")
	}
	return nil
}

func (*PaneOption) mutates() bool { return false }

// SetPaneOption sets a user option of a pane to Value.
type SetPaneOption struct {
	Pane, Name, Value string
}

func (o *SetPaneOption) commands() ([][]string, error) {
	if !ValidPaneID(o.Pane) {
		return nil, invalidPane(o.Pane)
	}
	return [][]string{{"set-option", "-p", "-t", o.Pane, o.Name, o.Value}}, nil
}

func (*SetPaneOption) read([][]string) error { return nil }
func (*SetPaneOption) mutates() bool         { return true }

// UnsetPaneOption removes a user option from a pane.
type UnsetPaneOption struct {
	Pane, Name string
}

func (o *UnsetPaneOption) commands() ([][]string, error) {
	if !ValidPaneID(o.Pane) {
		return nil, invalidPane(o.Pane)
	}
	return [][]string{{"set-option", "-p", "-u", "-t", o.Pane, o.Name}}, nil
}

func (*UnsetPaneOption) read([][]string) error { return nil }
func (*UnsetPaneOption) mutates() bool         { return true }
