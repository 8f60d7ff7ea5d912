package shellrun

import (
	"strconv"
	"strings"
)

// Names of the wrapper's own shell variables and functions. They live only in the wrapper's
// subshell (POSIX) or block scope (fish, set -l), or are removed before the wrapper returns;
// the fish SIGINT handler is a global function erased at the end of the run.
const (
	varOpts     = "__tmx_o"
	varStatus   = "__tmx_s"
	varPosix    = "__tmx_p" // bash: $SHELLOPTS before the typed line turned POSIX mode on
	varFish     = "__tmx_f"
	varRestore  = "__tmx_r" // mksh: the set commands that give the options back
	varLift     = "__tmx_u" // ksh93, mksh: rows the traces of the typed line and set +x took
	varLineOpts = "__tmx_e" // ksh93, mksh: $- noted by the typed line when errexit or verbose was on
	fnInterrupt = "__tmx_int"
)

// zshOpts are the zsh options the wrapper turns off while it runs and restores, each kept in
// a variable of its own (zsh sets options by assignment to $options, which no definition can
// catch).
var zshOpts = []struct{ opt, v string }{
	{"aliases", "__tmx_za"}, {"errexit", "__tmx_ze"}, {"errreturn", "__tmx_zr"},
	{"verbose", "__tmx_zv"}, {"xtrace", "__tmx_zx"},
}

// posixFrame is what a POSIX wrapper holds, in the order it runs.
type posixFrame struct {
	d       dialect
	id      string
	cmd     string // the command, normalised
	nested  bool
	redraw  string // printf format that redraws the typed line, or ""
	up      int    // with a redraw: the rows up to the typed line; redraw takes their count as %d
	echo    int    // with a redraw: the rows the verbose echo of the typed line takes (Redraw.Echo)
	inline  bool   // typed as one line: no file, so no history fix and no return
	history bool   // record the command in the shell's history
	path    string // bash: the script's path, written over by bashReadBack (Script only)
	typed   string // the typed line (bash: its history entry is removed)
}

// statements lists the wrapper's top-level statements. A script runs its bookkeeping in the
// interactive shell around the frame's subshell; inline, everything happens inside that
// subshell (whose status is then $?), and nothing is left to restore.
func (f posixFrame) statements() []string {
	frame := f.singleFrame()
	switch {
	case f.d.topEnd:
		frame = f.topEndFrame()
	case f.nested:
		frame = f.nestedFrame()
	case f.d.xtraceBound && !f.inline:
		// mksh traces to the stderr set -x found, so the single frame's EXIT trap would trace
		// its first statement, after a traced command, into the output: with tracing on the
		// command gets the nested frame, whose outer subshell never traces (one fork more).
		frame = append(append(append([]string{"case $" + varOpts + " in *x*)"}, f.nestedFrame()...), ";;", "*)"),
			append(frame, ";;", "esac")...)
	}
	if f.inline {
		return f.inlineStatements(frame)
	}
	s := append(f.saveOpts(), f.zshCheck()...)
	s = append(s, f.historyFix()...)
	s = append(s, frame...)
	s = append(s, f.finish()...)
	if f.d.zsh {
		s = append(s, "fi")
	}
	return s
}

// inlineStatements puts everything in one subshell, the frame's own when it can: its status
// is the interactive shell's $? (0 under errexit, which that shell then still has on).
func (f posixFrame) inlineStatements(frame []string) []string {
	inner := append(f.saveOpts(), f.zshCheck()...)
	exit := f.errexitCase(f.d.sp("exit")+" 0", f.d.sp("exit")+` "$`+varStatus+`"`)
	if f.d.topEnd {
		// The interactive shell is the one that survives Ctrl-C in a script; inline,
		// the outer subshell stands in for it.
		inner = append(inner, f.d.sp("trap")+" '__tmx_i=1' INT")
		inner = append(append(inner, frame...), exit)
	} else if lost := f.repeatEnd(); lost != nil {
		// The frame keeps its subshell (one fork more), for this one to print the end
		// marker it may have lost; this one ends with exit too, so it saves no history either.
		inner = append(append(append(append(inner, f.histSaveOff()...), frame...), varStatus+"=$?"), lost...)
		inner = append(inner, exit)
	} else {
		inner = append(inner, frame[1:len(frame)-1]...)
	}
	if f.d.zsh {
		inner = append(inner, "fi")
	}
	return append(append([]string{"("}, inner...), ")")
}

