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

// missed records that the stream dropped bytes before the next chunk.
func (c *collector) missed() {
	if !c.started {
		c.missedPre = true
	}
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
	if i := bytes.Index(c.pre, tok); i >= 0 {
		j := bytes.IndexByte(c.pre[i:], '\n')
		if j < 0 {
			return false // the rest of the marker line is still to come
		}
		c.started = true
		c.body = append([]byte(nil), c.pre[i+j+1:]...)
		c.pre = nil
		return true
	}
	if c.missedPre {
		c.started, c.lostStart = true, true
		c.body, c.pre = c.pre, nil
		return true
	}
	if over := len(c.pre) - c.window; over > 0 {
		// Not our output (the shell has not run our line yet): keep only the newest bytes.
		n := copy(c.pre, c.pre[over:])
		c.pre = c.pre[:n]
	}
	return false
}

// scanEnd looks for the end marker in the bytes not yet scanned.
func (c *collector) scanEnd() {
	p := shellrun.Parse(c.body[c.scan:], c.id)
	if p.Done {
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
