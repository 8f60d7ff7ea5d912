package shellrun

import (
	"bytes"
	"strconv"
)

// The markers are OSC escape sequences of a number no terminal uses, so tmux passes them on in
// control mode's %output (which carries the pane's raw bytes) but draws nothing: they never
// reach the screen, the scrollback, capture-pane or a person's terminal.
//
//	start:  ESC ] 6973 ; <id> ; S BEL
//	end:    ESC ] 6973 ; <id> ; E ; <status> BEL
//	failed: ESC ] 6973 ; <id> ; X ; <reason> BEL   (the wrapper could not frame the command)
const (
	oscPrefix = "\x1b]6973;"
	bel       = '\a'
	// maxReason bounds a failure marker's reason.
	maxReason = 128
)

// Parsed is what Parse found of one run in a pane's output.
type Parsed struct {
	// Started means the start marker was found.
	Started bool
	// Done means the end marker was found; Status is then the command's exit status, 0..255.
	Done   bool
	Status int
	// Failed holds the reason of a failure marker: the wrapper ran but refused to run the
	// command, because a definition in the shell would have subverted it (see doc.go).
	Failed string
	// Body is the output between the start marker and the end marker (from the beginning of
	// the input when !Started), as raw terminal bytes: the caller's text filter cleans it.
	// The line break that ends the last line ("\r\n" or "\n") is not part of it, so blank
	// lines at the end are ("echo; echo x; echo" gives "\r\nx\r\n"). While !Done, Body
	// holds back a trailing fragment that could be the beginning of the end marker and one
	// trailing line break, so a partial Body is always a prefix of the final one. Body is a
	// copy.
	Body []byte
	// End is the offset just past the end (or failure) marker, else 0.
	End int
	// Foreign lists the ids of other runs whose markers appear in Body.
	Foreign []string
}

// Parse looks for the markers of run id in raw pane output. A marker counts only whole,
// with this id; text that merely looks like one (a command printing "tmx..._E 0") is output.
func Parse(out []byte, id string) Parsed {
	var p Parsed
	if !ValidID(id) {
		return p
	}
	// The start marker comes first; the end marker counts only after it, or when it is
	// the first marker of this id (the start was lost). Only the first marker of the id
	// decides which, so a longer output never undoes what a shorter one found.
	bodyStart := 0
	for from := 0; ; {
		m, ok := nextMarker(out, from)
		if !ok {
			break
		}
		from = m.End
		if m.ID != id {
			continue
		}
		if m.Kind == 'X' {
			p.Failed, p.End = m.Reason, m.End
			return p
		}
		if m.Kind == 'S' {
			p.Started, bodyStart = true, m.End
		}
		break
	}
	for from := bodyStart; ; {
		m, ok := nextMarker(out, from)
		if !ok {
			break
		}
		from = m.End
		if m.ID != id || m.Kind == 'S' {
			continue
		}
		if m.Kind == 'X' {
			p.Failed, p.End = m.Reason, m.End
			return p
		}
		p.Done, p.Status, p.End = true, m.Status, m.End
		body := out[bodyStart:m.Start]
		p.Body = bytes.Clone(body[:len(body)-trailingBreak(body, false)])
		p.Foreign = foreignIDs(p.Body, id)
		return p
	}
	end := len(out) - partialMarkerLen(out[bodyStart:])
	end -= trailingBreak(out[bodyStart:end], true)
	p.Body = bytes.Clone(out[bodyStart:end])
	p.Foreign = foreignIDs(p.Body, id)
	return p
}

// Kinds of markers.
const (
	StartMarker = 'S'
	EndMarker   = 'E'
	FailMarker  = 'X'
)

// Marker is one complete marker found in output.
type Marker struct {
	Start, End int // out[Start:End] is the whole sequence
	ID         string
	Kind       byte // StartMarker, EndMarker or FailMarker
	Status     int  // of an end marker
	Reason     string
}

// NextMarker finds the first complete, well-formed marker of any run at or after from.
func NextMarker(out []byte, from int) (Marker, bool) { return nextMarker(out, from) }

// PartialMarker returns the length of the longest suffix of b that could still grow into a
// marker.
func PartialMarker(b []byte) int { return partialMarkerLen(b) }

