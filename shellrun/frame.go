package shellrun

import "strings"

// Names of the wrapper's own shell variables and functions. They live only in
// the wrapper's subshell (POSIX) or block scope (fish, set -l); the fish
// SIGINT handler is a global function erased at the end of the run.
const (
	varOpts     = "__tmx_o"
	varStatus   = "__tmx_s"
	varFish     = "__tmx_f"
	fnInterrupt = "__tmx_int"
)

// markers returns the printf statements (format strings of octal escapes)
// that print "<id>_S\n" and "<id>_E <status> <id>_D\n".
func markers(printf, id, statusArg string) (start, end string) {
	start = printf + " '" + octalFormat(id+"_S") + `\n'`
	end = printf + " '" + octalFormat(id+"_E") + " %d " + octalFormat(id+"_D") + `\n' ` + statusArg
	return start, end
}

// posixFrame lists the POSIX wrapper's statements around evalStmt, which runs
// the command: the one-subshell frame, or the two-subshell one when
// needsNested says the command could defeat the first. "(" and ")" stand
// alone so render can lay them out.
func posixFrame(id, evalStmt string, nested bool) []string {
	if nested {
		return posixNestedFrame(id, evalStmt)
	}
	return posixSingleFrame(id, evalStmt)
}

// posixSingleFrame runs the command in the wrapper's own subshell: one fork.
// An EXIT trap prints the end marker however the subshell ends (the command
// ends, exit N, set -e, the INT trap's exit 130) and then ends the subshell
// with the command's status (0 when the interactive shell has errexit on, so
// that it does not exit). The INT trap turns Ctrl-C into exit 130, so a
// builtin loop stays interruptible and the EXIT trap still runs; programs the
// command starts get the default SIGINT back, as for any caught signal.
//
// The trap texts are chosen while the interactive shell's options are known
// ($__tmx_o), so no variable of the wrapper is visible to the command. Their
// first statements are traced to /dev/null, keeping set -x noise out of the
// body.
func posixSingleFrame(id, evalStmt string) []string {
	_, end := markers(`\command \printf`, id, `"$`+varStatus+`"`)
	// Inside the single-quoted trap text: the format strings of end are
	// single-quoted, so they are re-quoted with double quotes (octal
	// escapes and %d mean the same in both).
	end = strings.ReplaceAll(end, "'", `"`)
	exitTrap := func(exitArg string) string {
		return "trap '{ " + varStatus + "=$?; set +x; } 2>/dev/null; " +
			// ksh93 reports death by signal N as 256+N.
			varStatus + "=$((" + varStatus + " > 255 ? " + varStatus + " % 256 + 128 : " + varStatus + ")); " +
			end + "; exit " + exitArg + "' EXIT"
	}
	start, _ := markers(`\command \printf`, id, "")
	return []string{
		"(",
		varOpts + "=$-",
		"set +e +x",
		"case $" + varOpts + " in *e*) " + exitTrap("0") + ";; *) " + exitTrap(`"$`+varStatus+`"`) + ";; esac",
		"trap 'exit 130' INT",
		start,
		"case $" + varOpts + " in *e*) set -e;; esac",
		"case $" + varOpts + " in *x*) unset " + varOpts + "; set -x;; *) unset " + varOpts + ";; esac",
		evalStmt,
		")",
	}
}

// needsNested reports whether cmd might replace the wrapper's EXIT or INT
// trap (trap, zsh's TRAPEXIT and TRAPINT functions) or redirect or replace
// the wrapper's own shell (exec): such a command runs in a nested subshell,
// which costs a second fork, so that the outer one still prints the end
// marker. The test is a case-insensitive substring match, so it errs on the
// side of the nested frame ("grep trap", "find -exec").
func needsNested(cmd string) bool {
	l := strings.ToLower(cmd)
	return strings.Contains(l, "trap") || strings.Contains(l, "exec")
}