// zshCheck (zsh) opens an if whose else branch holds everything that needs builtin: nothing
// of it may run when builtin is a function (only ${+functions[...]} and assignments are safe
// then). /usr/bin/env runs the external printf for the failure marker.
func (f posixFrame) zshCheck() []string {
	if !f.d.zsh {
		return nil
	}
	return []string{"if (( ${+functions[builtin]} )); then /usr/bin/env printf '" + failFormat(f.id, "function builtin") + "'; else"}
}

// saveOpts notes the interactive shell's options and turns off errexit, xtrace and verbose
// (zsh also aliases, so no alias changes how the rest of the file is read, and errreturn).
// Its own trace goes to /dev/null.
func (f posixFrame) saveOpts() []string {
	if f.d.zsh {
		return []string{f.zshSave()}
	}
	s := []string{"{ " + varOpts + "=$-; " + f.d.sp("set") + " +exv; } 2>/dev/null"}
	switch {
	case f.d.bash && f.inline:
		// Typed directly, inside the frame's subshell: POSIX mode by plain assignment.
		s[0] = "{ " + varPosix + "=$SHELLOPTS; POSIXLY_CORRECT=y; " + varOpts + "=$-; " + f.d.sp("set") + " +exv; } 2>/dev/null"
	case f.d.typedSave && !f.inline:
		// The typed line noted the options and turned tracing off (Line).
		s[0] = "{ " + f.d.sp("set") + " +ev; } 2>/dev/null"
	case f.d.caseSave:
		// ksh93 traces a group's redirection and mksh traces to the stderr set -x found: the
		// case (never traced) turns tracing off first, which costs only the trace of set +x.
		// The typed line noted $- in $__tmx_e if it turned errexit or verbose off.
		s = []string{"case $- in *x*) " + f.d.sp("set") + " +x; " + varOpts + "=x$-${" + varLineOpts + "-}" + f.liftRows() +
			";; *) " + varOpts + "=$-${" + varLineOpts + "-};; esac",
			"{ " + f.d.sp("set") + " +ev; " + f.d.sp("unset") + " " + varLineOpts + "; } 2>/dev/null"}
	}
	if f.d.bash && !f.inline {
		// Sourcing leaves POSIX mode on; a RETURN trap turns it off after the final return
		// (which leaves $? at the command's status), and restores a RETURN trap of the user's.
		// What trap -p printed ("trap -- - RETURN" for none, in POSIX mode) runs as \trap: an
		// alias or function named trap would print or run something of its own there.
		// In verbose mode bash echoes the trap's text as it parses it, when it runs: finish
		// then sends stderr to /dev/null and keeps it in fd $__tmx_2, which the trap gives
		// back first (outside a group, whose end would undo it; traced to /dev/null).
		body := "{ " + f.d.sp("trap") + " - RETURN; " + f.d.sp("eval") + ` "${__tmx_t:+\\$__tmx_t}"; ` +
			f.posixOff("__tmx_t __tmx_2") + "; } 2>/dev/null"
		trap := func(text string) string { return f.d.sp("trap") + " " + posixQuote(text) + " RETURN" }
		s = append(s, f.bashReadBack(), "case $"+varOpts+" in *v*) "+
			trap(f.d.sp("exec")+" 2>&$__tmx_2 {__tmx_2}>&-; "+body)+";; *) "+trap(body)+";; esac")
	}
	return s
}

