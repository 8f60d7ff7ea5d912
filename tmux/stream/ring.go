package stream

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// DefaultRingSize is the capacity of a pane's ring when none is given: 1 MiB.
const DefaultRingSize = 1 << 20

// maxGaps bounds how many gap positions a ring remembers.
const maxGaps = 64

var (
	// ErrOffsetAhead is returned for an offset beyond the end of a ring: it
	// cannot come from this stream (a stale or foreign cursor).
	ErrOffsetAhead = errors.New("stream: offset is ahead of the stream")
	// ErrOffsetNegative is returned for an offset below zero.
	ErrOffsetNegative = errors.New("stream: negative offset")
	// ErrEnded is the end reason of a ring closed with a nil reason.
	ErrEnded = errors.New("stream: ended")
)

// Ring is a bounded buffer of a stream's bytes addressed by absolute offsets
// counted from the start of the stream. Writers append; when the capacity is
// exceeded the oldest bytes are dropped, and readers holding an older offset
// are told how many bytes they missed. Readers block in Wait on a channel that
// every Write closes, so an idle ring costs nothing.
//
// A Ring is safe for concurrent use. The zero value is not usable; use NewRing.
type Ring struct {
	mu      sync.Mutex
	capa    int
	buf     []byte // grows lazily up to capa; circular once full
	head    int    // index in buf of the oldest kept byte
	n       int    // number of kept bytes
	end     int64  // absolute offset just past the newest byte
	changed chan struct{}
	done    bool
	reason  error

	gapPending bool
	gaps       []int64 // offsets b: output was lost just before byte b
	elided     []span  // ranges that text readers do not see (ReadText)
	outputAt   int64   // where the newest command a program ran began to print (MarkOutput)
}

// span is a range [from, to) of absolute offsets.
type span struct{ from, to int64 }

// NewRing returns an empty ring holding at most size bytes (DefaultRingSize
// when size <= 0). Memory is allocated as data arrives, not up front.
func NewRing(size int) *Ring {
	if size <= 0 {
		size = DefaultRingSize
	}
	return &Ring{capa: size, changed: make(chan struct{})}
}

// Cap returns the ring's capacity in bytes.
func (r *Ring) Cap() int { return r.capa }

// End returns the absolute offset just past the newest byte: a reader that
// starts here sees everything written from now on.
func (r *Ring) End() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.end
}

// Start returns the absolute offset of the oldest byte still kept.
func (r *Ring) Start() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.end - int64(r.n)
}

// Err returns the end reason, or nil while the ring is open.
func (r *Ring) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reason
}

// Write appends p, dropping the oldest bytes beyond the capacity, and wakes
// every waiter. Writes to an ended ring are ignored. It never fails; the
// signature matches io.Writer for convenience.
func (r *Ring) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.mu.Lock()
	if r.done {
		r.mu.Unlock()
		return len(p), nil
	}
	if r.gapPending {
		r.gapPending = false
		r.addGapLocked(r.end)
	}
	r.appendLocked(p)
	r.wakeLocked()
	r.mu.Unlock()
	return len(p), nil
}

func (r *Ring) appendLocked(p []byte) {
	total := len(p)
	r.end += int64(total)
	if total >= r.capa {
		// Only the newest capa bytes survive.
		if len(r.buf) < r.capa {
			r.buf = make([]byte, r.capa)
		}
		copy(r.buf, p[total-r.capa:])
		r.head, r.n = 0, r.capa
		return
	}
	if need := r.n + total; need > len(r.buf) && len(r.buf) < r.capa {
		r.growLocked(need)
	}
	// Copy in at most two pieces at the (circular) tail.
	tail := (r.head + r.n) % len(r.buf)
	k := copy(r.buf[tail:], p)
	copy(r.buf, p[k:])
	if over := r.n + total - len(r.buf); over > 0 {
		r.head = (r.head + over) % len(r.buf)
		r.n = len(r.buf)
	} else {
		r.n += total
	}
}

// growLocked enlarges buf (doubling, capped at capa) to hold need bytes,
// linearising the kept bytes at index 0.
func (r *Ring) growLocked(need int) {
	size := max(2*len(r.buf), need, 4096)
	size = min(size, r.capa)
	nb := make([]byte, size)
	r.copyOutLocked(nb, r.head, r.n)
	r.buf, r.head = nb, 0
}

