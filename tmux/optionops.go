package tmux

import (
	"fmt"
	"strings"
)

// OptionScope says whose options an option op reads or sets: Kind is "server", "session",
// "window" or "pane" ("" is tmux's default, the session); Global the global value of that
// kind; else Target, the id of the session, window or pane ("" for the server).
type OptionScope struct {
	Kind   string
	Global bool
	Target string
}

// args are the flags of show-options, set-option and show-hooks for the scope.
func (sc OptionScope) args() []string {
	flags := optionFlags(sc.Kind, sc.Global)
	if sc.Target != "" && !sc.Global {
		flags = append(flags, "-t", sc.Target)
	}
	return flags
}

// ShowOption reads an option's value: Value holds its lines (an array option: one element
// a line). Effective reads the value in force, inherited or not (-A).
type ShowOption struct {
	Scope     OptionScope
	Name      string
	Effective bool

	Value []string
}

func (o *ShowOption) commands() ([][]string, error) {
	args := []string{"show-options", "-v"}
	if o.Effective {
		args = append(args, "-A")
	}
	return [][]string{append(append(args, o.Scope.args()...), o.Name)}, nil
}

func (o *ShowOption) read(out [][]string) error { o.Value = out[0]; return nil }
func (*ShowOption) mutates() bool               { return false }

// SetOption sets an option to a value, as it is.
type SetOption struct {
	Scope       OptionScope
	Name, Value string
}

func (o *SetOption) commands() ([][]string, error) {
	return [][]string{append(append([]string{"set-option"}, o.Scope.args()...), o.Name, o.Value)}, nil
}

func (*SetOption) read([][]string) error { return nil }
func (*SetOption) mutates() bool         { return true }

// OptionTable finds the table tmux keeps an option in: Table is "server", "session" or
// "window" (whose options a pane may also hold), or "" when tmux has no such option. tmux
// keeps a named option in its one table, whatever scope a command asks for.
type OptionTable struct {
	Name string // an option's name, without an array index

	Table string
}

func (o *OptionTable) commands() ([][]string, error) { return optionTables, nil }
func (o *OptionTable) read(out [][]string) error {
	o.Table = optionTableOf(out, o.Name)
	return nil
}
func (*OptionTable) mutates() bool { return false }

// DefaultShell reads what new panes run: tmux's global default-command (Command, "" when
// unset) and default-shell (Shell).
type DefaultShell struct{ Command, Shell string }

func (o *DefaultShell) commands() ([][]string, error) {
	return [][]string{{"show-options", "-gqv", "default-command"}, {"show-options", "-gqv", "default-shell"}}, nil
}

func (o *DefaultShell) read(out [][]string) error {
	if len(out[0]) > 0 {
		o.Command = strings.TrimSpace(out[0][0])
	}
	if len(out[1]) > 0 {
		o.Shell = out[1][0]
	}
	return nil
}

func (*DefaultShell) mutates() bool { return false }

// ShowEnvironment reads a session's environment (Session, an id), or the global one (""):
// Vars maps a name to its value, or to true for a variable removed from the environment of
// new processes.
type ShowEnvironment struct {
	Session string

	Vars map[string]any
}

func (o *ShowEnvironment) commands() ([][]string, error) {
	return [][]string{append([]string{"show-environment"}, envScope(o.Session)...)}, nil
}

func (o *ShowEnvironment) read(out [][]string) error {
	o.Vars = parseEnvironment(out[0])
	return nil
}

func (*ShowEnvironment) mutates() bool { return false }

// SetEnvironment sets a variable in a session's environment (Session, an id) or the global
// one ("").
type SetEnvironment struct{ Session, Name, Value string }

func (o *SetEnvironment) commands() ([][]string, error) {
	return [][]string{append(append([]string{"set-environment"}, envScope(o.Session)...), o.Name, o.Value)}, nil
}

func (*SetEnvironment) read([][]string) error { return nil }
func (*SetEnvironment) mutates() bool         { return true }

func envScope(session string) []string {
	if session == "" {
		return []string{"-g"}
	}
	return []string{"-t", session}
}

// ShowHooks reads the hooks that are set in Scope, or, with Scope nil, the global ones (tmux
// splits them between its session and window trees): Hooks, by name and then index.
type ShowHooks struct {
	Scope *OptionScope

	Hooks []Hook
}

func (o *ShowHooks) commands() ([][]string, error) {
	if o.Scope == nil {
		return globalHooks, nil
	}
	return [][]string{append([]string{"show-hooks"}, o.Scope.args()...)}, nil
}

func (o *ShowHooks) read(out [][]string) error {
	o.Hooks = parseHooks(out)
	return nil
}

func (*ShowHooks) mutates() bool { return false }

// HookNames reads the name of every hook this tmux knows (set or not).
type HookNames struct{ Names map[string]bool }

func (o *HookNames) commands() ([][]string, error) { return globalHooks, nil }
func (o *HookNames) read(out [][]string) error {
	o.Names = hookNames(out)
	return nil
}
func (*HookNames) mutates() bool { return false }

// PaneOptions reads the named options (user options, @name) of every pane of the server, as
// each pane sees them (inherited from its window or session, or its own): Panes, in tmux's
// order.
type PaneOptions struct {
	Names []string

	Panes []PaneValues
}

// PaneValues are a pane's values of PaneOptions' Names, in their order ("" for one unset).
type PaneValues struct {
	Pane   string
	Values []string
}

func (o *PaneOptions) fields() []field {
	fields := []field{{name: "pane_id"}}
	for _, n := range o.Names {
		fields = append(fields, field{name: n, text: true})
	}
	return fields
}

func (o *PaneOptions) commands() ([][]string, error) {
	for _, n := range o.Names {
		if !strings.HasPrefix(n, "@") || strings.ContainsAny(n, "#{},}") {
			return nil, fmt.Errorf("tmux: %q is not a user option's name", n)
		}
	}
	return [][]string{{"list-panes", "-a", "-F", format(o.fields())}}, nil
}

func (o *PaneOptions) read(out [][]string) error {
	rows, err := parseRows(o.fields(), out[0])
	if err != nil {
		return err
	}
	o.Panes = make([]PaneValues, len(rows))
	for i, r := range rows {
		o.Panes[i] = PaneValues{Pane: r.vals[0], Values: r.vals[1:]}
	}
	return nil
}

func (*PaneOptions) mutates() bool { return false }