// posixNestedFrame is the two-subshell frame: the outer subshell holds the
// bookkeeping and catches SIGINT, the nested one runs the command.
func posixNestedFrame(id, evalStmt string) []string {
	start, end := markers(`\command \printf`, id, `"$`+varStatus+`"`)
	return []string{
		"(",
		// Caught (not ignored) in the wrapper, so the nested subshell gets
		// the default back: Ctrl-C kills the command, the wrapper survives.
		"trap : INT",
		varOpts + "=$-",
		"set +e +x",
		start,
		"(",
		"case $" + varOpts + " in *e*) set -e;; esac",
		"case $" + varOpts + " in *x*) unset " + varOpts + "; set -x;; *) unset " + varOpts + ";; esac",
		evalStmt,
		")",
		varStatus + "=$?",
		// ksh93 reports death by signal N as 256+N.
		varStatus + "=$((" + varStatus + " > 255 ? " + varStatus + " % 256 + 128 : " + varStatus + "))",
		end,
		// Leave the command's status in $? unless errexit would then end
		// the interactive shell.
		"case $" + varOpts + " in *e*) exit 0;; esac",
		`exit "$` + varStatus + `"`,
		")",
	}
}

// fishFrame lists the fish wrapper's statements; cmdArg is the -c argument of
// the child fish (whose path is in $__tmx_f) that runs the command.
func fishFrame(id, cmdArg string, withReturn bool) []string {
	start, end := markers("builtin printf", id, "$"+varStatus)
	s := []string{
		"begin",
		// An observed SIGINT does not cancel the running block.
		"function " + fnInterrupt + " --on-signal INT; end",
		"set -l " + varFish + " (status fish-path 2>/dev/null); or set " + varFish + " fish",
		start,
		"$" + varFish + " --no-config --init-command " +
			fishQuote("function "+fnInterrupt+" --on-signal INT; exit 130; end") + " -c " + cmdArg,
		"set -l " + varStatus + " $status",
		"functions -e " + fnInterrupt,
		end,
	}
	if withReturn {
		s = append(s, "return $"+varStatus)
	}
	return append(s, "end")
}

// render joins statements as script lines, or as one physical line.
func render(stmts []string, oneLine bool) string {
	var b strings.Builder
	for i, s := range stmts {
		if i > 0 {
			switch {
			case !oneLine:
				b.WriteByte('\n')
			case stmts[i-1] == "(" || s == ")":
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

// removeSelf deletes the script file. POSIX: the backslashes keep aliases
// (zsh global ones included) away from command and rm; fish has no aliases.
func removeSelf(f Family, quotedPath string) string {
	if f == Fish {
		return "command rm -f -- " + quotedPath
	}
	return `\command \rm -f -- ` + quotedPath
}

// nested reports whether the command must run in the nested frame in program.
func nested(program, cmd string) bool { return !singleFrame(program) || needsNested(cmd) }

func posixScript(id, cmd, path string, nested, selfRemove bool) string {
	stmts := posixFrame(id, "eval "+posixQuote(cmd), nested)
	if selfRemove {
		stmts = append([]string{removeSelf(POSIX, posixQuote(path))}, stmts...)
	}
	return render(stmts, false)
}

func posixInline(id, cmd string, nested bool) string {
	eval := `eval "$(\command \printf '%b' '` + percentB(cmd) + `')"`
	return " " + render(posixFrame(id, eval, nested), true)
}

func fishScript(id, cmd, path string, selfRemove bool) string {
	stmts := fishFrame(id, fishQuote(fishChild(cmd)), true)
	if selfRemove {
		stmts = append([]string{removeSelf(Fish, fishQuote(path))}, stmts...)
	}
	return render(stmts, false)
}

func fishInline(id, cmd string) string {
	arg := "(builtin printf '%b' '" + percentB(fishChild(cmd)) + "' | string collect -N)"
	return " " + render(fishFrame(id, arg, false), true)
}

// fishChild is the child fish's -c script: eval of the quoted command, not
// the command itself, because fish 3.6 exits 0 when a -c script has a syntax
// error, while eval reports 123.
func fishChild(cmd string) string {
	return "builtin eval " + fishQuote(cmd)
}
