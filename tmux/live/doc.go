// Package live reads panes' output as it is printed: it keeps each pane's stream open between
// calls (Streams), reads what a pane printed after a position (Streams.Read), follows a pane's
// output for a waiting reader (Tail), waits until a pane has printed and gone quiet
// (Stream.QuietAfter), and reports while a pane prints (Updates).
//
// A position in a pane's output is a Position: the generation of the stream it belongs to and
// a byte offset in it. A caller may hand it out (as a cursor) and read on from it in a later
// call, as long as the stream is kept; a stream opened anew has a new generation, and a
// position of an older one then says output was missed.
//
// Everything here is woken by the pane's output, never by polling. The package knows nothing
// of MCP.
package live
