// Package runner runs a command in a tmux pane's interactive shell and reports its exit status
// and only its own output (not the prompt, the typed line or other programs' output), driven
// by the pane's live output stream (never by polling).
//
// It sits between the MCP layer (server) and the engine (tmux, tmux/stream, shellrun): it knows
// nothing of MCP. A Runner owns a run whole (Run): the preflight (Check), the pane's
// reservation (one run per pane; other input is refused meanwhile, see Holder), finding the
// shell that will read the typed line (the terminal's foreground process in /proc, waited for
// while it starts), clearing what was left on its command line, typing the line and pressing
// Enter only once the shell shows it as typed, and following the output to the end marker.
//
// A run ends with its end marker, its pane's or server's end, Abandon (the pane was killed or
// respawned), or, for a wrapper that lost its marker (the command broke its frame), the end of
// the wrapper's subshell, seen in /proc on each chunk of the pane's output (procs.go; bash,
// dash, ash, mksh and zsh on Linux). A run that outlives its call (timed out, cancelled) keeps
// its pane until then; its Record (Last) holds its result until the next run in the pane, and
// Await waits for it. Input for the running command (an answer to its question) goes through
// Input, which leaves the echo out of the run's output.
package runner
