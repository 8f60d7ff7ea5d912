// Package shellrun frames a command for an interactive shell and parses the framed output
// back out of a pane's output stream.
//
// It is pure: it knows nothing about tmux or MCP. The runner (package runner) mints an
// id with [NewID], types [ClearKeys] and [Line] into the pane, waits until the shell shows the
// line, writes the text from [Script] to the path the line names (with a [Redraw] for where
// the line sits on the screen), presses Enter, and feeds the pane's output to [Parse] until
// Done. When the pane's shell cannot read that file ([SourcingFailed]) it types [Inline]
// instead.
//
// # Markers
//
// The wrapper prints a start marker before the command runs and an end marker with its exit
// status after it. They are OSC escape sequences of a number no terminal uses (ESC ] 6973 ;
// <id> ; S BEL and ESC ] 6973 ; <id> ; E ; <status> BEL): tmux passes them on in control
// mode's %output, which carries the pane's raw bytes, but draws nothing, so they never reach
// the screen, the scrollback, capture-pane or a person's terminal, and text that merely looks
// like a marker is output like any other. printf writes them from octal escapes, so the
// literal id appears neither in the script, nor in the typed line, nor in any variable: the
// echo, shell tracing and the command itself cannot print a valid marker by accident. A third
// marker (X) says the wrapper refused to run the command (see below).
//
// # No traces
//
// Before the start marker the wrapper moves the cursor back to where the typed line began,
// erases it and prints the command there, so the prompt line reads as if a person had typed
// the command. bash removes the typed line from its history whatever HISTCONTROL says (when
// the last entry is that line), and with Options.History records the command itself instead;
// zsh, ksh93 and mksh record the command with print -s. The typed line starts with a space:
// fish and mksh never record such a line, bash and zsh not when configured to
// (HISTCONTROL=ignorespace, HIST_IGNORE_SPACE). zsh (without HIST_IGNORE_SPACE), ksh93 and
// busybox ash offer no way to delete a history entry: there the typed line stays in the
// history. zsh's wrapper subshell runs with SAVEHIST=0: zsh saves the whole history to
// $HISTFILE whenever a subshell of an interactive shell runs exit.
//
// # Definitions in the user's shell
//
// Nothing the user defined may break the frame or fake its result. A backslash before every
// command word defeats aliases (zsh's global ones too; zsh also reads the wrapper with
// aliases off, set by assignment to $options). Functions are defeated per shell (dialect.go):
//
//   - bash: the typed line is "{ { __tmx_p=$SHELLOPTS POSIXLY_CORRECT=y; __tmx_o=$-; \set +x;
//     } 2>/dev/null; \. <path>; }". The assignment turns POSIX mode on, in which special builtins (. eval exit return set trap
//     unset) win over functions; regular builtins go through "builtin" after the wrapper's own
//     subshell removed functions named builtin and command. POSIX mode goes off again before
//     the command runs, and after the wrapper through a RETURN trap (which keeps $? at the
//     command's status).
//   - dash, busybox ash, ksh93: a function cannot take a special builtin's name; printf goes
//     through "command" (a function named command is removed in the wrapper's subshell).
//   - mksh: special builtins are looked up before functions; printf is the external one,
//     through "command".
//   - zsh: functions win over every builtin, so everything goes through "builtin". The typed
//     line uses "builtin ." only when "." is a function, and the wrapper checks
//     ${+functions[builtin]} (syntax no definition can reach) and, when builtin itself is a
//     function, prints the failure marker instead of running anything.
//   - fish reserves builtin, command, begin, end, set, status, function and return; the rest
//     goes through "builtin".
//
// The command therefore does not see user functions named builtin or command. The typed line
// is a brace group: should text the engine failed to clear remain on the command line in
// front of it, the whole line is a syntax error instead of a command. Aliases named like
// reserved words (if, case, {) are not defeated in bash and zsh: the line is then a syntax
// error, which the engine notices.
//
// # Frames
//
// POSIX shells run the command in a subshell, through eval of a quoted string, so cd, export,
// exit N, set -e, traps and functions stay inside, a syntax error in the command yields a
// nonzero status instead of breaking the wrapper, and no variable of the interactive shell is
// left changed (the wrapper's own are removed). The interactive shell's errexit, xtrace and
// verbose are suspended for the bookkeeping and given back to the command (but verbose: see
// "Verbose mode and errexit"). Tracing goes off
// first, untraced where the shell allows (see "Tracing" below), and comes back last. A status above 255
// (ksh93 reports death by signal N as 256+N) is mapped to 128+N. After the run the
// interactive shell's $? is the command's status (0 when it has errexit on, so that it does
// not exit).
//
//   - One subshell (bash, zsh, dash, ash, mksh): an EXIT trap prints the end marker however
//     the subshell ends, and an INT trap turns Ctrl-C into exit 130. A command whose text
//     holds "trap" or "exec" (it could replace the EXIT trap or the subshell) gets the nested
//     frame instead, and so does every command in an mksh with tracing on (mksh traces to the
//     stderr set -x found, so the EXIT trap would trace its first statement into the output).
//     In bash and zsh the interactive shell prints the end marker again after the subshell
//     (the first one counts), for a subshell that ended without its trap: zsh's exits so on
//     an expansion error (${var?}), and any does when killed or when a function of the
//     user's replaced the trap.
//   - Nested (an unknown sh, and those commands): the outer subshell catches SIGINT and
//     prints the end marker after the inner one, which runs the command; the outer subshell
//     never traces.
//   - ksh93 runs subshells without a fork, where an EXIT trap's exit with a signal status
//     ends the interactive shell and an outer INT catcher keeps a command's own INT trap from
//     running: its end marker is printed after the subshell by the interactive shell.
//
// Fish has no subshell, and exit inside begin…end would end the interactive shell, so the
// command runs in a child fish, "$(status fish-path) --no-config -c 'builtin eval
// <command>'" (eval because fish 3.6 exits 0 from a -c script with a syntax error; eval
// reports 123). The command sees the exported environment, the working directory and
// universal variables, but not functions, abbreviations or non-exported variables of the
// user's config or session. A SIGINT handler defined for the run keeps Ctrl-C from cancelling
// the wrapper's block, and the child's exits 130.
//
// # Tracing
//
// With tracing on (set -x, fish_trace) the output holds the command's own trace and nothing of
// the wrapper's, and the shell traces as before after the run. bash, dash and ash trace to
// the current stderr: the typed line notes $- and runs set +x in a group sent to /dev/null
// (bash after turning POSIX mode on, so that set is the builtin), before the "."; zsh notes
// ${options[xtrace]} there likewise (a "." run while tracing traces the whole file to the
// stderr it had), and its zshaddhistory hook traces itself to /dev/null; with a preexec hook
// (traced before the line runs) the typed line is not redrawn. ksh93 traces a redirection
// itself and mksh traces to the stderr set -x saw: their typed line's "." (and mksh's set +x)
// are traced, and the redraw goes up the rows they took too (counted from a literal PS4 and
// $COLUMNS), erasing them; mksh gives -x back through eval with [[ ]] (untraced) in place of
// return, so $? is then 0 or 1. fish traces whatever a block redirects: the wrapper empties
// fish_trace (one traced statement, erased by the redraw with the typed line's) and a
// fish_postexec handler, which fish runs untraced, sets it back once the typed line ended;
// the child fish that runs the command is not traced. Inline (after SourcingFailed) first
// gives tracing back where a typed line turned it off.
//
// # Verbose mode and errexit
//
// The typed line notes the options and turns errexit and verbose off before its "." (bash,
// dash, ash, zsh in the group that turns tracing off; ksh93 and mksh in a case, whose two
// traced statements the redraw also erases): a failed "." then never ends a shell with set -e,
// and the shell echoes nothing of the script as it reads it, only the typed line, whose echo
// the redraw erases (Redraw.Echo rows more, when verbose was on). The command runs without
// verbose (the shell would echo its text, and bash the EXIT trap's, into the output); the shell
// gets it back at the end (bash: its RETURN trap, which it echoes as it parses it, runs with
// stderr on /dev/null, kept in fd $__tmx_2 and given back first). Inline gives errexit and
// verbose back, with tracing, before its subshell.
//
// Commands are normalised before framing: CRLF and lone CR become LF and trailing line breaks
// are dropped. A NUL byte is refused ([ErrNUL]), and so is an empty or blank command
// ([ErrEmpty]).
package shellrun
