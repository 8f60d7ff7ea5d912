package stream

import (
	"unicode/utf8"
)

// DefaultMaxLine is the per-line cap of a Filter when none is set: 256 KiB.
const DefaultMaxLine = 256 << 10

// Filter states.
const (
	stGround   = iota
	stEsc      // after ESC
	stEscInter // ESC + intermediate bytes
	stCSI      // ESC [ ...
	stOSC      // ESC ] ... until BEL or ST
	stString   // ESC P, _, ^, X, k ... until ST
)

const (
	bel = 0x07
	bs  = 0x08
	tab = 0x09
	lf  = 0x0A
	cr  = 0x0D
	can = 0x18
	sub = 0x1A
	esc = 0x1B
	del = 0x7F
)

// tabRun is TAB as a text run.
var tabRun = []byte{tab}

// Filter turns a terminal byte stream into lines of plain text. It is
// stateful across Write calls, so escape sequences and UTF-8 characters may
// be split anywhere; use one Filter per reader.
//
// It strips CSI sequences (ESC [ … final), OSC strings (ESC ] … BEL or ST),
// DCS, APC, PM, SOS and tmux title strings (ESC P, _, ^, X, k … ST), other
// escape sequences (ESC, intermediates, final) and every C0 control except
// TAB and LF. CRLF becomes LF. A lone CR restarts the current line: what the
// line held is discarded once the next character arrives, so a progress
// bar's last state wins (a line ended by CR LF keeps its text). Backspace
// erases the previous character of the current line. ESC [ 2 K, and ESC [ K
// right after a CR, clear the current line. ESC [ n C at the start of a line
// becomes n blanks (at most 256). ESC [ n D moves back over the current line's
// characters, and what follows is written over them, as a line editor redraws
// the words of a typed line in colour (zsh-syntax-highlighting); backspace, ESC
// [ n C (up to the line's end) and ESC [ K then act at that place, until the
// line's end is reached again. Invalid UTF-8 becomes U+FFFD, so
// every line is valid UTF-8 without ESC, CR or other controls. Cursor
// addressing is not emulated: full-screen programs read jumbled.
//
// A line longer than MaxLine bytes keeps its last MaxLine bytes (the newest
// output, as for the ring); the bytes cut are counted by Truncated.
//
// The zero value is ready to use. A Filter is not safe for concurrent use.
type Filter struct {
	// MaxLine caps a line in bytes; DefaultMaxLine when <= 0.
	MaxLine int
	// SkipAlternate drops what is drawn on the alternate screen (between ESC [ ? 1049 h and
	// ESC [ ? 1049 l, or 1047, or 47): a full-screen program's display, which leaves no lines
	// behind when it exits.
	SkipAlternate bool
	alt           bool // on the alternate screen
	// KeepLast, when > 0, keeps only the newest KeepLast completed lines for Lines: older ones
	// are dropped as they complete, and counted by Dropped. A reader that wants the tail of a
	// long output (a run's last lines) then holds that tail, not every line (seq 1 100000
	// would otherwise hold 100,000 strings, about 3 MB).
	KeepLast int
	dropped  int

	state     uint8
	crPending bool // a CR was seen: the next character restarts the line
	csiArg    int  // first numeric CSI parameter, -1 when not plain digits
	csiOther  bool // the CSI had private or intermediate bytes
	cur       []byte
	moved     bool   // a cursor move left: the next text overwrites cur from at, not appended
	at        int    // where in cur (bytes), when moved
	done      []byte // completed lines, concatenated (one allocation per Lines call)
	ends      []int  // end offset in done of each completed line
	hold      Holdback
	scratch   []byte
	truncated int64
}

// Write feeds p through the filter. Completed lines are collected for
// Lines.
func (f *Filter) Write(p []byte) {
	for i := 0; i < len(p); {
		if f.state == stGround {
			i = f.ground(p, i)
			continue
		}
		if f.seq(p[i]) {
			i++
		}
	}
}