// copyOutLocked copies n kept bytes starting at physical index i into dst.
func (r *Ring) copyOutLocked(dst []byte, i, n int) {
	if n == 0 {
		return
	}
	k := copy(dst[:n], r.buf[i:min(i+n, len(r.buf))])
	copy(dst[k:n], r.buf[:n-k])
}

func (r *Ring) wakeLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// Close ends the ring with reason (ErrEnded when nil) and wakes every
// waiter. Bytes already written stay readable; once a reader has read them
// all, Read and Wait return the reason. Only the first reason is kept.
func (r *Ring) Close(reason error) {
	if reason == nil {
		reason = ErrEnded
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	r.done, r.reason = true, reason
	close(r.changed) // not replaced: every later Wait sees done first
}

// MarkGap records that output was lost at the current end without being
// written (tmux discarded it while the pane was paused). The gap is placed
// before the next byte written, so readers learn of it together with the
// data that follows it; see Gaps.
func (r *Ring) MarkGap() {
	r.mu.Lock()
	r.gapPending = true
	r.mu.Unlock()
}

func (r *Ring) addGapLocked(at int64) {
	if n := len(r.gaps); n > 0 && r.gaps[n-1] == at {
		return
	}
	if len(r.gaps) == maxGaps {
		copy(r.gaps, r.gaps[1:])
		r.gaps = r.gaps[:maxGaps-1]
	}
	r.gaps = append(r.gaps, at)
}

// Gaps returns how many known gaps (output lost upstream, of unknown size)
// lie within the bytes [from, to): a reader that read exactly that range
// missed output there in addition to any missed bytes Read reported. Only
// the most recent gaps are remembered.
func (r *Ring) Gaps(from, to int64) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, g := range r.gaps {
		if g >= from && g < to {
			n++
		}
	}
	return n
}

// Elide hides the bytes [from, to) from ReadText: the echo of a line a program typed and
// redrew itself, which a person's screen no longer shows. Only the most recent ranges are
// remembered.
func (r *Ring) Elide(from, to int64) {
	if from >= to {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.elided) == maxGaps {
		copy(r.elided, r.elided[1:])
		r.elided = r.elided[:maxGaps-1]
	}
	r.elided = append(r.elided, span{from, to})
}

// ReadText is Read for readers of the text a pane shows: bytes Elide hid read as NUL, which a
// text filter drops, so offsets stay those of Read.
func (r *Ring) ReadText(off int64, max int) (data []byte, next int64, missed int64, err error) {
	return r.AppendReadText(nil, off, max)
}

