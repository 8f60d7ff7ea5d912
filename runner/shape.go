package runner

import (
	"bytes"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// shaped is a body turned into the lines a result returns.
type shaped struct {
	lines   []string
	dropped int   // lines withheld by maxLines (and lines cut before the window)
	omitted int64 // bytes withheld by the byte ceiling (and the per-line cap)
	alt     bool  // the body left the terminal on the alternate screen
}

// shape turns a run's body into the text an agent reads: the text filter (what a screen shows,
// not the escape sequences that drew it; markers of other runs are such sequences), then the last maxLines lines within maxBytes (counting one LF between
// lines). A body ending in a line break ends with an empty line: blank lines at the end of the
// output are kept. cutLines are lines already cut from the body's front.
func shape(body []byte, cutLines, maxLines, maxBytes int) shaped {
	// A full-screen program the command ran (an editor, a pager) leaves nothing in the output.
	// The filter keeps only the lines maxLines can return (with the partial line, one more).
	f := stream.Filter{SkipAlternate: true, KeepLast: max(maxLines, 0)}
	f.Write(body)
	f.Flush()
	lines := f.Lines()
	if p := f.Partial(); p != "" || bytes.HasSuffix(body, []byte{'\n'}) {
		lines = append(lines, p)
	}
	s := shaped{omitted: f.Truncated(), dropped: cutLines + f.Dropped(), alt: f.Alternate()}
	if maxLines > 0 && len(lines) > maxLines {
		s.dropped += len(lines) - maxLines
		lines = lines[len(lines)-maxLines:]
	}
	// Keep the newest lines that fit in maxBytes.
	total, k := 0, len(lines)
	for k > 0 {
		n := len(lines[k-1])
		if k < len(lines) {
			n++ // the LF joining it to the next line
		}
		if total+n > maxBytes {
			break
		}
		total += n
		k--
	}
	if k > 0 {
		keepTail := k == len(lines) // not even the last line fits: keep its tail
		if keepTail {
			k--
		}
		for _, l := range lines[:k] {
			s.omitted += int64(len(l)) + 1
		}
		lines = lines[k:]
		if keepTail {
			tail := stream.TailBytes(lines[0], maxBytes)
			s.omitted += int64(len(lines[0]) - len(tail))
			lines[0] = tail
		}
	}
	s.lines = lines
	return s
}

func join(lines []string) string { return strings.Join(lines, "\n") }
