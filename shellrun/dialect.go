package shellrun

// dialect holds how a POSIX shell's real builtins are reached whatever the user defined in
// it (doc.go, "Definitions in the user's shell"). A backslash before a command word defeats
// aliases (zsh's global ones too) in every shell; functions differ:
//   - dash, busybox ash and ksh93 refuse functions named like special builtins (. eval exit
//     return set trap unset), and mksh looks special builtins up before functions, so a
//     special builtin is reached by its quoted name. bash does the same in POSIX mode, which
//     the typed line turns on with an assignment (POSIXLY_CORRECT=y) that no definition can
//     touch; the wrapper turns it off again for the command.
//   - zsh looks functions up before every builtin: everything goes through "builtin", and the
//     wrapper checks syntactically (${+functions[builtin]}) that builtin itself is not a
//     function, and refuses to run if it is.
//   - regular builtins (printf, read, history, print) are reached through "builtin" (bash,
//     zsh, mksh) or "command" (dash, ash, ksh93, an unknown sh). In its own subshell the
//     wrapper first removes functions of those names (unset is special, so it cannot be
//     shadowed); the command therefore does not see a user function named "builtin" or
//     "command".
type dialect struct {
	special, regular string // prefixes: a special builtin is special+name, a regular one regular+name
	printf           string // the command that prints a printf format (mksh has no printf builtin)
	unshadow         string // statement run first in the wrapper's subshell ("" for none)
	single           bool   // the one-subshell frame is safe (the subshell is a real fork)
	dollarQuote      bool   // the shell reads $'...' (inline commands need no printf %b, no fork)
	bash, zsh        bool
	typedSave        bool // the typed line notes $- in $__tmx_o and turns tracing off (Line)
	xtraceBound      bool // set -x sends the trace to the stderr it saw, not the current one (mksh)
	caseSave         bool // tracing goes off in a case, at the cost of a traced set +x (ksh93, mksh)
	topEnd           bool // the end marker is printed after the subshell (ksh93)
}

func dialectOf(s Shell) dialect {
	d := dialectFor(s)
	d.printf = d.rg("printf")
	d.dollarQuote = s != Dash && s != Sh
	if s == Mksh {
		// mksh's printf is the external one, reached past functions by command (unshadowed).
		d.printf = `\command \printf`
	}
	return d
}

func dialectFor(s Shell) dialect {
	switch s {
	case Bash:
		return dialect{special: `\`, regular: `\builtin \`, unshadow: `\unset -f builtin command`, single: true, bash: true, typedSave: true}
	case Zsh:
		return dialect{special: `\builtin \`, regular: `\builtin \`, single: true, zsh: true}
	case Mksh:
		return dialect{special: `\`, regular: `\builtin \`, unshadow: `\unset -f builtin command`, single: true, xtraceBound: true, caseSave: true}
	case Dash, Ash:
		return dialect{special: `\`, regular: `\command \`, unshadow: `\unset -f command`, single: true, typedSave: true}
	case Ksh:
		// ksh93 runs "( )" as a virtual subshell without a fork, where an exit with a
		// signal status from an EXIT trap ends the interactive shell itself: it keeps the
		// nested frame (which costs it no fork either). After "unset -f command" in such a
		// subshell, "command" is not found inside $(...) (there, and in the shell around
		// it): the function is removed only when there is one (typeset cannot be a
		// function in ksh93).
		return dialect{special: `\`, regular: `\command \`, unshadow: `\typeset -f command >/dev/null 2>&1 && \unset -f command`, topEnd: true, caseSave: true}
	}
	// An unknown sh, which may be ksh93, gets the nested frame too.
	return dialect{special: `\`, regular: `\command \`, unshadow: `\unset -f command`}
}

// sp and rg call a special and a regular builtin.
func (d dialect) sp(name string) string { return d.special + name }
func (d dialect) rg(name string) string { return d.regular + name }

// xtraceOff is a statement that stops tracing without a command a definition could catch.
func (d dialect) xtraceOff() string {
	if d.zsh {
		// Not options[xtrace]=off (see zshSave); builtin is no function here (zshCheck).
		return `\builtin \set +x`
	}
	return d.sp("set") + " +x"
}
