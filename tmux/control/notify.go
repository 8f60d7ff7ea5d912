package control

import (
	"bytes"
	"strings"
)

// Output is one decoded %output or %extended-output notification.
type Output struct {
	// Pane is the pane id as tmux writes it, e.g. "%3".
	Pane string
	// Data is the decoded bytes. In Options.OnOutput it is only valid during
	// the call (the buffer is reused); ParseOutput returns a fresh slice.
	Data []byte
	// Age is how long, in milliseconds, tmux held the data before sending it
	// (%extended-output only; 0 for %output).
	Age int64
	// Extended reports that the line was %extended-output.
	Extended bool
}

// Notification is a `%name args…` line that arrived outside a block and is
// not pane output: %window-add, %session-changed, %pause, %exit, ... and any
// notification this package does not know (they are passed through, never
// dropped).
type Notification struct {
	// Name is the notification name without the leading %, e.g. "window-add".
	Name string
	// Args are the words after the name, split on single spaces (so
	// strings.Join(Args[i:], " ") restores the text; see Tail).
	Args []string
	// Raw is the whole line as received, without the newline.
	Raw string
}

// Tail returns the text from argument i to the end of the line, for
// notifications whose last field may hold spaces (session and window names,
// %message, %config-error, %exit reasons). It returns "" when i is out of
// range.
func (n Notification) Tail(i int) string {
	if i < 0 || i >= len(n.Args) {
		return ""
	}
	return strings.Join(n.Args[i:], " ")
}

// ParseNotification splits a % line into its name and arguments. A line
// without the leading % is returned with an empty Name and the whole line in
// Raw, so nothing is lost.
func ParseNotification(line string) Notification {
	n := Notification{Raw: line}
	if !strings.HasPrefix(line, "%") {
		return n
	}
	rest := line[1:]
	name, args, found := strings.Cut(rest, " ")
	n.Name = name
	if found {
		n.Args = strings.Split(args, " ")
	}
	return n
}

var (
	prefixOutput   = []byte("%output ")
	prefixExtended = []byte("%extended-output ")
)

// ParseOutput parses a %output or %extended-output line (without its
// newline) and decodes its data into a new slice. It reports false for any
// other or malformed line.
func ParseOutput(line []byte) (Output, bool) {
	h, data, ok := splitOutput(line)
	if !ok {
		return Output{}, false
	}
	o := h.Output
	o.Pane = string(h.paneBytes(line))
	o.Data = DecodeOutput(nil, data)
	return o, true
}

// outputHeader is what splitOutput finds before decoding.
type outputHeader struct {
	Output
	paneStart, paneEnd int
}

func (h outputHeader) paneBytes(line []byte) []byte { return line[h.paneStart:h.paneEnd] }

// paneField reads the pane id that starts at line[start] and ends at a space: the header
// naming it, and what follows the space.
func paneField(line []byte, start int) (outputHeader, []byte, bool) {
	var h outputHeader
	sp := bytes.IndexByte(line[start:], ' ')
	if sp < 0 {
		return h, nil, false
	}
	h.paneStart, h.paneEnd = start, start+sp
	if !validPane(line[h.paneStart:h.paneEnd]) {
		return h, nil, false
	}
	return h, line[start+sp+1:], true
}

// splitOutput finds the pane, age and raw data of an output line without
// allocating.
func splitOutput(line []byte) (outputHeader, []byte, bool) {
	switch {
	case bytes.HasPrefix(line, prefixOutput):
		// %output %<pane> <data>
		return paneField(line, len(prefixOutput))
	case bytes.HasPrefix(line, prefixExtended):
		// %extended-output %<pane> <age> [reserved args...] : <data>
		h, rest, ok := paneField(line, len(prefixExtended))
		if !ok {
			return h, nil, false
		}
		// The argument list ends at the first " : "; the data may hold
		// " : " itself, arguments never do.
		var args, data []byte
		if i := bytes.Index(rest, []byte(" : ")); i >= 0 {
			args, data = rest[:i], rest[i+3:]
		} else if bytes.HasSuffix(rest, []byte(" :")) {
			args = rest[:len(rest)-2]
		} else {
			return h, nil, false
		}
		ageText := args
		if i := bytes.IndexByte(args, ' '); i >= 0 {
			ageText = args[:i]
		}
		age, ok := parseUint(ageText)
		if !ok {
			return h, nil, false
		}
		h.Age = age
		h.Extended = true
		return h, data, true
	}
	return outputHeader{}, nil, false
}

// validPane reports whether b looks like a pane id: % followed by digits.
func validPane(b []byte) bool {
	if len(b) < 2 || b[0] != '%' {
		return false
	}
	_, ok := parseUint(b[1:])
	return ok
}

// parseUint parses a non-empty run of decimal digits that fits an int64.
func parseUint(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// isFlowControl reports whether line is exactly `%pause %N` or
// `%continue %N`.
func isFlowControl(line []byte) bool {
	var rest []byte
	switch {
	case bytes.HasPrefix(line, []byte("%pause ")):
		rest = line[len("%pause "):]
	case bytes.HasPrefix(line, []byte("%continue ")):
		rest = line[len("%continue "):]
	default:
		return false
	}
	return validPane(rest)
}