// liftRows (ksh93, mksh, with a redraw) is a statement, after set +x, that counts in $__tmx_u
// the rows the traces of the typed line ("PS4. path") and, in mksh, of set +x ("PS4set +x")
// took on the screen, for the redraw to erase them: only with a literal PS4 (no expansion the
// wrapper could not redo) and a known $COLUMNS; else it holds "-", and the typed line and the
// traces stay as they are rather than be misdrawn.
func (f posixFrame) liftRows() string {
	if f.up == 0 {
		return ""
	}
	rows := func(n int) string {
		return "(${#PS4} + " + strconv.Itoa(n) + " + COLUMNS - 1) / COLUMNS"
	}
	n := rows(len(". ") + len(f.path))
	if f.d.xtraceBound {
		n += " + " + rows(len("set +x")) // ksh93 does not trace set +x
	}
	// The typed line's "__tmx_e=$-" (mksh traces a space after an assignment) and "set +ev".
	assign := len(varLineOpts + "=")
	if f.d.xtraceBound {
		assign++
	}
	n += "${" + varLineOpts + "+ + " + rows(len("set +ev")) + " + " + strings.Replace(rows(assign), "(", "(${#"+varLineOpts+"} + ", 1) + "}"
	return "; case ${PS4-}:${COLUMNS-} in *[\\$\\`\\\\]*|*:|*:*[!0-9]*|*:0) " + varLift + "=-;; *) " + varLift + "=$((" + n + "));; esac"
}

// zshSave (zsh) notes the options and turns them off. xtrace goes off through set +x: zsh
// traces an assignment to options[xtrace] to its end, leaving a line without its line break
// in stdio's buffer, which a later fork writes out again. Typed, the line noted xtrace and
// turned it off (zshLineHead).
func (f posixFrame) zshSave() string {
	var noted, save, off []string
	for _, o := range zshOpts {
		letter, typed := zshLineLetters[o.opt]
		switch {
		case typed && !f.inline:
			// Noted in $-'s letters and turned off by the typed line (zshLineHead).
			noted = append(noted, "case $"+zshLineOpts+" in *"+letter+"*) "+o.v+"=on;; *) "+o.v+"=off;; esac; ")
			continue
		case o.opt == "xtrace":
			save = append(save, o.v+"=${options[xtrace]}")
			off = append(off, `(( ${+functions[builtin]} )) || \builtin \set +x`)
			continue
		}
		save = append(save, o.v+"=${options["+o.opt+"]}") // braces: KSH_ARRAYS
		off = append(off, "options["+o.opt+"]=off")
	}
	return "{ " + strings.Join(noted, "") + strings.Join(save, " ") + "; " + strings.Join(off, "; ") + "; } 2>/dev/null"
}

// zshLineLetters are the options zshLineHead notes and turns off, by their letter in $-.
var zshLineLetters = map[string]string{"errexit": "e", "verbose": "v", "xtrace": "x"}

// bashReadBack (bash, Script) keeps the user's RETURN trap in $__tmx_t and deletes the last
// history entry when it is the typed line, whatever HISTCONTROL says (then, with history,
// records the command). It is skipped when builtin is a function: at top level the wrapper
// cannot remove it. bash can only capture output without a fork through a file: both outputs
// go in one write over the script file itself, which bash read whole before running it (no
// file of the wrapper's own to create and remove), and are read back from it. A NUL ends the
// trap text (which may span lines) and a line break the history line, so that no read
// reaches the script's own text; nothing is read back unless the NUL was written.
func (f posixFrame) bashReadBack() string {
	p := posixQuote(f.path)
	add := ""
	if f.history {
		add = `\builtin history -s -- ` + posixQuote(f.cmd) + "; "
	}
	return `{ \declare -F builtin || { { ` + f.d.sp("trap") + ` -p RETURN; \builtin \printf '\0' && ` +
		`{ HISTTIMEFORMAT= \builtin history 1; \builtin \printf '\n'; }; } 1<> ` + p +
		` && { IFS= \builtin read -r -d '' __tmx_t; IFS=' ' \builtin read -r __tmx_n __tmx_h; } < ` + p +
		`; case ${__tmx_h-} in ` + posixQuote(strings.TrimLeft(f.typed, " ")) + `) \builtin history -d "$__tmx_n";; esac; ` +
		add + `\unset __tmx_n __tmx_h; }; } >/dev/null 2>&1`
}

// posixOff (bash) unsets vars and, unless the shell was in POSIX mode before the typed line,
// POSIXLY_CORRECT: the last statement that relies on POSIX mode.
func (f posixFrame) posixOff(vars string) string {
	u := f.d.sp("unset") + " " + varPosix + " " + vars
	return "case :$" + varPosix + ": in *:posix:*) " + u + ";; *) " + u + " POSIXLY_CORRECT;; esac"
}

