package shellrun

import "bytes"

// Parsed is what Parse found of one run in a pane's output.
type Parsed struct {
	// Done means the end marker "<id>_E <status> <id>_D" was found.
	Done bool
	// Status is the command's exit status, 0..255, when Done.
	Status int
	// Started means the start marker line "<id>_S" was found.
	Started bool
	// Body is the output between the start marker line and the end marker
	// (from the beginning of the input when !Started), as raw terminal bytes
	// (CRLF, escape sequences): the caller's text filter cleans it. One line
	// break right before the end marker is dropped. While !Done, Body holds
	// back a trailing fragment that could be the beginning of the end marker
	// and one trailing line break, so a partial Body is always a prefix of the
	// final one. Body is a copy; it never aliases the input.
	Body []byte
	// End is the offset in the input just past the end marker's "_D" when
	// Done (what follows is the shell's prompt), else 0.
	End int
}

// span is Parse's result with offsets, for tests and fuzzing.
type span struct {
	Parsed
	bodyStart, bodyEnd int // Body == out[bodyStart:bodyEnd]
	endStart           int // offset of the end marker when Done
}

// Parse looks for the markers of run id in raw pane output.
//
// The start marker counts when "<id>_S" is followed, on its line, only by
// CR, spaces, tabs or escape sequences, then LF or the end of the input. The
// end marker is the first "<id>_E <status> <id>_D" after the start line (after
// the beginning when there is none) whose status is 0 or 1-3 digits without a
// leading zero, at most 255, and whose "_D" is followed by the end of the
// input, CR, LF, a space, a tab or ESC; anything else is skipped and the scan
// goes on. A malformed id finds nothing.
func Parse(out []byte, id string) Parsed {
	return parse(out, id).Parsed
}

func parse(out []byte, id string) span {
	var s span
	if !ValidID(id) {
		return s
	}
	s.bodyStart = findStart(out, id)
	if s.bodyStart >= 0 {
		s.Started = true
	} else {
		s.bodyStart = 0
	}
	endTok := []byte(id + "_E ")
	for from := s.bodyStart; from < len(out); {
		i := bytes.Index(out[from:], endTok)
		if i < 0 {
			break
		}
		at := from + i
		if st, end, ok := endMarkerAt(out, at, id); ok {
			s.Done, s.Status, s.End, s.endStart = true, st, end, at
			s.bodyEnd = at - trailingBreak(out[s.bodyStart:at], false)
			s.Body = bytes.Clone(out[s.bodyStart:s.bodyEnd])
			return s
		}
		from = at + 1
	}
	// Not done: hold back a possible marker prefix and one line break.
	hold := len(out) - partialMarkerLen(out[s.bodyStart:], id)
	s.bodyEnd = hold - trailingBreak(out[s.bodyStart:hold], true)
	s.Body = bytes.Clone(out[s.bodyStart:s.bodyEnd])
	return s
}

// findStart returns the offset just past the line holding the start marker,
// or -1.
func findStart(out []byte, id string) int {
	tok := []byte(id + "_S")
	for from := 0; from < len(out); {
		i := bytes.Index(out[from:], tok)
		if i < 0 {
			return -1
		}
		at := from + i
		j := at + len(tok)
		for j < len(out) {
			c := out[j]
			if c == '\r' || c == ' ' || c == '\t' {
				j++
				continue
			}
			if c == 0x1b {
				j += escapeLen(out[j:])
				continue
			}
			break
		}
		if j >= len(out) {
			return len(out)
		}
		if out[j] == '\n' {
			return j + 1
		}
		from = at + 1
	}
	return -1
}

// endMarkerAt checks for a complete, valid end marker at out[at:], which is
// known to begin with "<id>_E ". It returns the status and the offset just
// past "_D".
func endMarkerAt(out []byte, at int, id string) (status, end int, ok bool) {
	j := at + len(id) + len("_E ")
	digits := 0
	for j+digits < len(out) && digits < 4 && out[j+digits] >= '0' && out[j+digits] <= '9' {
		digits++
	}
	if digits == 0 || digits > 3 || (digits > 1 && out[j] == '0') {
		return 0, 0, false
	}
	for k := 0; k < digits; k++ {
		status = status*10 + int(out[j+k]-'0')
	}
	if status > 255 {
		return 0, 0, false
	}
	j += digits
	if j >= len(out) || out[j] != ' ' {
		return 0, 0, false
	}
	j++
	if !bytes.HasPrefix(out[j:], []byte(id)) || !bytes.HasPrefix(out[j+len(id):], []byte("_D")) {
		return 0, 0, false
	}
	j += len(id) + 2
	if j < len(out) {
		switch out[j] {
		case '\r', '\n', ' ', '\t', 0x1b:
		default:
			return 0, 0, false
		}
	}
	return status, j, true
}

// partialMarkerLen returns the length of the longest proper suffix of b that
// could grow into a valid end marker ("<id>_E <status> <id>_D").
func partialMarkerLen(b []byte, id string) int {
	maxLen := 2*len(id) + len("_E ") + 3 + len(" ") + len("_D")
	first := len(b) - maxLen
	if first < 0 {
		first = 0
	}
	for p := first; p < len(b); p++ {
		if b[p] == id[0] && markerPrefix(b[p:], id) {
			return len(b) - p
		}
	}
	return 0
}

// markerPrefix reports whether all of b is consumed by the end-marker grammar
// before it completes or fails.
func markerPrefix(b []byte, id string) bool {
	lit := func(s string) bool { // consumes s; false on mismatch
		n := min(len(s), len(b))
		if string(b[:n]) != s[:n] {
			return false
		}
		b = b[n:]
		return true
	}
	if !lit(id+"_E ") || len(b) == 0 {
		return len(b) == 0
	}
	digits := 0
	for digits < len(b) && digits < 3 && b[digits] >= '0' && b[digits] <= '9' {
		digits++
	}
	if digits == 0 || (digits > 1 && b[0] == '0') {
		return false
	}
	status := 0
	for _, c := range b[:digits] {
		status = status*10 + int(c-'0')
	}
	if status > 255 {
		return false
	}
	b = b[digits:]
	if len(b) == 0 {
		return true
	}
	// A complete marker here would already have been found valid by Parse,
	// so only a true prefix matters; a fourth digit fails the literal.
	return lit(" "+id+"_D") && len(b) == 0
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
