// Package cmdhist follows panes' shell-integration marks (OSC 133, OSC 7) into histories of
// the commands their shells ran: each followed pane's live stream is read by its own goroutine
// into a marks.History, from which Commands lists the commands and Output reads one's output
// as clean lines.
//
// A pane is followed from the first call that asks for it (or from its shell's start, for a
// pane this process created): commands run before are unknown. The package knows nothing of
// MCP.
package cmdhist