// ground reads the text run or the control at p[i] and returns the index after it.
func (f *Filter) ground(p []byte, i int) int {
	j := i
	for j < len(p) && p[j] >= 0x20 && p[j] != del {
		j++
	}
	if j > i {
		f.text(p[i:j], j == len(p))
		return j
	}
	f.control(p[i])
	return i + 1
}

// seq reads byte c of an escape sequence. It returns false when c is not part of the sequence
// (a byte >= 0x80 ends it): c is then read again as text.
func (f *Filter) seq(c byte) bool {
	switch f.state {
	case stEsc:
		return f.esc(c)
	case stEscInter:
		return f.escInter(c)
	case stCSI:
		return f.csi(c)
	}
	f.str(c) // stOSC, stString
	return true
}

// esc reads the byte after ESC.
func (f *Filter) esc(c byte) bool {
	switch {
	case c == '[':
		f.state, f.csiArg, f.csiOther = stCSI, 0, false
	case c == ']':
		f.state = stOSC
	case c == 'P' || c == '_' || c == '^' || c == 'X' || c == 'k':
		f.state = stString
	case c >= 0x20 && c <= 0x2F:
		f.state = stEscInter
	case c >= 0x30 && c <= 0x7E:
		f.state = stGround
	case c >= 0x80:
		f.state = stGround
		return false // not part of a sequence: reprocess as text
	default:
		f.control(c)
	}
	return true
}

// escInter reads a byte of an escape sequence after its intermediates began.
func (f *Filter) escInter(c byte) bool {
	switch {
	case c >= 0x20 && c <= 0x2F:
	case c >= 0x30 && c <= 0x7E:
		f.state = stGround
	case c >= 0x80:
		f.state = stGround
		return false
	default:
		f.control(c)
	}
	return true
}

// csi reads a byte of a CSI sequence: its first numeric parameter, then its final byte.
func (f *Filter) csi(c byte) bool {
	switch {
	case c >= '0' && c <= '9':
		if f.csiArg >= 0 && f.csiArg < 1000 {
			f.csiArg = f.csiArg*10 + int(c-'0')
		}
	case c == ';':
		if f.csiArg >= 0 {
			f.csiArg = -1 - f.csiArg // first parameter complete
		}
	case c >= 0x3A && c <= 0x3F || c >= 0x20 && c <= 0x2F:
		f.csiOther = true
	case c >= 0x40 && c <= 0x7E:
		f.state = stGround
		f.csiFinal(c)
	case c >= 0x80:
		f.state = stGround
		return false
	default:
		f.control(c)
	}
	return true
}

// str reads a byte of an OSC or another string sequence.
func (f *Filter) str(c byte) {
	switch c {
	case bel:
		if f.state == stOSC {
			f.state = stGround
		}
	case esc:
		// ESC ends the string; ESC \ (ST) then reads as an
		// escape sequence and is stripped with it.
		f.state = stEsc
	case can, sub:
		f.state = stGround
	}
}

// control handles a C0 control or DEL outside strings. Inside sequences
// tmux (like a VT terminal) executes C0 controls, so they act here too.
func (f *Filter) control(c byte) {
	if f.hold.Len() > 0 {
		f.flushHold()
	}
	if f.alt && f.SkipAlternate && c != esc {
		return
	}
	switch c {
	case lf:
		f.endLine()
	case cr:
		f.crPending = true
	case tab:
		f.text(tabRun, false)
	case bs:
		if f.moved && !f.crPending {
			f.back(1)
		} else if !f.crPending && len(f.cur) > 0 {
			_, size := utf8.DecodeLastRune(f.cur)
			f.cur = f.cur[:len(f.cur)-size]
		}
	case esc:
		f.state = stEsc
	case can, sub:
		f.state = stGround
	}
}

