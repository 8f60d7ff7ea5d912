// Package runner runs a command in a tmux pane's interactive shell and reports its exit status
// and only its own output (spec engine.md §3): preflight guards, a framed wrapper script typed
// as one short line, and completion driven by the pane's live output stream (never by polling).
//
// It sits between the MCP layer (server) and the engine (tmux, tmux/stream, shellrun): it knows
// nothing of MCP. The caller owns pane reservations and hands Run a release func, which Run calls
// exactly once, when the command has really ended — possibly long after Run returned timed_out or
// cancelled. The end is the wrapper's end marker, the pane's or server's end, or, for a wrapper
// that lost its marker (the command broke its frame), the end of the wrapper's subshell, seen in
// /proc on each chunk of the pane's output (procs.go; bash, dash, ash, mksh and zsh on Linux).
package runner