// historyFix keeps the typed line out of the shell's history (bash: see bashReadBack) and, with
// history, records the command itself as if it had been typed.
func (f posixFrame) historyFix() []string {
	q := posixQuote(f.cmd)
	switch {
	case f.inline:
		return nil
	case f.d.bash:
		return nil // in bashReadBack
	case f.d.zsh && !f.history:
		return []string{zshHistHook}
	case !f.history:
		return nil
	case f.d.zsh:
		return []string{zshHistHook, `\builtin \print -rs -- ` + q}
	}
	return []string{f.d.rg("print") + " -rs -- " + q + " 2>/dev/null"}
}

// zshHistHook (zsh) installs, once per shell, a zshaddhistory hook beside the user's own (as
// add-zsh-hook does: appended to zshaddhistory_functions) that keeps every later typed line of
// the framing (Line's zsh form) out of the history, when HIST_IGNORE_SPACE does not: zsh asks
// the hooks before it records a line read at its prompt, and cannot delete a line once
// recorded, so only the first run's line stays. The function is defined by assignment to
// $functions, which no definition of the user's can catch, and read with aliases off; it
// turns errexit off for itself (its status 1 would end a shell run with set -e), and xtrace,
// traced to /dev/null: zsh calls it for every line typed, and with set -x on each would show
// its trace.
var zshHistHook = `(( ${+functions[__tmx_hist]} )) || { functions[__tmx_hist]=` +
	posixQuote(`{ options[localoptions]=on; (( ${+functions[builtin]} )) || \builtin \set +x; options[errexit]=off; [[ $1 != *'`+zshLineHead+`'* ]]; } 2>/dev/null`) +
	`; zshaddhistory_functions+=(__tmx_hist); } 2>/dev/null`

// evalStmt runs the prelude and the command in the wrapper's (inner) subshell.
func (f posixFrame) evalStmt() string {
	text := f.evalPrefix() + f.cmd
	arg := posixQuote(text)
	switch {
	case f.inline && f.d.dollarQuote:
		arg = dollarQuote(text)
	case f.inline:
		arg = `"$(` + f.d.printf + ` '%b' '` + percentB(text) + `')"`
	}
	return f.d.sp("eval") + " " + arg
}

// evalPrefix is the prelude as eval reads it before the command. It shares the command's
// first line, so that the line numbers of the shell's messages about the command
// ("(eval):1:", "dash: 1:") are those of its own lines; but in bash, whose syntax errors quote
// the whole line.
func (f posixFrame) evalPrefix() string {
	sep := "; "
	if f.d.bash {
		sep = "\n"
	}
	return strings.ReplaceAll(f.prelude(), "\n", sep) + sep
}

// prelude, run by eval before the command, gives the command the interactive shell's options
// back, but verbose, and removes the wrapper's variables. The command runs without verbose: the
// shell would echo its text (bash, ksh93 and mksh echo what eval reads, ksh93 and mksh without
// its line break), and the EXIT trap's text with it, into the output.
func (f posixFrame) prelude() string {
	if f.d.zsh {
		var set, vars []string
		for _, o := range zshOpts {
			vars = append(vars, o.v)
			if o.opt != "xtrace" && o.opt != "aliases" && o.opt != "verbose" {
				set = append(set, "options["+o.opt+"]=$"+o.v)
			}
		}
		vars = append(vars, zshLineOpts)
		return strings.Join(set, " ") + "\n{ " + zshXtraceOn + " " + f.d.sp("unset") + " " + strings.Join(vars, " ") + "; } 2>/dev/null"
	}
	errexit := "case $" + varOpts + " in *e*) " + f.d.sp("set") + " -e;; esac\n"
	if f.d.bash {
		return errexit + "{ case $" + varOpts + " in *x*) " + f.d.sp("set") + " -x;; esac; " + f.posixOff(varOpts) + "; } 2>/dev/null"
	}
	// set -x last, untraced and outside a group: mksh would trace the command to the group's
	// /dev/null.
	unset := f.d.sp("unset") + " " + varOpts + f.liftVar()
	return errexit + "case $" + varOpts + " in *x*) " + unset + "; " + f.d.sp("set") + " -x;; *) " + unset + ";; esac"
}

// liftVar is " $__tmx_u"'s name where the wrapper counts rows to lift the redraw by.
func (f posixFrame) liftVar() string {
	if f.up == 0 {
		return ""
	}
	return " " + varLift
}

