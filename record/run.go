package record

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/asciicast"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/control"
	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// Bounds of the recorder's own requests to tmux: the pane's size after a layout change, and a
// new stream after the old one's session went.
const (
	sizeTimeout    = 2 * time.Second
	rewatchTimeout = 5 * time.Second
)

// run writes the stream's output from offset off until the recording ends. It sleeps on the
// stream, on marks and layout changes (kick) and on Stop; nothing polls.
func (r *Recording) run(off int64) {
	defer close(r.done)
	defer r.listenLayout()()
	var (
		rec   = writer{r: r}
		ended string
	)
	for rec.err == "" {
		w := r.watch
		changed := w.Changed()
		limit, until := r.held(w, off)
		next, err := r.copyOut(&rec, w, off, limit)
		off = next
		if err == nil && ended == EndStopped {
			break // what the pane printed before Stop is in
		}
		if err != nil {
			if nw := r.rewatch(err); nw != nil {
				off = nw.Offset()
				rec.marker("stream reconnected: output printed meanwhile may be missing")
				continue
			}
			ended = endReason(err)
			break
		}
		rec.size()
		rec.pendingMarks(off)
		rec.flush()
		if r.sleep(changed, until) {
			ended = EndStopped // one more read, then out
		}
	}
	rec.pendingMarks(math.MaxInt64) // placed before the end: their place is the end
	if rec.err != "" {
		ended = rec.err
	}
	r.finish(&rec, ended)
}

// listenLayout has the size checked again after each layout change (a pane of a window
// resized, split, or closed); it returns the function that stops listening.
func (r *Recording) listenLayout() func() {
	hub, err := r.ts.Hub()
	if err != nil {
		return func() {}
	}
	return hub.Listen(func(_ string, n control.Notification) {
		if n.Name == "layout-change" {
			r.mu.Lock()
			r.checkDim = true
			r.mu.Unlock()
			r.poke()
		}
	})
}

// copyOut writes what stream w holds from off, up to limit bytes (all when negative, none
// when 0), and returns where it stopped with the stream's end, if it ended.
func (r *Recording) copyOut(rec *writer, w *stream.Watch, off int64, limit int64) (int64, error) {
	var (
		data   []byte
		next   = off
		missed int64
		err    error
	)
	if limit != 0 {
		data, next, missed, err = w.Read(off, int(max(limit, 0)))
	}
	if missed > 0 || w.Gaps(off, next) > 0 {
		rec.lost(missed)
	}
	w.MaskElided(data, next-int64(len(data)))
	rec.output(data, next-int64(len(data)))
	return next, err
}

// sleep waits for the stream to change, the hold to end (until, when not zero), a kick or
// Stop; it reports whether Stop came.
func (r *Recording) sleep(changed <-chan struct{}, until time.Time) (stopped bool) {
	var holdEnd <-chan time.Time
	if !until.IsZero() {
		t := time.NewTimer(time.Until(until))
		defer t.Stop()
		holdEnd = t.C
	}
	select {
	case <-holdEnd:
	case <-changed:
	case <-r.kick:
	case <-r.stop:
		r.mu.Lock()
		r.holding = false
		r.mu.Unlock()
		return true
	}
	return false
}

// rewatch opens the pane's stream again when it ended only because its session went (the
// pane lives on in another session its window is linked into), and returns it.
func (r *Recording) rewatch(err error) *stream.Watch {
	if !errors.Is(err, stream.ErrSessionGone) {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), rewatchTimeout)
	defer cancel()
	nw, err := r.ts.WatchPane(ctx, r.pane)
	if err != nil {
		return nil
	}
	r.mu.Lock()
	old := r.watch
	r.watch = nw
	for i := range r.marks {
		r.marks[i].at = -1 // offsets of the old stream: write them next
	}
	r.mu.Unlock()
	old.Release()
	return nw
}

// endReason names why a stream ended.
func endReason(err error) string {
	switch {
	case errors.Is(err, stream.ErrPaneGone):
		return EndPaneExited
	case errors.Is(err, stream.ErrServerGone), errors.Is(err, stream.ErrHubClosed), errors.Is(err, stream.ErrSessionGone):
		return EndServerGone
	}
	return fmt.Sprintf("stream ended: %v", err)
}

