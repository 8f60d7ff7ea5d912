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
// the command. "(" and ")" stand alone so render can lay them out.
func posixFrame(id, evalStmt string) []string {
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

func posixScript(id, cmd, path string) string {
	stmts := append([]string{removeSelf(POSIX, posixQuote(path))}, posixFrame(id, "eval "+posixQuote(cmd))...)
	return render(stmts, false)
}

func posixInline(id, cmd string) string {
	eval := `eval "$(\command \printf '%b' '` + percentB(cmd) + `')"`
	return " " + render(posixFrame(id, eval), true)
}

func fishScript(id, cmd, path string) string {
	stmts := append([]string{removeSelf(Fish, fishQuote(path))}, fishFrame(id, fishQuote(fishChild(cmd)), true)...)
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
