// Package stream holds live pane streams: per-pane output rings with
// absolute byte offsets, a UTF-8 holdback that keeps multi-byte characters
// whole across %output chunks, a text filter that turns terminal output into
// lines, and a Hub that opens one control-mode connection per tmux session
// holding a watched pane and feeds the rings from its %output notifications.
//
// Everything here is event driven: readers block on channels that writers
// close, never on timers or polling. The package knows nothing of MCP.
package stream
