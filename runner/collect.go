package runner

import (
	"bytes"

	"github.com/tmux-mcp/tmux-mcp/shellrun"
	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// collector gathers one run's output from its stream and finds the frame's markers in it,
// incrementally: each chunk is scanned once (a possible marker cut by the chunk's end is
// scanned again with the next). Memory is bounded by window: the bytes before the start marker
// and the body keep only their newest window bytes, and what is cut from the body's front is
// counted.
type collector struct {
	id      string
	window  int
	ours    func(id string) bool // ids this runner minted (their markers in the body are foreign runs)
	foreign bool                 // a marker of another of our runs was in the body

	started   bool   // the start marker was seen (or given up on: lostStart)
	lostStart bool   // the start marker fell out of the ring: the body starts partway
	missedPre bool   // bytes were missed before the start marker was found
	pre       []byte // output before the start marker (the echo of the typed line)
	preAt     int64  // the stream offset of pre[0]
	startAt   int64  // the stream offset of the start marker, once started (-1: lost)
	shownAt   int64  // the stream offset after the redraw's last erase (ESC [ K) before it (-1: none)
	preScan   int    // pre[:preScan] holds no (beginning of a) marker
	body      []byte // output after the start marker
	bodyAt    int64  // the stream offset of body[0] (-1: unknown, the start was lost)
	scan      int    // body[:scan] holds no (beginning of an) end marker
	echoes    []echo // input typed for the command, whose echo is to be left out

	done   bool
	status int
	failed string // the wrapper's failure marker's reason

	cutLines int   // complete lines cut from the body's front (window)
	cutBytes int64 // bytes cut from the body's front
	discard  bool  // the body is no longer wanted: keep only what marker detection needs

	// keepLines, when > 0, is how many lines the result returns at most: a body of plain text
	// keeps only those (see trimPlain). escAt is the index in body of its last ESC byte, or of
	// a byte at or after it (-1: none).
	keepLines int
	escAt     int
	plainAt   int // the body's length at which trimPlain looks again
}

func newCollector(id string, window int, ours func(string) bool) *collector {
	if ours == nil {
		ours = func(string) bool { return false }
	}
	return &collector{id: id, window: max(window, 4096), ours: ours, escAt: -1}
}

// missed records that the stream dropped bytes (or tmux discarded some) before the next chunk.
func (c *collector) missed() {
	if !c.started {
		c.missedPre = true
	}
}

// resetPre forgets what came before the start marker (a sourcing error, before the wrapper
// is typed again inline).
func (c *collector) resetPre() {
	c.pre, c.preScan = c.pre[:0], 0
}

// feed adds the next chunk of the pane's output, which begins at stream offset at.
func (c *collector) feed(p []byte, at int64) {
	if c.done || c.failed != "" || len(p) == 0 {
		return
	}
	if c.started {
		c.appendBody(p)
		c.dropEchoes()
	} else {
		if len(c.pre) == 0 {
			c.preAt = at
		}
		c.pre = append(c.pre, p...)
		if !c.findStart() {
			return
		}
	}
	c.dropEchoes()
	c.scanEnd()
	c.trim()
}

// appendBody appends p to the body, doubling its buffer up to the most the body can hold (trim
// keeps it under 1.5 windows, and a read adds at most readChunk). append grows a large slice by
// a quarter at a time, each step a copy that leaves the old buffer as garbage.
func (c *collector) appendBody(p []byte) {
	if bytes.IndexByte(p, 0x1b) >= 0 { // IndexByte is vectorised, LastIndexByte is not
		c.escAt = len(c.body) + bytes.LastIndexByte(p, 0x1b)
	}
	if need := len(c.body) + len(p); need > cap(c.body) {
		most := c.window + c.window/2 + readChunk
		nb := make([]byte, len(c.body), max(need, min(2*cap(c.body), most)))
		copy(nb, c.body)
		c.body = nb
	}
	c.body = append(c.body, p...)
}

// echo is text typed as the command's input at stream offset at: the terminal echoes it (a
// line editor, or the tty in canonical mode), and the echo is not the command's output.
type echo struct {
	at   int64
	text []byte
}

// echoSlack bounds how far after its typing an echo is looked for.
const echoSlack = 256

// expect notes text typed at stream offset at. A terminal in canonical mode echoes each line
// break typed (LF, or the CR a paste or Enter sends) as CR LF, so the echo looked for has them so.
func (c *collector) expect(at int64, text string) {
	c.echoes = append(c.echoes, echo{at: at, text: echoed(text)})
}

// echoed is text as a canonical-mode terminal echoes it: every CR LF, CR or LF as CR LF.
func echoed(text string) []byte {
	b := make([]byte, 0, len(text)+8)
	for i := 0; i < len(text); i++ {
		switch ch := text[i]; {
		case ch == '\r' && i+1 < len(text) && text[i+1] == '\n':
			b = append(b, '\r', '\n')
			i++
		case ch == '\r' || ch == '\n':
			b = append(b, '\r', '\n')
		default:
			b = append(b, ch)
		}
	}
	return b
}

// dropEchoes removes from the body the echo of each expected text, with the line break that
// follows it, once it arrived; an echo not seen within echoSlack bytes (a password prompt does
// not echo) is not looked for any more.
func (c *collector) dropEchoes() {
	if len(c.echoes) == 0 || c.bodyAt < 0 {
		return
	}
	keep := c.echoes[:0]
	for _, e := range c.echoes {
		from := int(max(0, e.at-c.bodyAt))
		if from > len(c.body) {
			keep = append(keep, e)
			continue
		}
		window := c.body[from:min(len(c.body), from+len(e.text)+echoSlack)]
		i := bytes.Index(window, e.text)
		if i < 0 {
			if len(window) < len(e.text)+echoSlack {
				keep = append(keep, e) // it may still come
			}
			continue
		}
		at, n := from+i, len(e.text)
		n = echoLen(c.body, at, n, bytes.HasSuffix(e.text, []byte("\r\n")))
		c.body = append(c.body[:at], c.body[at+n:]...)
		switch {
		case c.escAt >= at+n:
			c.escAt -= n
		case c.escAt >= at:
			c.escAt = max(at-1, 0) // at or after the last ESC left, if any
		}
		c.bodyAt += int64(n) // an approximation for later echoes: they come after this one
		if c.scan > at {
			c.scan = max(at, c.scan-n)
		}
	}
	c.echoes = keep
}

// echoLen returns how much of body to remove for an echo of n bytes found at at. The line break
// goes with the echo only when the echo was a line of its own: after a prompt on the same line
// ("Proceed? y"), it ends the prompt's line, which stays. brk: the echo ends with its own line
// break (a pasted line, or one submitted).
func echoLen(body []byte, at, n int, brk bool) int {
	ownLine := at == 0 || body[at-1] == '\n'
	switch rest := body[at+n:]; {
	case !ownLine && brk:
		return n - 2
	case !ownLine || brk:
		return n
	case bytes.HasPrefix(rest, []byte("\r\n")):
		return n + 2
	case bytes.HasPrefix(rest, []byte("\n")):
		return n + 1
	}
	return n
}

// findStart looks for the start marker in pre and moves what follows it into body. An end
// marker without a start (it fell out of the ring) still ends the run: waiting on would hold
// the pane forever.
func (c *collector) findStart() bool {
	for from := c.preScan; ; {
		m, ok := shellrun.NextMarker(c.pre, from)
		if !ok {
			break
		}
		from = m.End
		if m.ID != c.id {
			continue
		}
		switch m.Kind {
		case shellrun.StartMarker:
			c.started, c.startAt, c.shownAt = true, c.preAt+int64(m.Start), -1
			c.bodyAt = c.preAt + int64(m.End)
			if i := bytes.LastIndex(c.pre[:m.Start], []byte("\x1b[K")); i >= 0 {
				c.shownAt = c.preAt + int64(i+3)
			}
			c.body = append([]byte(nil), c.pre[m.End:]...)
			c.escAt = bytes.LastIndexByte(c.body, 0x1b)
			c.pre = c.pre[:m.Start]
			return true
		case shellrun.FailMarker:
			c.failed = m.Reason
			return false
		case shellrun.EndMarker:
			c.started, c.lostStart, c.startAt, c.bodyAt = true, true, -1, -1
			c.body, c.pre = c.pre, nil
			c.escAt = bytes.LastIndexByte(c.body, 0x1b)
			return true
		}
	}
	if c.missedPre {
		c.started, c.lostStart, c.startAt, c.bodyAt = true, true, -1, -1
		c.body, c.pre = c.pre, nil
		c.escAt = bytes.LastIndexByte(c.body, 0x1b)
		return true
	}
	c.preScan = len(c.pre) - shellrun.PartialMarker(c.pre)
	if over := len(c.pre) - c.window; over > 0 {
		// Not our output (the shell has not run our line yet): keep only the newest bytes.
		n := copy(c.pre, c.pre[over:])
		c.pre = c.pre[:n]
		c.preAt += int64(over)
		c.preScan = max(0, c.preScan-over)
	}
	return false
}

// scanEnd looks for the end marker in the bytes not yet scanned.
func (c *collector) scanEnd() {
	for from := c.scan; ; {
		m, ok := shellrun.NextMarker(c.body, from)
		if !ok {
			break
		}
		from = m.End
		switch {
		case m.ID != c.id:
			if c.ours(m.ID) {
				c.foreign = true
			}
		case m.Kind == shellrun.EndMarker:
			c.done, c.status = true, m.Status
			body := c.body[:m.Start]
			c.body = body[:len(body)-shellrun.TrailingBreak(body, false)]
			return
		case m.Kind == shellrun.FailMarker:
			c.failed = m.Reason
			return
		}
	}
	c.scan = len(c.body) - shellrun.PartialMarker(c.body)
}

// trim cuts the body's front beyond the window, at a line boundary when it can; a body of
// plain text keeps only the lines the result can return (trimPlain).
func (c *collector) trim() {
	if c.done {
		return
	}
	if c.trimPlain() {
		return
	}
	limit := c.window
	if c.discard {
		limit = 0
	} else if len(c.body) <= c.window+c.window/2 {
		return // cut in batches: each cut moves the whole window
	}
	cut := min(len(c.body)-limit, c.scan)
	if cut <= 0 {
		return
	}
	if k := bytes.IndexByte(c.body[cut:c.scan], '\n'); k >= 0 && !c.discard {
		cut += k + 1
	}
	c.cut(cut)
}

// plainBatch is how far a plain body may outgrow its lines before trimPlain cuts it; after a
// look that cut nothing, it looks again when the body has grown by 4 batches (a look scans up
// to half a window).
const plainBatch = 64 << 10

// trimPlain cuts a body of plain text (no ESC byte: no escape sequence, no marker of another
// run, no alternate screen) down to its last keepLines lines. The text filter turns every line
// of such text into one line, in the state it starts a body in, so the result (the last
// keepLines lines) is the one the whole window gives, and the lines cut are counted as the
// window's are (droppedLines is the same). A line longer than the filter's cap is not cut this
// way (the filter counts what it truncates), nor are last lines longer than half a window (the
// window might not hold them all). One case stays apart: a line over the cap printed after a
// cut, then more than a window of output: the window's cuts, batched by its length, then come
// later than they would have, and omitted_bytes can count that line's truncated tail while the
// window alone would have cut it (the line itself is dropped in both). Without this cut a
// window holds megabytes of a flood whose result is a few hundred lines.
func (c *collector) trimPlain() bool {
	if c.keepLines <= 0 || c.discard || c.escAt >= 0 || len(c.body) < max(c.plainAt, c.keepLines+plainBatch) {
		return false
	}
	c.plainAt = len(c.body) + 4*plainBatch
	// The start of the keepLines-th line from the end of what is scanned.
	cut, n := c.scan, 0
	for n < c.keepLines {
		i := bytes.LastIndexByte(c.body[:cut], '\n')
		if i < 0 || len(c.body)-i > c.window/2 {
			return false // not that many lines yet, or too long for the window to hold
		}
		cut, n = i, n+1
	}
	if cut < plainBatch {
		return false
	}
	cut++ // after the line break
	for line := range bytes.SplitSeq(c.body[:cut-1], []byte{'\n'}) {
		if len(line) > stream.DefaultMaxLine {
			return false
		}
	}
	c.cut(cut)
	c.plainAt = len(c.body) + plainBatch
	return true
}

// cut drops the body's first n bytes, counting its complete lines.
func (c *collector) cut(n int) {
	c.cutLines += bytes.Count(c.body[:n], []byte{'\n'})
	c.cutBytes += int64(n)
	if c.bodyAt >= 0 {
		c.bodyAt += int64(n)
	}
	c.body = c.body[:copy(c.body, c.body[n:])]
	c.scan -= n
	c.escAt = max(c.escAt-n, -1)
	c.plainAt -= n
}

// output returns the body gathered so far: all of it when done, else without a trailing
// partial marker and line break.
func (c *collector) output() []byte {
	if !c.started {
		return nil
	}
	if c.done {
		return c.body
	}
	b := c.body[:c.scan]
	return b[:len(b)-shellrun.TrailingBreak(b, true)]
}