// csiFinal acts on the erase-in-line sequences that matter for line text, and notes switches
// to and from the alternate screen.
func (f *Filter) csiFinal(c byte) {
	if (c == 'h' || c == 'l') && f.csiOther {
		switch f.csiArg {
		case 1049, 1047, 47:
			f.alt = c == 'h'
		}
		return
	}
	if f.csiOther || f.alt && f.SkipAlternate {
		return
	}
	arg := f.csiArg
	if arg < 0 {
		arg = -1 - arg
	}
	switch {
	case c == 'C' && len(f.cur) == 0 && !f.crPending:
		f.indent()
	case c == 'C' && f.moved && !f.crPending:
		f.forward(max(arg, 1))
	case c == 'D' && !f.crPending:
		f.back(max(arg, 1))
	case c != 'K':
	case arg == 2 || arg == 1 || f.crPending:
		f.cur, f.moved = f.cur[:0], false
	case f.moved:
		f.cur, f.moved = f.cur[:f.at], false // erase from the cursor to the line's end
	}
}

// back moves the place the next text is written n characters left on the current line.
func (f *Filter) back(n int) {
	if !f.moved {
		f.at, f.moved = len(f.cur), true
	}
	for ; n > 0 && f.at > 0; n-- {
		_, size := utf8.DecodeLastRune(f.cur[:f.at])
		f.at -= size
	}
}

// forward moves it n characters right, at most to the line's end (where text is appended
// again): a move past the end adds nothing, as a move right in a line's middle always did.
func (f *Filter) forward(n int) {
	for ; n > 0 && f.at < len(f.cur); n-- {
		_, size := utf8.DecodeRune(f.cur[f.at:])
		f.at += size
	}
	if f.at >= len(f.cur) {
		f.moved = false
	}
}

// put writes valid text to the current line: appended, or over its characters from f.at.
func (f *Filter) put(b []byte) {
	for f.moved && len(b) > 0 {
		_, size := utf8.DecodeRune(b)
		_, old := utf8.DecodeRune(f.cur[f.at:])
		if size == old {
			copy(f.cur[f.at:], b[:size])
		} else {
			f.cur = append(f.cur[:f.at], append(b[:size:size], f.cur[f.at+old:]...)...)
		}
		f.at += size
		b = b[size:]
		if f.at >= len(f.cur) {
			f.moved = false
		}
	}
	f.cur = append(f.cur, b...)
}

// maxIndent bounds the blanks a cursor movement puts before a line's text.
const maxIndent = 256

// indent turns a cursor movement to the right at the start of a line (ESC [ n C) into as many
// blanks: a line editor redrawing a row of a long typed line from a column of its own (fish)
// gives a line that is the typed line's tail drawn away from the margin, not a line of output.
func (f *Filter) indent() {
	n := f.csiArg
	if n < 0 {
		n = -1 - n
	}
	n = min(max(n, 1), maxIndent)
	for range n {
		f.cur = append(f.cur, ' ')
	}
}

// text appends printable bytes to the current line. atEnd says the run
// reaches the end of the chunk, so an incomplete UTF-8 sequence may still be
// completed by the next chunk and is held back.
func (f *Filter) text(run []byte, atEnd bool) {
	if f.alt && f.SkipAlternate {
		return
	}
	if f.crPending {
		f.crPending = false
		f.cur, f.moved = f.cur[:0], false
	}
	switch {
	case f.hold.Len() == 0 && utf8.Valid(run) && !f.moved:
		f.cur = append(f.cur, run...)
	case f.hold.Len() == 0 && utf8.Valid(run):
		f.put(run)
	default:
		if atEnd {
			f.scratch = f.hold.Append(f.scratch[:0], run)
		} else {
			f.scratch = append(append(f.scratch[:0], f.hold.Flush()...), run...)
		}
		if !f.moved {
			f.cur = appendValid(f.cur, f.scratch)
		} else {
			f.put(appendValid(nil, f.scratch))
		}
		if cap(f.scratch) > 64<<10 {
			f.scratch = nil
		}
	}
	if maxLine := f.maxLine(); len(f.cur) > 2*maxLine {
		f.cur = f.trim(f.cur, maxLine)
	}
}

// flushHold turns held bytes that can no longer be completed into U+FFFD.
func (f *Filter) flushHold() {
	if f.hold.Len() == 0 {
		return
	}
	if f.crPending {
		f.crPending = false
		f.cur, f.moved = f.cur[:0], false
	}
	// Decoded like the same bytes inside one run: one U+FFFD per byte.
	var held [3]byte
	n := copy(held[:], f.hold.Flush())
	f.put(appendValid(nil, held[:n]))
}

