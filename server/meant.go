package server

import (
	"slices"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/internal/hint"
)

// toolSynonyms maps names a model reaches for first (tmux's own commands, other tmux MCP
// servers' tools, plain words), spelled as normName spells them, to the tool of the catalogue
// that does that. Edit distance alone misleads there: split_pane is nearest to select_pane.
var toolSynonyms = map[string]string{
	"splitpane": "split_window", "split": "split_window", "newpane": "split_window", "createpane": "split_window",
	"newwindow": "create_window", "newtab": "create_window",
	"newsession": "create_session",
	"execute":    "run_shell_command", "executecommand": "run_shell_command", "exec": "run_shell_command",
	"execcommand": "run_shell_command", "run": "run_shell_command", "runshell": "run_shell_command",
	"shell": "run_shell_command", "runcmd": "run_shell_command",
	"getcommandresult": "wait_for_run", "commandresult": "wait_for_run", "waitforcommand": "wait_for_run",
	"readpane": "capture_pane", "getpanecontent": "capture_pane", "panecontent": "capture_pane",
	"readoutput": "capture_pane", "getoutput": "capture_pane", "captureoutput": "capture_pane",
	"readscreen": "capture_pane", "getscreen": "capture_pane", "capture": "capture_pane", "read": "capture_pane",
	"sendtext": "send_keys", "typetext": "send_keys", "type": "send_keys", "sendinput": "send_keys",
	"send": "send_keys", "sendkey": "send_keys", "presskey": "send_keys", "presskeys": "send_keys", "keys": "send_keys",
	"paste": "paste_text", "pastebuffer": "paste_buffer",
	"closepane": "kill_pane", "removepane": "kill_pane", "closewindow": "kill_window",
	"closesession": "kill_session", "endsession": "kill_session",
	"waitforoutput": "wait_for_text", "waitfor": "wait_for_text", "waitforpattern": "wait_for_text",
	"waittext": "wait_for_text", "expect": "wait_for_text",
	"getpane": "get_pane_info", "paneinfo": "get_pane_info", "getwindow": "get_window_info",
	"getsession": "get_session_info", "findsession": "list_sessions",
	"clear": "clear_pane", "clearscreen": "clear_pane", "resize": "resize_pane",
	"renamepane": "set_pane_title", "screenshot": "screenshot_pane", "stopserver": "kill_server", "killtmux": "kill_server",
}

// normName is a tool's name as a model may spell it, reduced to what identifies it: lower
// case, without separators, without a "tmux" prefix (tmux_send_keys, tmux.capture-pane).
func normName(s string) string {
	s = strings.NewReplacer("_", "", "-", "", " ", "", ".", "", "/", "").Replace(strings.ToLower(s))
	if t := strings.TrimPrefix(s, "tmux"); t != "" {
		s = t
	}
	return s
}

// argSynonyms maps argument names a model reaches for, spelled as normName spells them, to
// the arguments that may mean them, the first a tool takes winning.
var argSynonyms = map[string][]string{
	"query": {"pattern", "patterns"}, "search": {"pattern", "patterns"}, "regexp": {"pattern", "patterns"},
	"text": {"keys", "patterns", "content"}, "input": {"keys"}, "cmd": {"command"},
	"message": {"format_string"}, "target": {"pane_id", "paneId", "window_id", "session_name"},
	"pane": {"pane_id", "paneId"}, "lines": {"max_lines", "maxLines"},
	"vertical": {"direction"}, "horizontal": {"direction"}, "orientation": {"direction"},
}

// meantArg returns the argument of args an unknown name most likely meant, or "": the same
// name in another spelling or a few edits away (hint.Closest), a synonym, or the one argument
// whose name begins or ends with it (format for format_string).
func meantArg(name, tool string, args []string) string {
	if c := hint.Closest(name, args); c != "" {
		return c
	}
	n := normName(name)
	if n == "name" {
		// The name of what the tool is about: a rename's new name, create_window's window.
		_, noun, _ := strings.Cut(tool, "_")
		for _, a := range []string{"new_name", noun + "_name"} {
			if slices.Contains(args, a) {
				return a
			}
		}
	}
	for _, s := range argSynonyms[n] {
		if slices.Contains(args, s) {
			return s
		}
	}
	var holds []string
	for _, a := range args {
		if a := normName(a); len(n) >= 4 && (strings.HasPrefix(a, n) || strings.HasSuffix(a, n)) {
			holds = append(holds, a)
		}
	}
	if len(holds) == 1 {
		for _, a := range args {
			if normName(a) == holds[0] {
				return a
			}
		}
	}
	return ""
}

// meantTool returns the catalogue's tool a name not in it most likely meant, or "": the same
// name in another spelling, a synonym, then the nearest name within a few edits.
func meantTool(name string, catalogue []string) string {
	n := normName(name)
	for _, c := range catalogue {
		if normName(c) == n {
			return c
		}
	}
	if t, ok := toolSynonyms[n]; ok {
		return t
	}
	return hint.Closest(n, catalogue)
}
