package runner

import (
	"bytes"

	"github.com/tmux-mcp/tmux-mcp/shellrun"
)

// overlap is how many trailing body bytes are scanned again with each new chunk: an end marker
// split across chunks ("<id>_E <status> <id>_D" plus a CR LF before it) is found whole.
const overlap = 2*shellrun.IDLen + len("_E 255 _D") + 8

// collector gathers one run's output from its stream and finds the frame's markers in it,
// incrementally: each chunk is scanned once (plus a small overlap). Memory is bounded by window:
// the bytes before the start marker and the body keep only their newest window bytes, and what
// is cut from the body's front is counted.
type collector struct {
	id     string
	window int

	started   bool   // the start marker line was seen (or given up on: lostStart)
	lostStart bool   // the start marker fell out of the ring: the body starts partway
	missedPre bool   // bytes were missed before the start marker was found
	pre       []byte // output before the start marker line (the echo of the typed line)
	preScan   int    // pre[:preScan] holds no (beginning of a) complete end marker
	body      []byte // output after the start marker line
	scan      int    // body[:scan] holds no (beginning of an) end marker

	done   bool
	status int

	cutLines int   // complete lines cut from the body's front (window)
	cutBytes int64 // bytes cut from the body's front
	discard  bool  // the body is no longer wanted: keep only what marker detection needs
}

func newCollector(id string, window int) *collector {
	return &collector{id: id, window: max(window, 4*overlap)}
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

// feed adds the next chunk of the pane's output.
func (c *collector) feed(p []byte) {
	if c.done || len(p) == 0 {
		return
	}
	if c.started {
		c.body = append(c.body, p...)
	} else {
		c.pre = append(c.pre, p...)
		if !c.findStart() {
			return
		}
	}
	c.scanEnd()
	c.trim()
}

// findStart looks for the start marker line in pre and moves what follows it into body. When
// bytes were missed before it and it is not there, the start is lost: everything kept counts
// as body.
func (c *collector) findStart() bool {
	tok := []byte(c.id + "_S")
	for from := 0; ; {
		i := bytes.Index(c.pre[from:], tok)
		if i < 0 {
			break
		}
		at := from + i + len(tok)
		switch n := lineEnd(c.pre[at:]); {
		case n == 0:
			return false // the rest of the marker line is still to come
		case n > 0:
			c.started = true
			c.body = append([]byte(nil), c.pre[at+n:]...)
			c.pre = nil
			return true
		}
		from = at // not a marker line: something else follows the token
	}
	// Without its start, an end marker still ends the run: the start must have been lost
	// (the stream dropped bytes), and waiting on would hold the pane forever.
	endTok := []byte(c.id + "_E ")
	if c.missedPre || bytes.Contains(c.pre[c.preScan:], endTok) && shellrun.Parse(c.pre, c.id).Done {
		c.started, c.lostStart = true, true
		c.body, c.pre = c.pre, nil
		return true
	}
	c.preScan = max(0, len(c.pre)-overlap) // a marker may still be completing
	if over := len(c.pre) - c.window; over > 0 {
		// Not our output (the shell has not run our line yet): keep only the newest bytes.
		n := copy(c.pre, c.pre[over:])
		c.pre = c.pre[:n]
		c.preScan = max(0, c.preScan-over)
	}
	return false
}

// scanEnd looks for the end marker in the bytes not yet scanned.
func (c *collector) scanEnd() {
	if !bytes.Contains(c.body[c.scan:], []byte(c.id+"_E ")) {
		c.scan = max(0, len(c.body)-overlap)
		return
	}
	p := shellrun.Parse(c.body[c.scan:], c.id)
	// A marker that ends the data so far may still be followed by something that makes it
	// no marker ("..._D0"): the wrapper always prints a line end after it, so wait for that.
	if p.Done && c.scan+p.End < len(c.body) {
		c.done, c.status = true, p.Status
		c.body = c.body[:c.scan+len(p.Body)]
		return
	}
	c.scan = max(0, len(c.body)-overlap)
}

// trim cuts the body's front beyond the window, at a line boundary when it can.
func (c *collector) trim() {
	if c.done {
		return
	}
	limit := c.window
	if c.discard {
		limit = 0
	} else if len(c.body) <= c.window+c.window/2 {
		return // cut in batches: each cut moves the whole window
	}
	cut := len(c.body) - limit
	if cut <= 0 {
		return
	}
	cut = min(cut, c.scan)
	if k := bytes.IndexByte(c.body[cut:c.scan], '\n'); k >= 0 && !c.discard {
		cut += k + 1
	}
	if cut <= 0 {
		return
	}
	c.cutLines += bytes.Count(c.body[:cut], []byte{'\n'})
	c.cutBytes += int64(cut)
	n := copy(c.body, c.body[cut:])
	c.body = c.body[:n]
	c.scan -= cut
}

// output returns the body gathered so far: all of it when done, else without a trailing partial
// end marker and line break.
func (c *collector) output() []byte {
	if c.done || !c.started {
		if !c.started {
			return nil
		}
		return c.body
	}
	p := shellrun.Parse(c.body[c.scan:], c.id)
	return c.body[:c.scan+len(p.Body)]
}

// lineEnd reports how the start marker's line ends in b (what follows the token): the length
// up to and including its LF when only CR, blanks and escape sequences come before it, 0 when
// b ends before that is known, -1 when something else follows (not a marker line).
func lineEnd(b []byte) int {
	for j := 0; j < len(b); {
		switch c := b[j]; {
		case c == '\n':
			return j + 1
		case c == '\r' || c == ' ' || c == '\t':
			j++
		case c == 0x1b:
			n := escLen(b[j:])
			if n == 0 {
				return 0
			}
			j += n
		default:
			return -1
		}
	}
	return 0
}

// escLen is the length of the escape sequence at the start of b (CSI or a two-byte ESC
// sequence), 0 when b ends inside it.
func escLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	if b[1] != '[' {
		return 2
	}
	for i := 2; i < len(b); i++ {
		if b[i] >= 0x40 && b[i] <= 0x7e {
			return i + 1
		}
	}
	return 0
}