// TrailingBreak returns the length of one line break at the end of b: "\r\n" or "\n", and
// with partial also a lone "\r" (the "\n" may be on its way).
func TrailingBreak(b []byte, partial bool) int { return trailingBreak(b, partial) }

// nextMarker finds the first complete, well-formed marker at or after from.
func nextMarker(out []byte, from int) (Marker, bool) {
	for from < len(out) {
		i := bytes.Index(out[from:], []byte(oscPrefix))
		if i < 0 {
			return Marker{}, false
		}
		at := from + i
		from = at + 1
		if m, ok := markerAt(out, at); ok {
			return m, true
		}
	}
	return Marker{}, false
}

// markerAt parses the marker that begins at out[at] (known to start with oscPrefix).
func markerAt(out []byte, at int) (Marker, bool) {
	rest := out[at+len(oscPrefix):]
	bell := bytes.IndexByte(rest, bel)
	if bell < IDLen+2 || bell > IDLen+3+maxReason {
		return Marker{}, false
	}
	body := rest[:bell]
	m := Marker{Start: at, End: at + len(oscPrefix) + bell + 1, ID: string(body[:IDLen])}
	if !ValidID(m.ID) || body[IDLen] != ';' {
		return Marker{}, false
	}
	kind, arg := body[IDLen+1:], []byte(nil)
	if len(kind) > 1 {
		if kind[1] != ';' {
			return Marker{}, false
		}
		kind, arg = kind[:1], kind[2:]
	}
	m.Kind = kind[0]
	switch m.Kind {
	case StartMarker:
		return m, arg == nil
	case EndMarker:
		st, ok := parseStatus(arg)
		m.Status = st
		return m, ok
	case FailMarker:
		m.Reason = string(arg)
		return m, len(arg) > 0
	}
	return Marker{}, false
}

// parseStatus accepts 0..255 written without a leading zero.
func parseStatus(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 3 || len(b) > 1 && b[0] == '0' {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, _ := strconv.Atoi(string(b))
	return n, n <= 255
}

// partialMarkerLen returns the length of the longest suffix of b that could still grow into
// a marker: an unterminated OSC 6973 sequence near the end.
func partialMarkerLen(b []byte) int {
	limit := len(oscPrefix) + IDLen + 4 + maxReason
	for p := max(0, len(b)-limit); p < len(b); p++ {
		if b[p] != 0x1b {
			continue
		}
		tail := b[p:]
		n := min(len(tail), len(oscPrefix))
		if string(tail[:n]) == oscPrefix[:n] && bytes.IndexByte(tail, bel) < 0 {
			return len(b) - p
		}
	}
	return 0
}

// trailingBreak returns the length of one line break at the end of b: "\r\n"
// or "\n", and with partial also a lone "\r" (the "\n" may be on its way).
func trailingBreak(b []byte, partial bool) int {
	n := len(b)
	switch {
	case n >= 2 && b[n-2] == '\r' && b[n-1] == '\n':
		return 2
	case n >= 1 && b[n-1] == '\n':
		return 1
	case partial && n >= 1 && b[n-1] == '\r':
		return 1
	}
	return 0
}

// foreignIDs lists the ids, other than ours, of the markers in b.
func foreignIDs(b []byte, ours string) []string {
	var ids []string
	for from := 0; ; {
		m, ok := nextMarker(b, from)
		if !ok {
			return ids
		}
		from = m.End
		if m.ID != ours && !contains(ids, m.ID) {
			ids = append(ids, m.ID)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// escapeLen returns the length of the escape sequence at the start of b
// (b[0] == ESC): CSI, OSC/DCS/APC/PM/SOS strings, or a two-byte sequence.
// An unterminated sequence extends to the end of b.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return len(b)
	}
	switch b[1] {
	case '[':
		for i := 2; i < len(b); i++ {
			if b[i] >= 0x40 && b[i] <= 0x7e {
				return i + 1
			}
		}
		return len(b)
	case ']', 'P', '_', '^', 'X':
		for i := 2; i < len(b); i++ {
			if b[i] == 0x07 {
				return i + 1
			}
			if b[i] == 0x1b && i+1 < len(b) && b[i+1] == '\\' {
				return i + 2
			}
		}
		return len(b)
	}
	return 2
}