// zshXtraceOn (zsh) turns tracing back on as $__tmx_zx says, with set -x: assigning on to
// options[xtrace] writes a stray line break to the trace.
const zshXtraceOn = `case $__tmx_zx in on) \builtin \set -x;; esac;`

// errexitCase returns a case statement on the interactive shell's errexit setting.
func (f posixFrame) errexitCase(on, off string) string {
	if f.d.zsh {
		return "case $__tmx_ze in on) " + on + ";; *) " + off + ";; esac"
	}
	return "case $" + varOpts + " in *e*) " + on + ";; *) " + off + ";; esac"
}

// startPrintf prints the redraw of the typed line and the start marker.
func (f posixFrame) startPrintf() string {
	start, _ := markerFormats(f.id)
	if f.up == 0 {
		return f.d.printf + " '" + start + "'"
	}
	redraw := func(lift string) string {
		return f.d.printf + " '" + f.redraw + start + "' \"$((" + strconv.Itoa(f.up) + lift + "))\""
	}
	// In verbose mode the shell echoed the typed line below it.
	verbose, on := "$"+varOpts, "*v*"
	if f.d.zsh {
		verbose, on = "$__tmx_zv", "on"
	}
	lift := ""
	if f.d.caseSave {
		lift = " + ${" + varLift + ":-0}"
	}
	show := "case " + verbose + " in " + on + ") " + redraw(lift+" + "+strconv.Itoa(f.echo)) + ";; *) " + redraw(lift) + ";; esac"
	switch {
	case f.d.caseSave:
		return "case ${" + varLift + "-} in -) " + f.d.printf + " '" + start + "';; *) " + show + ";; esac"
	case f.d.zsh:
		// preexec hooks (the user's) run before the typed line, traced with xtrace on: the rows
		// they took are unknown, so the typed line is left as it is rather than misdrawn.
		// (:+ and ${+...} are safe under set -u.)
		return "case $__tmx_zx${preexec_functions:+1}${+functions[preexec]} in on0|off*) " +
			show + ";; *) " + f.d.printf + " '" + start + "';; esac"
	}
	return show
}

// endStmts maps the status in $__tmx_s to 0..255 and prints the end marker with it. A
// subshell's status seen after it ended is 0..255, but for ksh93's death by signal N, 256+N:
// mapped to 128+N. An EXIT trap (trapped) sees what exit or return was given: zsh and dash
// keep 300 or -1 there, which the process ends with as the system does, modulo 256 (44, 255).
func (f posixFrame) endStmts(trapped bool) []string {
	mapped := varStatus + " > 255 ? " + varStatus + " % 256 + 128 : " + varStatus
	if trapped {
		mapped = varStatus + " & 255"
	}
	return []string{varStatus + "=$((" + mapped + "))", f.endPrintf()}
}

// endPrintf prints the end marker with the status in $__tmx_s.
func (f posixFrame) endPrintf() string {
	_, end := markerFormats(f.id)
	return f.d.printf + ` "` + end + `" "$` + varStatus + `"`
}

// repeatEnd (zsh and bash, the single frame) prints the end marker again in the shell around
// the frame's subshell, for when the subshell ended without its EXIT trap: zsh's exits at
// once, trap and all, on an expansion error (${var?message}, ${var:?}, an unset variable under
// set -u), and any subshell killed (SIGKILL) or whose trap a function of the user's replaced
// prints none. The trap ends the subshell with the status it printed, or with 0 under errexit,
// so a repeat changes nothing: the first end marker counts (Parse). In bash, a function named
// builtin (only the subshell removes it) skips it.
func (f posixFrame) repeatEnd() []string {
	switch {
	case f.nested:
		return nil
	case f.d.zsh:
		return []string{f.endPrintf()}
	case f.d.bash:
		return []string{`\declare -F builtin >/dev/null 2>&1 || ` + f.endPrintf()}
	}
	return nil
}

// subshellStart lists what the wrapper's (outer) subshell runs first.
func (f posixFrame) subshellStart() []string {
	var s []string
	if f.d.unshadow != "" {
		s = append(s, f.d.unshadow)
	}
	return s
}