// AppendReadText is ReadText into dst's buffer (see AppendRead).
func (r *Ring) AppendReadText(dst []byte, off int64, max int) (data []byte, next int64, missed int64, err error) {
	data, next, missed, err = r.AppendRead(dst, off, max)
	if len(data) == 0 {
		return
	}
	start := next - int64(len(data))
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.elided {
		for o := max64(e.from, start); o < min64(e.to, next); o++ {
			data[o-start] = 0
		}
	}
	return
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

func min64(a, b int64) int64 {
	if a < b {
		return a
	}
	return b
}

// Read returns up to max bytes after offset off (all available bytes when
// max <= 0), the offset to read from next, and missed: how many bytes after
// off had already been dropped (data then starts at the oldest kept byte,
// skipping up to three UTF-8 continuation bytes of a character whose head
// was dropped; those count as missed too). Data and err are never both set:
// err is the end reason once everything was read from an ended ring,
// ErrOffsetAhead when off lies beyond the end, ErrOffsetNegative when
// off < 0. The returned slice is a copy the caller owns.
func (r *Ring) Read(off int64, max int) (data []byte, next int64, missed int64, err error) {
	return r.AppendRead(nil, off, max)
}

// AppendRead is Read into dst's buffer: data is dst[:0] with the bytes read, in dst's array when
// it is large enough, so that a reader going through a long stream reuses one buffer.
func (r *Ring) AppendRead(dst []byte, off int64, max int) (data []byte, next int64, missed int64, err error) {
	if off < 0 {
		return nil, off, 0, ErrOffsetNegative
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if off > r.end {
		return nil, off, 0, fmt.Errorf("%w: offset %d, end %d", ErrOffsetAhead, off, r.end)
	}
	start := r.end - int64(r.n)
	i := 0 // index among kept bytes
	if off < start {
		missed = start - off
		off = start
		// The head may be the tail of a character whose lead was dropped.
		for i < r.n && i < 3 && r.at(i)&0xC0 == 0x80 {
			i++
		}
		missed += int64(i)
		off += int64(i)
	} else {
		i = int(off - start)
	}
	avail := r.n - i
	if avail == 0 {
		if r.done {
			return nil, off, missed, r.reason
		}
		return nil, off, missed, nil
	}
	if max > 0 && avail > max {
		avail = max
	}
	data = slices.Grow(dst[:0], avail)[:avail]
	r.copyOutLocked(data, (r.head+i)%len(r.buf), avail)
	return data, off + int64(avail), missed, nil
}

// at returns the i-th kept byte.
func (r *Ring) at(i int) byte {
	return r.buf[(r.head+i)%len(r.buf)]
}

// Wait blocks until the ring holds data beyond off, the ring ends, or ctx is
// done. It returns nil when there is data to read (even on an ended ring),
// the end reason when the ring ended and off is at its end, ErrOffsetAhead
// for an offset beyond the end, or ctx's error.
func (r *Ring) Wait(ctx context.Context, off int64) error {
	for {
		r.mu.Lock()
		switch {
		case off < r.end:
			r.mu.Unlock()
			return nil
		case off > r.end:
			end := r.end
			r.mu.Unlock()
			return fmt.Errorf("%w: offset %d, end %d", ErrOffsetAhead, off, end)
		case r.done:
			err := r.reason
			r.mu.Unlock()
			return err
		}
		ch := r.changed
		r.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Changed returns a channel closed at the next write or at the end of the
// ring, for callers that select on several streams at once.
func (r *Ring) Changed() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed
}

// MarkOutput notes that a command a program typed and ran began to print at off (after the
// line showing it): readers that wait for its output start there (OutputAt).
func (r *Ring) MarkOutput(off int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.outputAt = max64(r.outputAt, off)
}

// OutputAt returns where the newest command MarkOutput noted began to print (0: none).
func (r *Ring) OutputAt() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.outputAt
}

// ElidedEnd returns where the newest range Elide hid ends (0 when none was hidden).
func (r *Ring) ElidedEnd() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var end int64
	for _, e := range r.elided {
		end = max64(end, e.to)
	}
	return end
}

// MaskElided blanks in data, read from stream offset start, what Elide hid, for a reader of
// the raw output that must not show it (a recording): its characters become spaces while
// control characters and escape sequences stay, so the cursor moves as it did.
func (r *Ring) MaskElided(data []byte, start int64) {
	r.mu.Lock()
	spans := append([]span(nil), r.elided...)
	r.mu.Unlock()
	end := start + int64(len(data))
	for _, e := range spans {
		if e.to <= start || e.from >= end {
			continue
		}
		maskText(data[max64(e.from, start)-start : min64(e.to, end)-start])
	}
}

// maskText turns the printable characters of b into spaces (one per character), leaving
// control characters and ESC sequences (CSI, OSC and two-byte ones) as they are.
func maskText(b []byte) {
	const (
		text = iota
		esc
		csi
		osc
	)
	state := text
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch state {
		case esc:
			switch c {
			case '[':
				state = csi
			case ']':
				state = osc
			default:
				state = text
			}
		case csi:
			if c >= 0x40 && c <= 0x7e {
				state = text
			}
		case osc:
			if c == 0x07 || c == 0x1b {
				state = text
			}
		default:
			switch {
			case c == 0x1b:
				state = esc
			case c >= 0x20 && c < 0x7f:
				b[i] = ' '
			case c >= 0xc0:
				b[i] = ' ' // a character's first byte; its continuation bytes go
				j := i + 1
				for j < len(b) && b[j]&0xc0 == 0x80 {
					j++
				}
				copy(b[i+1:], b[j:])
				for k := len(b) - (j - i - 1); k < len(b); k++ {
					b[k] = 0 // NULs at the end: a terminal draws nothing for them
				}
			}
		}
	}
}
