package shellrun

import "strings"

// stateWords are commands whose only effect is on the shell that runs them: its directory,
// variables, options, aliases, limits, or a sourced file's definitions (an activated
// environment). In a run's subshell (POSIX) or child fish that effect ends with the run.
var stateWords = map[string]bool{
	"cd": true, "pushd": true, "popd": true, "export": true, "unset": true, "set": true,
	"alias": true, "unalias": true, "source": true, ".": true, "shopt": true, "setopt": true,
	"unsetopt": true, "umask": true, "ulimit": true, "declare": true, "typeset": true,
	"readonly": true, "hash": true, "deactivate": true, "workon": true, "abbr": true,
}

// stateTools are two-word commands of the same kind: tools that change the calling shell
// through a shell function of theirs.
var stateTools = map[string]bool{
	"conda activate": true, "conda deactivate": true, "nvm use": true, "pyenv shell": true,
	"rbenv shell": true, "mamba activate": true, "micromamba activate": true,
}

// StateOnly returns the commands of cmd when each of them only changes the state of the shell
// it runs in ("cd /tmp", "export A=1; source .venv/bin/activate", "A=1"), which the run's
// subshell then loses: a later run starts where the pane's shell is. It returns nil when any
// part of cmd does something else or cannot be told (a pipe, a redirection, a substitution, a
// subshell, a background job), erring on the side of saying nothing: parts are split without
// regard to quotes, so a quoted separator only ever makes a part that is not such a command.
func StateOnly(cmd string) []string {
	cmd = strings.NewReplacer("&&", ";", "||", ";", "\r", ";", "\n", ";").Replace(cmd)
	if strings.ContainsAny(cmd, "|<>`&()") {
		return nil
	}
	var words []string
	for _, part := range strings.Split(cmd, ";") {
		f := strings.Fields(part)
		switch {
		case len(f) == 0:
		case len(f) > 1 && stateTools[f[0]+" "+f[1]]:
			words = append(words, f[0]+" "+f[1])
		case stateWords[f[0]]:
			words = append(words, f[0])
		case allAssignments(f):
			words = append(words, "assignment")
		default:
			return nil
		}
	}
	return words
}

// allAssignments reports whether every word is NAME=value: a command of assignments alone.
func allAssignments(words []string) bool {
	for _, w := range words {
		name, _, ok := strings.Cut(w, "=")
		if !ok || !isName(name) {
			return false
		}
	}
	return true
}

// isName reports whether s is a shell variable name.
func isName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, c := range s {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}