// histSaveOff (zsh) keeps the wrapper's subshell, and every subshell of the command, from
// saving the interactive shell's history to $HISTFILE: zsh saves it whenever a subshell of an
// interactive shell runs exit (appending every line read since the shell last saved, the
// typed line and the user's own lines again), before an EXIT trap could stop it. SAVEHIST=0
// stops it and leaves $HISTFILE to the command (which may read the file); a read-only SAVEHIST
// is left alone, as assigning it would end the subshell before its markers.
func (f posixFrame) histSaveOff() []string {
	if !f.d.zsh {
		return nil
	}
	return []string{"[[ ${parameters[SAVEHIST]-} = *readonly* ]] || SAVEHIST=0"}
}

// singleFrame runs the command in the wrapper's own subshell: one fork. An EXIT trap prints
// the end marker however the subshell ends (the command ends, exit N, a set -e failure, the
// INT trap's exit 130) and ends it with the command's status (0 when the interactive shell
// has errexit on, so that it does not exit).
func (f posixFrame) singleFrame() []string {
	trapExit := func(exitArg string) string {
		var h []string
		first := varStatus + "=$?; "
		if f.d.bash {
			first += "POSIXLY_CORRECT=y; "
		}
		h = append(h, "{ "+first+f.d.xtraceOff()+"; } 2>/dev/null")
		h = append(h, f.subshellStart()...)
		h = append(h, f.endStmts(true)...)
		h = append(h, f.d.sp("exit")+" "+exitArg)
		return f.d.sp("trap") + " " + posixQuote(strings.Join(h, "; ")) + " EXIT"
	}
	s := []string{"("}
	s = append(s, f.subshellStart()...)
	s = append(s, f.histSaveOff()...)
	s = append(s,
		f.errexitCase(trapExit("0"), trapExit(`"$`+varStatus+`"`)),
		f.d.sp("trap")+" "+posixQuote(f.d.sp("exit")+" 130")+" INT",
		f.startPrintf())
	s = append(s, f.aliasesBack()...)
	s = append(s, f.evalStmt())
	return append(s, f.zshExit()...)
}

// zshExit (zsh) ends the single frame's subshell with exit: a zsh subshell that falls off its
// end while the shell has a DEBUG trap (trap DEBUG, TRAPDEBUG) skips its EXIT trap, which
// prints the end marker. Its trace goes nowhere (set -x). It closes the subshell.
func (f posixFrame) zshExit() []string {
	if !f.d.zsh {
		return []string{")"}
	}
	return []string{"{ " + f.d.sp("exit") + " $?; } 2>/dev/null", ")"}
}

// aliasesBack (zsh) turns aliases back on before eval reads the command.
func (f posixFrame) aliasesBack() []string {
	if f.d.zsh {
		return []string{"options[aliases]=$__tmx_za"}
	}
	return nil
}

// nestedFrame is the two-subshell frame, for commands that could defeat the one-subshell
// frame (a trap or exec of their own) and for shells whose subshells do not fork (ksh93): the
// outer subshell holds the bookkeeping and catches SIGINT (caught, not ignored, so the
// command gets the default back and Ctrl-C kills it while the wrapper survives); the nested
// one runs the command.
func (f posixFrame) nestedFrame() []string {
	s := []string{"("}
	s = append(s, f.subshellStart()...)
	s = append(s, f.histSaveOff()...)
	s = append(s, f.d.sp("trap")+" '__tmx_i=1' INT", f.startPrintf())
	s = append(s, f.aliasesBack()...)
	s = append(s, "(", f.evalStmt(), ")", varStatus+"=$?")
	s = append(s, f.endStmts(false)...)
	return append(s, f.errexitCase(f.d.sp("exit")+" 0", f.d.sp("exit")+` "$`+varStatus+`"`), ")")
}

