package shellrun

import "strings"

// Names of the wrapper's own shell variables and functions. They live only in the wrapper's
// subshell (POSIX) or block scope (fish, set -l), or are removed before the wrapper returns;
// the fish SIGINT handler is a global function erased at the end of the run.
const (
	varOpts     = "__tmx_o"
	varStatus   = "__tmx_s"
	varPosix    = "__tmx_p" // bash: $SHELLOPTS before the typed line turned POSIX mode on
	varFish     = "__tmx_f"
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
	}
	if f.inline {
		inner := append(f.saveOpts(), f.zshCheck()...)
		if f.d.topEnd {
			// The interactive shell is the one that survives Ctrl-C in a script; inline,
			// the outer subshell stands in for it.
			inner = append(inner, f.d.sp("trap")+" '__tmx_i=1' INT")
			inner = append(inner, frame...)
			inner = append(inner, f.errexitCase(f.d.sp("exit")+" 0", f.d.sp("exit")+` "$`+varStatus+`"`))
		} else {
			inner = append(inner, frame[1:len(frame)-1]...)
		}
		if f.d.zsh {
			inner = append(inner, "fi")
		}
		return append(append([]string{"("}, inner...), ")")
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
		var save, off []string
		for _, o := range zshOpts {
			save = append(save, o.v+"=${options["+o.opt+"]}") // braces: KSH_ARRAYS
			off = append(off, "options["+o.opt+"]=off")
		}
		return []string{"{ " + strings.Join(save, " ") + "; " + strings.Join(off, "; ") + "; } 2>/dev/null"}
	}
	s := []string{"{ " + varOpts + "=$-; " + f.d.sp("set") + " +exv; } 2>/dev/null"}
	if f.d.bash && f.inline {
		// Typed directly, inside the frame's subshell: POSIX mode by plain assignment.
		s[0] = varPosix + "=$SHELLOPTS; POSIXLY_CORRECT=y; " + s[0]
	}
	if f.d.bash && !f.inline {
		// Sourcing leaves POSIX mode on; a RETURN trap turns it off after the final return
		// (which leaves $? at the command's status), and restores a RETURN trap of the user's.
		// What trap -p printed ("trap -- - RETURN" for none, in POSIX mode) runs as \trap: an
		// alias or function named trap would print or run something of its own there.
		s = append(s, f.bashReadBack(),
			f.d.sp("trap")+" "+posixQuote("{ "+f.d.sp("trap")+" - RETURN; "+f.d.sp("eval")+` "${__tmx_t:+\\$__tmx_t}"; `+
				f.posixOff("__tmx_t")+"; } 2>/dev/null")+" RETURN")
	}
	return s
}

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
// turns errexit off for itself (its status 1 would end a shell run with set -e).
var zshHistHook = `(( ${+functions[__tmx_hist]} )) || { functions[__tmx_hist]=` +
	posixQuote(`options[localoptions]=on; options[errexit]=off; [[ $1 != *'`+zshLineHead+`'* ]]`) + `; zshaddhistory_functions+=(__tmx_hist); } 2>/dev/null`

// evalStmt runs the prelude and the command in the wrapper's (inner) subshell.
func (f posixFrame) evalStmt() string {
	text := f.prelude() + "\n" + f.cmd
	arg := posixQuote(text)
	switch {
	case f.inline && f.d.dollarQuote:
		arg = dollarQuote(text)
	case f.inline:
		arg = `"$(` + f.d.printf + ` '%b' '` + percentB(text) + `')"`
	}
	return f.d.sp("eval") + " " + arg
}

// prelude, run by eval before the command, gives the command the interactive shell's options
// back and removes the wrapper's variables.
func (f posixFrame) prelude() string {
	if f.d.zsh {
		var set, vars []string
		for _, o := range zshOpts {
			vars = append(vars, o.v)
			if o.opt != "xtrace" && o.opt != "aliases" {
				set = append(set, "options["+o.opt+"]=$"+o.v)
			}
		}
		return strings.Join(set, " ") + "\n{ options[xtrace]=$__tmx_zx; " + f.d.sp("unset") + " " + strings.Join(vars, " ") + "; } 2>/dev/null"
	}
	unset := f.d.sp("unset") + " " + varOpts
	if f.d.bash {
		unset = f.posixOff(varOpts)
	}
	return "case $" + varOpts + " in *e*) " + f.d.sp("set") + " -e;; esac\n" +
		"{ case $" + varOpts + " in *v*) " + f.d.sp("set") + " -v;; esac; case $" + varOpts + " in *x*) " +
		f.d.sp("set") + " -x;; esac; " + unset + "; } 2>/dev/null"
}

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
	return f.d.printf + " '" + f.redraw + start + "'"
}

// endPrintf prints the end marker with the status in $__tmx_s (ksh93 reports a death by
// signal N as 256+N: mapped to 128+N).
func (f posixFrame) endStmts() []string {
	_, end := markerFormats(f.id)
	return []string{
		varStatus + "=$((" + varStatus + " > 255 ? " + varStatus + " % 256 + 128 : " + varStatus + "))",
		f.d.printf + ` "` + end + `" "$` + varStatus + `"`,
	}
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
		h = append(h, f.endStmts()...)
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
	s = append(s, f.endStmts()...)
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
	s = append(s, f.endStmts()[0])
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
		return []string{varStatus + "=$?",
			"case $__tmx_ze in on) " + varStatus + "=0;; esac",
			strings.Join(set, " "),
			"{ options[xtrace]=$__tmx_zx; " + f.d.sp("eval") + ` "` + `\builtin \unset __tmx_za __tmx_ze __tmx_zr __tmx_zv __tmx_zx __tmx_s` + ret + `"; } 2>/dev/null`}
	}
	last := `\unset ` + varOpts + " " + varStatus + `; \return $` + varStatus
	var tail []string
	if !f.d.topEnd {
		tail = append(tail, varStatus+"=$?")
	}
	tail = append(tail, "{ case $"+varOpts+" in *e*) "+f.d.sp("set")+" -e; "+varStatus+"=0;; esac; "+
		"case $"+varOpts+" in *v*) "+f.d.sp("set")+" -v;; esac; case $"+varOpts+" in *x*) "+f.d.sp("set")+" -x;; esac; "+
		f.d.sp("eval")+` "`+last+`"; } 2>/dev/null`)
	return tail
}

// fishFrame lists the fish wrapper's statements; cmdArg is the -c argument of the child fish
// (whose path is in $__tmx_f) that runs the command. Every builtin goes through "builtin"
// (fish reserves begin, end, set, status, function, return, builtin and command, so no
// function can take those names).
func fishFrame(id, redraw, cmdArg string, withReturn bool) []string {
	start, end := markerFormats(id)
	s := []string{
		"begin",
		// An observed SIGINT does not cancel the running block.
		"function " + fnInterrupt + " --on-signal INT; end",
		"set -l " + varFish + " (builtin status fish-path 2>/dev/null); or set " + varFish + " fish",
		"builtin printf '" + redraw + start + "'",
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