// appendValid appends b to dst replacing each invalid byte with U+FFFD.
func appendValid(dst, b []byte) []byte {
	for len(b) > 0 {
		if b[0] < utf8.RuneSelf {
			dst = append(dst, b[0])
			b = b[1:]
			continue
		}
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, b[:size]...)
		}
		b = b[size:]
	}
	return dst
}

func (f *Filter) maxLine() int {
	if f.MaxLine <= 0 {
		return DefaultMaxLine
	}
	return f.MaxLine
}

// trim keeps the last max bytes of line, cut at a character boundary, and
// counts what it dropped.
func (f *Filter) trim(line []byte, max int) []byte {
	if len(line) <= max {
		return line
	}
	cut := len(line) - max
	for cut < len(line) && line[cut]&0xC0 == 0x80 {
		cut++
	}
	f.truncated += int64(cut)
	f.moved = false
	n := copy(line, line[cut:])
	return line[:n]
}

func (f *Filter) endLine() {
	f.crPending, f.moved = false, false
	f.cur = f.trim(f.cur, f.maxLine())
	f.done = append(f.done, f.cur...)
	f.ends = append(f.ends, len(f.done))
	if cap(f.cur) > 64<<10 {
		f.cur = nil // do not pin a huge buffer after one long line
	} else {
		f.cur = f.cur[:0]
	}
	if f.KeepLast > 0 && len(f.ends) >= 2*f.KeepLast+64 {
		f.dropOld() // in batches: each drop moves the kept lines
	}
}

// dropOld drops the completed lines before the newest KeepLast.
func (f *Filter) dropOld() {
	n := len(f.ends) - f.KeepLast
	if f.KeepLast <= 0 || n <= 0 {
		return
	}
	cut := f.ends[n-1]
	f.done = f.done[:copy(f.done, f.done[cut:])]
	for i, end := range f.ends[n:] {
		f.ends[i] = end - cut
	}
	f.ends = f.ends[:f.KeepLast]
	f.dropped += n
}

// Dropped returns how many completed lines KeepLast has dropped so far.
func (f *Filter) Dropped() int { return f.dropped }

// Lines returns the lines completed since the last call, without their LF (with KeepLast, only
// the newest of them).
func (f *Filter) Lines() []string {
	f.dropOld()
	if len(f.ends) == 0 {
		return nil
	}
	all := string(f.done)
	lines := make([]string, len(f.ends))
	start := 0
	for i, end := range f.ends {
		lines[i] = all[start:end]
		start = end
	}
	if cap(f.done) > 256<<10 {
		f.done = nil // do not pin a burst's buffer
	} else {
		f.done = f.done[:0]
	}
	f.ends = f.ends[:0]
	return lines
}

// Alternate reports whether the text so far left the terminal on the alternate screen (it
// switched there and not back).
func (f *Filter) Alternate() bool { return f.alt }

// Partial returns the current, not yet terminated line (without any
// incomplete UTF-8 sequence still held for the next Write).
func (f *Filter) Partial() string {
	f.cur = f.trim(f.cur, f.maxLine())
	return string(f.cur)
}

// Flush ends the input: an incomplete UTF-8 sequence still held becomes
// U+FFFD in the current line. Later writes start afresh in text state.
func (f *Filter) Flush() {
	f.flushHold()
	f.state = stGround
}

// Truncated returns how many bytes the per-line cap has cut so far.
func (f *Filter) Truncated() int64 { return f.truncated }

// Clean filters b as a whole and returns its lines, including a final
// unterminated line when it is not empty.
func Clean(b []byte) []string {
	var f Filter
	f.Write(b)
	f.Flush()
	lines := f.Lines()
	if p := f.Partial(); p != "" {
		lines = append(lines, p)
	}
	return lines
}

// TailBytes returns the last at most n bytes of s, starting at a character boundary.
func TailBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}
