// Package shellrun frames a command for an interactive shell and parses the
// framed output back out of a pane's output stream.
//
// It is pure: it knows nothing about tmux or MCP. The engine (see
// spec/engine.md §3) mints an id with [NewID], writes the text from [Script]
// to a private file and types the short line it returns (or types [Inline]
// when the pane's shell cannot read that file, see [SourcingFailed]), then
// feeds the pane's output to [Parse] until Done, and cleans the body with
// [ScrubForeign].
//
// # Framing
//
// The wrapper prints a start marker line "<id>_S", runs the command, then
// prints "<id>_E <status> <id>_D". Both markers are produced at run time by
// printf from octal escapes in its format string, so the literal id appears
// neither in the script, nor in the typed line, nor in any shell variable:
// the echo of the typed line, shell tracing (set -x, set -v, DEBUG traps) and
// the command itself cannot print a valid end marker by accident. Every
// bookkeeping printf is "\command \printf" (POSIX) or "builtin printf"
// (fish): a user's function named printf and aliases of command and printf
// (zsh global aliases included) are bypassed. Nothing in POSIX sh can bypass
// a user function named "command".
//
// POSIX family (sh, ash, dash, bash, ksh, mksh, zsh): the whole wrapper runs
// in a subshell, the command through eval of a single-quoted string, so cd,
// export, exit N, set -e, traps and functions stay inside, a syntax error in
// the command yields a nonzero status instead of breaking the wrapper, and no
// variable of the interactive shell is touched. The interactive shell's
// errexit and xtrace are suspended for the bookkeeping and re-applied for the
// command. A status above 255 (ksh93 reports a command killed by signal N as
// 256+N) is mapped to 128+N. After the run the interactive shell's $? is the
// command's status (0 when the shell has errexit on, so that it does not
// exit). There are two frames ([ScriptFor] and [InlineFor] choose by the
// pane's program and the command):
//
//   - One subshell (ash, dash, bash, mksh, zsh): the command runs in the
//     wrapper's subshell, which costs one fork. An EXIT trap prints the end
//     marker with the status however the subshell ends (the command ends,
//     exit N, a set -e failure), and an INT trap turns Ctrl-C into exit 130,
//     so a builtin loop stays interruptible and the marker still comes (130).
//     A command that replaced the EXIT trap, or redirected or replaced the
//     subshell with exec, would lose the marker, so a command whose text holds
//     "trap" or "exec" (any case: zsh's TRAPEXIT too) gets the nested frame.
//     Trade-off: a command that replaces the traps out of sight (a function
//     of the user's shell that calls trap, a sourced file, eval of built-up
//     text) or kills its own subshell ends without an end marker: the run
//     times out without an exit status (the engine, package runner, then
//     gives the pane back once the wrapper's subshell has ended, which it
//     sees in /proc on Linux). A program the command
//     started that catches Ctrl-C and carries on no longer lets the rest of
//     the command run after it: the subshell exits 130.
//   - Nested (ksh, ksh93, sh, an unknown program, or a command holding "trap"
//     or "exec"): the command runs in a nested subshell. The outer subshell
//     catches SIGINT (trap : INT; the command gets the default disposition
//     back), so a Ctrl-C that kills the command still lets the wrapper print
//     the end marker, with status 130 (ksh93 reports 2: it cuts the
//     256+SIGINT status of an interrupted subshell to 8 bits; for a builtin
//     loop interrupted between two builtins it reports 0). ksh93 keeps
//     this frame because it runs "( )" as a virtual subshell without a fork,
//     where an exit with a signal status from an EXIT trap ends the
//     interactive shell itself; the nested frame costs it no fork either.
//     "sh" keeps it because it may be ksh93.
//
// Fish family: fish has no subshell, and exit inside begin…end would end the
// interactive shell, so the command runs in a child fish,
// "$(status fish-path) --no-config -c 'builtin eval <command>'" (eval because
// fish 3.6 exits 0 from a -c script with a syntax error; eval reports 123).
// Trade-off: the command sees the exported environment, the working
// directory and universal variables, but not functions, abbreviations or
// non-exported variables of the user's config or session. The wrapper's own
// variables are block-local (set -l inside begin…end). Fish cancels a running
// block when it receives SIGINT, so the wrapper defines a SIGINT event
// handler for the duration of the run (erased afterwards) and the child fish
// gets an init-command handler that exits 130: Ctrl-C stops the command and
// the end marker still reports 130. The sourced script leaves the command's
// status in $status; the inline line does not.
//
// Commands are normalised before framing: CRLF and lone CR become LF and
// trailing line breaks are dropped. A NUL byte is refused ([ErrNUL]), and so
// is an empty or blank command ([ErrEmpty]).
package shellrun
