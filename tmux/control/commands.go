package control

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnsupported is returned (wrapped) by Conn.Do and Conn.Send for commands
// that would break a control connection: commands that run further commands
// as their own blocks (if-shell, source-file, run-shell -C: the extra blocks
// cannot be told apart from the replies to later requests) and commands that
// wait for an interactive answer on the control client itself
// (confirm-before, command-prompt without -b, display-menu, display-popup: they stall
// every later request). Run them through a spawned tmux process instead.
var ErrUnsupported = errors.New("tmux command not supported over a control connection")

// tmuxCommands is tmux 3.3a's command table (name, alias), needed to resolve
// abbreviations exactly as tmux does: an exact alias or name wins, otherwise
// a unique prefix of a name.
var tmuxCommands = [...][2]string{
	{"attach-session", "attach"},
	{"bind-key", "bind"},
	{"break-pane", "breakp"},
	{"capture-pane", "capturep"},
	{"choose-buffer", ""},
	{"choose-client", ""},
	{"choose-tree", ""},
	{"clear-history", "clearhist"},
	{"clear-prompt-history", "clearphist"},
	{"clock-mode", ""},
	{"command-prompt", ""},
	{"confirm-before", "confirm"},
	{"copy-mode", ""},
	{"customize-mode", ""},
	{"delete-buffer", "deleteb"},
	{"detach-client", "detach"},
	{"display-menu", "menu"},
	{"display-message", "display"},
	{"display-popup", "popup"},
	{"display-panes", "displayp"},
	{"find-window", "findw"},
	{"has-session", "has"},
	{"if-shell", "if"},
	{"join-pane", "joinp"},
	{"kill-pane", "killp"},
	{"kill-server", ""},
	{"kill-session", ""},
	{"kill-window", "killw"},
	{"last-pane", "lastp"},
	{"last-window", "last"},
	{"link-window", "linkw"},
	{"list-buffers", "lsb"},
	{"list-clients", "lsc"},
	{"list-commands", "lscm"},
	{"list-keys", "lsk"},
	{"list-panes", "lsp"},
	{"list-sessions", "ls"},
	{"list-windows", "lsw"},
	{"load-buffer", "loadb"},
	{"lock-client", "lockc"},
	{"lock-server", "lock"},
	{"lock-session", "locks"},
	{"move-pane", "movep"},
	{"move-window", "movew"},
	{"new-session", "new"},
	{"new-window", "neww"},
	{"next-layout", "nextl"},
	{"next-window", "next"},
	{"paste-buffer", "pasteb"},
	{"pipe-pane", "pipep"},
	{"previous-layout", "prevl"},
	{"previous-window", "prev"},
	{"refresh-client", "refresh"},
	{"rename-session", "rename"},
	{"rename-window", "renamew"},
	{"resize-pane", "resizep"},
	{"resize-window", "resizew"},
	{"respawn-pane", "respawnp"},
	{"respawn-window", "respawnw"},
	{"rotate-window", "rotatew"},
	{"run-shell", "run"},
	{"save-buffer", "saveb"},
	{"select-layout", "selectl"},
	{"select-pane", "selectp"},
	{"select-window", "selectw"},
	{"send-keys", "send"},
	{"send-prefix", ""},
	{"server-access", ""},
	{"set-buffer", "setb"},
	{"set-environment", "setenv"},
	{"set-hook", ""},
	{"set-option", "set"},
	{"set-window-option", "setw"},
	{"show-buffer", "showb"},
	{"show-environment", "showenv"},
	{"show-hooks", ""},
	{"show-messages", "showmsgs"},
	{"show-options", "show"},
	{"show-prompt-history", "showphist"},
	{"show-window-options", "showw"},
	{"source-file", "source"},
	{"split-window", "splitw"},
	{"start-server", "start"},
	{"suspend-client", "suspendc"},
	{"swap-pane", "swapp"},
	{"swap-window", "swapw"},
	{"switch-client", "switchc"},
	{"unbind-key", "unbind"},
	{"unlink-window", "unlinkw"},
	{"wait-for", "wait"},
}

// unsupported maps the full names of the commands refused by checkSupported
// to why.
var unsupported = map[string]string{
	"if-shell":       "runs nested commands",
	"source-file":    "runs nested commands",
	"confirm-before": "waits for an answer on the control client",
	"command-prompt": "waits for an answer on the control client",
	"display-menu":   "waits for an answer on the control client",
	"display-popup":  "waits for an answer on the control client",
	// run-shell only with -C; see checkSupported.
}

// exactCommands maps every name and alias to the full command name.
var exactCommands = func() map[string]string {
	m := make(map[string]string, 2*len(tmuxCommands))
	for _, c := range tmuxCommands {
		m[c[0]] = c[0]
		if c[1] != "" {
			m[c[1]] = c[0]
		}
	}
	return m
}()

// resolveCommand returns the full name tmux would run for name, or "" when
// tmux would refuse it (unknown or ambiguous) or the name is not in the 3.3a
// table (a newer command: nothing to refuse).
func resolveCommand(name string) string {
	if full, ok := exactCommands[name]; ok {
		return full
	}
	if name == "" {
		return ""
	}
	found := ""
	for _, c := range tmuxCommands {
		if strings.HasPrefix(c[0], name) {
			if found != "" {
				return "" // ambiguous: tmux refuses it with a parse error
			}
			found = c[0]
		}
	}
	return found
}

// CommandName returns the full name tmux runs for name (an alias such as "renamew", or a
// unique prefix such as "rename-w"), or "" when tmux would refuse it or does not have it in
// its 3.3a command table.
func CommandName(name string) string { return resolveCommand(name) }

// checkSupported returns an error wrapping ErrUnsupported when one of cmds
// would break the control connection.
func checkSupported(cmds [][]string) error {
	for i, argv := range cmds {
		full := resolveCommand(argv[0])
		if full == "" {
			continue
		}
		if full == "command-prompt" && hasFlag(argv[1:], 'b', "IptT") {
			continue // -b: the prompt is left open; nothing waits for it (see tmux.holdPrompt)
		}
		if why, bad := unsupported[full]; bad {
			return fmt.Errorf("%w: command %d %s %s", ErrUnsupported, i, full, why)
		}
		if full == "run-shell" && hasFlag(argv[1:], 'C', "dt") {
			return fmt.Errorf("%w: command %d run-shell -C runs nested commands", ErrUnsupported, i)
		}
	}
	return nil
}

// hasFlag reports whether a command's flags include flag; valued holds the flags that take a
// value (getopt's "x:"), whose value may be the rest of the word or the next one.
func hasFlag(args []string, flag byte, valued string) bool {
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w == "--" || len(w) < 2 || w[0] != '-' {
			return false
		}
		for j := 1; j < len(w); j++ {
			switch {
			case w[j] == flag:
				return true
			case strings.IndexByte(valued, w[j]) >= 0:
				if j == len(w)-1 {
					i++ // the value is the next word
				}
				j = len(w) // the rest of the word is the value
			}
		}
	}
	return false
}
