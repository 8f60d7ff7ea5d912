package tmux

import "strings"

// A pane's user options (names starting with @) hold what a caller keeps with a pane across
// server processes. Their values come back as they were set: tmux 3.4's command parser stores
// a "$" that could start a variable name ("$HOME", "${") as "\$", even in single quotes (3.3
// and 3.7 store it as given), which PaneOption undoes.

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
	if err := checkPanes(o.Pane); err != nil {
		return nil, err
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
		o.Value = unescapeDollars(o.Value)
	}
	return nil
}

// unescapeDollars removes the "\" tmux 3.4 stores before each "$" followed by a letter, "_"
// or "{" (each such "$" has one).
func unescapeDollars(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+2 < len(s) && s[i+1] == '$' && startsVariable(s[i+2]) {
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func startsVariable(c byte) bool {
	return c == '_' || c == '{' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func (*PaneOption) mutates() bool { return false }

// SetPaneOption sets a user option of a pane to Value.
type SetPaneOption struct {
	Pane, Name, Value string
}

func (o *SetPaneOption) commands() ([][]string, error) {
	if err := checkPanes(o.Pane); err != nil {
		return nil, err
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
	if err := checkPanes(o.Pane); err != nil {
		return nil, err
	}
	return [][]string{{"set-option", "-p", "-u", "-t", o.Pane, o.Name}}, nil
}

func (*UnsetPaneOption) read([][]string) error { return nil }
func (*UnsetPaneOption) mutates() bool         { return true }