// topEndFrame (ksh93) runs the command in one subshell and prints the end marker after it, in
// the interactive shell: ksh93's subshell is virtual (no fork), so it can neither end through
// an EXIT trap with a signal status (that ends the interactive shell) nor sit inside a subshell
// that catches SIGINT (a command's own INT trap then never runs and the shell hangs). The INT
// trap turns Ctrl-C into exit 130; a command's own INT trap replaces it. printf is reached
// through command unless command is a function there (typeset cannot be a function in ksh93).
func (f posixFrame) topEndFrame() []string {
	_, end := markerFormats(f.id)
	s := []string{"("}
	s = append(s, f.subshellStart()...)
	s = append(s, f.d.sp("trap")+" "+posixQuote(f.d.sp("exit")+" 130")+" INT", f.startPrintf())
	s = append(s, f.evalStmt(), ")", varStatus+"=$?")
	s = append(s, f.endStmts(false)[0])
	arg := ` "` + end + `" "$` + varStatus + `"`
	return append(s, `if \typeset -f command >/dev/null 2>&1; then \printf`+arg+`; else \command \printf`+arg+`; fi`)
}

// finish gives the interactive shell its options back and leaves $? at the command's status
// (0 when errexit is on, so that the shell does not exit), removing the wrapper's variables.
// Everything after the options come back is traced to /dev/null.
func (f posixFrame) finish() []string {
	if f.d.zsh {
		var set []string
		for _, o := range zshOpts {
			if o.opt != "xtrace" {
				set = append(set, "options["+o.opt+"]=$"+o.v)
			}
		}
		ret := "; " + f.d.sp("return") + " $__tmx_s"
		s := append([]string{varStatus + "=$?"}, f.repeatEnd()...)
		return append(s, "case $__tmx_ze in on) "+varStatus+"=0;; esac",
			strings.Join(set, " "),
			"{ "+zshXtraceOn+" "+f.d.sp("eval")+` "`+`\builtin \unset __tmx_za __tmx_ze __tmx_zr __tmx_zv __tmx_zx `+zshLineOpts+` __tmx_s`+ret+`"; } 2>/dev/null`)
	}
	last := `\unset ` + varOpts + " " + varStatus + f.liftVar() + `; \return $` + varStatus
	var tail []string
	if !f.d.topEnd {
		tail = append(tail, varStatus+"=$?")
	}
	if f.d.xtraceBound {
		return append(tail, f.boundFinish())
	}
	tail = append(tail, f.repeatEnd()...)
	if f.d.bash {
		// Outside the group, whose end would undo it (see saveOpts).
		tail = append(tail, "case $"+varOpts+" in *v*) "+f.d.sp("exec")+" {__tmx_2}>&2 2>/dev/null;; esac")
	}
	tail = append(tail, "{ case $"+varOpts+" in *e*) "+f.d.sp("set")+" -e; "+varStatus+"=0;; esac; "+
		"case $"+varOpts+" in *v*) "+f.d.sp("set")+" -v;; esac; case $"+varOpts+" in *x*) "+f.d.sp("set")+" -x;; esac; "+
		f.d.sp("eval")+` "`+last+`"; } 2>/dev/null`)
	return tail
}

// boundFinish (mksh) is finish's last statement where tracing goes to the stderr set -x saw
// (inside the group it would trace the shell to /dev/null from then on): eval, itself
// untraced, turns -v and -x back on last. Every simple command after set -x is traced, return
// too: with tracing on, [[ ]] (which mksh does not trace) ends the script instead, so $? is
// then 0 or 1 rather than the command's status.
func (f posixFrame) boundFinish() string {
	set, s, r := f.d.sp("set"), "$"+varStatus, varRestore
	return "{ case $" + varOpts + " in *e*) " + set + " -e; " + varStatus + "=0;; esac; " + r + "=; " +
		"case $" + varOpts + " in *v*) " + r + "='" + set + " -v; ';; esac; " +
		"case $" + varOpts + " in *x*) " + r + "=$" + r + "'" + set + " -x; [[ '" + s + "' = 0 ]]';; " +
		"*) " + r + "=$" + r + "'" + f.d.sp("return") + " '" + s + ";; esac; } 2>/dev/null; " +
		f.d.sp("eval") + ` "` + f.d.sp("unset") + " " + varOpts + " " + varStatus + " " + r + f.liftVar() + "; $" + r + `"`
}