// finish writes the closing marker, closes the file and records how it ended.
func (r *Recording) finish(rec *writer, ended string) {
	label := "recording ended: " + ended
	closeErr := r.w.Close(time.Since(r.start), label)
	if closeErr == nil {
		rec.count(asciicast.Marker)
		closeErr = r.f.Sync()
	}
	if err := r.f.Close(); closeErr == nil {
		closeErr = err
	}
	r.mu.Lock()
	r.watch.Release()
	r.sum.Ended = ended
	if closeErr != nil && ended == EndStopped {
		r.sum.Ended = "write error: " + closeErr.Error()
	}
	r.sum.Duration = time.Since(r.start)
	r.sum.Bytes, r.sum.Events = r.w.Bytes(), r.w.Events()
	r.marks = nil
	r.mu.Unlock()
}

// writer writes one recording's events from its goroutine and keeps its counts.
type writer struct {
	r     *Recording
	carry []byte // an incomplete UTF-8 character at the end of the last chunk
	err   string // why writing stopped (the limit, a write error); "" while it goes on
}

// put writes one event; after a failure it writes nothing more.
func (w *writer) put(code, data string) {
	if w.err != "" {
		return
	}
	switch err := w.r.w.Write(time.Since(w.r.start), code, data); {
	case errors.Is(err, asciicast.ErrLimit):
		w.err = EndLimit
		w.r.mu.Lock()
		w.r.sum.LimitReached = true
		w.r.mu.Unlock()
	case err != nil:
		w.err = "write error: " + err.Error()
	default:
		w.count(code)
	}
}

func (w *writer) count(code string) {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	switch code {
	case asciicast.Output:
		w.r.sum.Outputs++
	case asciicast.Resize:
		w.r.sum.Resizes++
	case asciicast.Marker:
		w.r.sum.Markers++
	}
}

func (w *writer) marker(label string) { w.put(asciicast.Marker, label) }

// lost marks output that never reached the recording.
func (w *writer) lost(missed int64) {
	w.carry = nil
	if missed > 0 {
		w.marker(fmt.Sprintf("output lost: %d bytes went by faster than they could be recorded", missed))
		return
	}
	w.marker("output lost: tmux dropped output while the stream was paused")
}

// output writes data, which starts at stream offset at, with the marks placed within it
// written where they were placed.
func (w *writer) output(data []byte, at int64) {
	for _, m := range w.r.takeMarks(at + int64(len(data))) {
		cut := min(max(m.at-at, 0), int64(len(data)))
		w.text(data[:cut])
		data, at = data[cut:], at+cut
		w.marker(m.label)
	}
	w.text(data)
}

// pendingMarks writes the marks placed up to offset off (or on no stream).
func (w *writer) pendingMarks(off int64) {
	for _, m := range w.r.takeMarks(off) {
		w.marker(m.label)
	}
}

// text writes output as one event, holding back an incomplete UTF-8 character at its end
// until its next chunk (asciicast data is text).
func (w *writer) text(b []byte) {
	if len(b) == 0 {
		return
	}
	if len(w.carry) > 0 {
		b = append(w.carry, b...)
		w.carry = nil
	}
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				w.carry = append([]byte(nil), b[i:]...)
				b = b[:i]
			}
			break
		}
	}
	if len(b) > 0 {
		w.put(asciicast.Output, string(b))
	}
}

// size writes a resize event when a layout change left the pane another size.
func (w *writer) size() {
	r := w.r
	r.mu.Lock()
	check := r.checkDim
	r.checkDim = false
	r.mu.Unlock()
	if !check {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), sizeTimeout)
	defer cancel()
	st := &tmux.Screen{Pane: r.pane}
	if err := r.ts.Do(ctx, st); err != nil {
		return // the stream says when the pane is gone
	}
	cols, rows := st.Width, st.Height
	r.mu.Lock()
	same := cols <= 0 || rows <= 0 || cols == r.sum.Width && rows == r.sum.Height
	if !same {
		r.sum.Width, r.sum.Height = cols, rows
	}
	r.mu.Unlock()
	if !same {
		w.put(asciicast.Resize, asciicast.SizeData(cols, rows))
	}
}

// flush writes the events out, so that a player (asciinema play) or a crash sees them.
func (w *writer) flush() {
	if w.err == "" {
		if err := w.r.w.Flush(); err != nil {
			w.err = "write error: " + err.Error()
		}
	}
	r := w.r
	r.mu.Lock()
	r.sum.Bytes, r.sum.Events = r.w.Bytes(), r.w.Events()
	r.mu.Unlock()
}

// takeMarks removes and returns the marks placed at or before offset end, or on no stream.
func (r *Recording) takeMarks(end int64) []mark {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for n < len(r.marks) && r.marks[n].at <= end {
		n++
	}
	if n == 0 {
		return nil
	}
	taken := append([]mark(nil), r.marks[:n]...)
	r.marks = r.marks[n:]
	return taken
}
