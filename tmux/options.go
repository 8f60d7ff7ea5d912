package tmux

import (
	"sort"
	"strconv"
	"strings"
)

// optionFlags are the flags that point show-options, set-option and show-hooks at a scope
// ("server", "session", "window" or "pane"; "" is tmux's default, the session), globally or
// not; the command's -t target follows them.
func optionFlags(scope string, global bool) []string {
	var flags []string
	switch scope {
	case "server":
		flags = []string{"-s"}
	case "window":
		flags = []string{"-w"}
	case "pane":
		flags = []string{"-p"}
	}
	if global {
		if scope == "pane" {
			flags = []string{"-w"} // tmux keeps global pane options in the window tree
		}
		flags = append([]string{"-g"}, flags...)
	}
	return flags
}

// ValidEnvName reports whether name is an environment variable name tmux and shells take:
// letters, digits and _, not starting with a digit.
func ValidEnvName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '_' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z':
		case i > 0 && '0' <= c && c <= '9':
		default:
			return false
		}
	}
	return true
}

// parseEnvironment reads the lines of show-environment: name=value, -name for a variable
// removed from the environment of new processes (true), and, since tmux prints values raw,
// lines that are no variable, which continue the previous value.
func parseEnvironment(lines []string) map[string]any {
	vars := map[string]any{}
	last := ""
	for _, l := range lines {
		name, value, ok := strings.Cut(l, "=")
		switch {
		case ok && ValidEnvName(name):
			vars[name], last = value, name
		case strings.HasPrefix(l, "-") && ValidEnvName(l[1:]):
			vars[l[1:]], last = true, ""
		case last != "":
			vars[last] = vars[last].(string) + "\n" + l
		}
	}
	return vars
}

// optionTables are the commands that list the names of tmux's server, session and window
// options (pane options live in the window table), in that order: see optionTableOf.
var optionTables = [][]string{{"show-options", "-s"}, {"show-options", "-g"}, {"show-options", "-gw"}}

// optionTableOf returns the table of option name in the output of optionTables: "server",
// "session" or "window" (whose options a pane may also hold), or "" when tmux has no such
// option. tmux keeps a named option in its one table, whatever scope a command asks for.
func optionTableOf(out [][]string, name string) string {
	for i, table := range []string{"server", "session", "window"} {
		if i >= len(out) {
			break
		}
		for _, l := range out[i] {
			n, _, _ := strings.Cut(l, " ")
			n, _, _ = strings.Cut(n, "[")
			if n == name {
				return table
			}
		}
	}
	return ""
}

// globalHooks are the commands that list tmux's global hooks: they live in two trees, the
// session one and the window one.
var globalHooks = [][]string{{"show-hooks", "-g"}, {"show-hooks", "-gw"}}

// Hook is one command of a hook, as show-hooks lists it.
type Hook struct {
	HookName string `json:"hook_name"`
	Index    *int   `json:"index" jsonschema:"position in the hook's command array"`
	Command  string `json:"command"`
}

// parseHooks reads show-hooks output (one list of lines per command): the hooks that are set,
// by name and then index.
func parseHooks(out [][]string) []Hook {
	hooks := []Hook{}
	for _, lines := range out {
		for _, l := range lines {
			key, cmd, ok := strings.Cut(l, " ")
			if !ok {
				continue // a hook that is not set
			}
			h := Hook{HookName: key, Command: cmd}
			if name, idx, ok := strings.Cut(key, "["); ok {
				h.HookName = name
				if n, err := strconv.Atoi(strings.TrimSuffix(idx, "]")); err == nil {
					h.Index = &n
				}
			}
			hooks = append(hooks, h)
		}
	}
	sort.SliceStable(hooks, func(i, j int) bool {
		a, b := hooks[i], hooks[j]
		if a.HookName != b.HookName {
			return a.HookName < b.HookName
		}
		return a.Index != nil && b.Index != nil && *a.Index < *b.Index
	})
	return hooks
}

// hookNames reads the hook names in the output of globalHooks, which names unset hooks too:
// every hook this tmux knows.
func hookNames(out [][]string) map[string]bool {
	names := map[string]bool{}
	for _, lines := range out {
		for _, l := range lines {
			name, _, _ := strings.Cut(l, " ")
			name, _, _ = strings.Cut(name, "[")
			if name != "" {
				names[name] = true
			}
		}
	}
	return names
}