// fishFrame lists the fish wrapper's statements; cmdArg is the -c argument of the child fish
// (whose path is in $__tmx_f) that runs the command. Every builtin goes through "builtin"
// (fish reserves begin, end, set, status, function, return, builtin and command, so no
// function can take those names).
func fishFrame(id, startStmt, cmdArg string, withReturn bool) []string {
	_, end := markerFormats(id)
	s := []string{
		"begin",
		fishTraceOff,
		fishTraceBack,
		// An observed SIGINT does not cancel the running block.
		"function " + fnInterrupt + " --on-signal INT; end",
		"set -l " + varFish + " (builtin status fish-path 2>/dev/null); or set " + varFish + " fish",
		startStmt,
		"$" + varFish + " --no-config --init-command " +
			fishQuote("function "+fnInterrupt+" --on-signal INT; exit 130; end") + " -c " + cmdArg,
		"set -l " + varStatus + " $status",
		"builtin functions -e " + fnInterrupt,
		"builtin printf '" + end + "' $" + varStatus,
	}
	if withReturn {
		s = append(s, "return $"+varStatus)
	}
	return append(s, "end")
}

// fishStart is the fish wrapper's statement that prints the redraw, if any, and the start
// marker. With fish_trace on, the traces of the typed line and of fishTraceOff stand between
// the typed line and the cursor ("> begin", "-> source <path>", "---> begin", "-----> set -g
// fish_trace"): the redraw goes up the rows they took too, and erases them.
func fishStart(r *Redraw, cmd, path, id string) string {
	start, _ := markerFormats(id)
	if r == nil {
		return "builtin printf '" + start + "'"
	}
	var rows []string
	for _, n := range []int{len("> begin"), len("-> source ") + len(path), len("---> begin"), len("-----> set -g fish_trace")} {
		rows = append(rows, "ceil("+strconv.Itoa(n)+" / $COLUMNS)")
	}
	lift := `(set -q __tmx_ft[1]; and builtin math "` + strings.Join(rows, " + ") + `"; or echo 0)`
	return "builtin printf '" + r.liftFormat(cmd) + start + "' (builtin math " + strconv.Itoa(r.Up) + " + " + lift + ")"
}

// fishTraceOff keeps fish_trace in $__tmx_ft and empties it (a global that shadows a universal
// one, keeping its export flag), so that fish traces nothing more of the wrapper (it traces
// whatever a block redirects) and, with the shell's typed line, not its end: only the command
// substitution's own statement is traced, before the command is shown. fishTraceBack gives
// it back once the typed line ended: a handler of fish_postexec, which fish runs untraced,
// erases itself and sets fish_trace back last (or erases the global it made). The command's
// child fish is not traced either way: fish_trace is a shell variable.
const (
	fishTraceOff  = "set -g __tmx_ft $fish_trace (set -g fish_trace)"
	fishTraceBack = "function __tmx_ftb --on-event fish_postexec; set -l v $__tmx_ft; set -e -g __tmx_ft; " +
		"builtin functions -e __tmx_ftb; set -q v[1]; and set -g fish_trace $v; or set -e -g fish_trace; end"
)

// fishChild is the child fish's -c script: eval of the quoted command, not the command
// itself, because fish 3.6 exits 0 when a -c script has a syntax error, while eval reports
// 123.
func fishChild(cmd string) string {
	return "builtin eval " + fishQuote(cmd)
}

// render joins statements as script lines, or as one physical line.
func render(stmts []string, oneLine bool) string {
	var b strings.Builder
	for i, s := range stmts {
		if i > 0 {
			switch {
			case !oneLine:
				b.WriteByte('\n')
			case stmts[i-1] == "(" || s == ")" || strings.HasSuffix(stmts[i-1], "; else") || stmts[i-1] == "begin":
				b.WriteByte(' ')
			default:
				b.WriteString("; ")
			}
		}
		b.WriteString(s)
	}
	if !oneLine {
		b.WriteByte('\n')
	}
	return b.String()
}

// needsNested reports whether cmd might replace the wrapper's EXIT or INT trap (trap, zsh's
// TRAPEXIT and TRAPINT functions) or redirect or replace the wrapper's own shell (exec): such
// a command runs in a nested subshell, which costs a second fork, so that the outer one still
// prints the end marker. The test is a case-insensitive substring match, so it errs on the
// side of the nested frame ("grep trap", "find -exec").
func needsNested(cmd string) bool {
	l := strings.ToLower(cmd)
	return strings.Contains(l, "trap") || strings.Contains(l, "exec")
}
