package stream

import (
	"bytes"
	"context"
	"sync"
)

// Watch is one holder's handle on a watched pane's stream. Several Watches
// of one pane share its ring; offsets are absolute, so each holder keeps
// its own. Methods are safe for concurrent use.
type Watch struct {
	hub     *Hub
	session string
	ps      *paneStream
	once    sync.Once
}

// Pane returns the watched pane's id.
func (w *Watch) Pane() string { return w.ps.id }

// Session returns the session whose connection carries the stream.
func (w *Watch) Session() string { return w.session }

// Offset returns the current end of the stream: reading from it later
// returns everything the pane printed after this call.
func (w *Watch) Offset() int64 { return w.ps.ring.End() }

// Read returns up to max bytes after off; see Ring.Read.
func (w *Watch) Read(off int64, max int) (data []byte, next int64, missed int64, err error) {
	return w.ps.ring.Read(off, max)
}

// ReadText is Read with the bytes Elide hid read as NUL; see Ring.ReadText.
func (w *Watch) ReadText(off int64, max int) (data []byte, next int64, missed int64, err error) {
	return w.ps.ring.ReadText(off, max)
}

// AppendRead is Read into dst's buffer; see Ring.AppendRead.
func (w *Watch) AppendRead(dst []byte, off int64, max int) (data []byte, next int64, missed int64, err error) {
	return w.ps.ring.AppendRead(dst, off, max)
}

// AppendReadText is ReadText into dst's buffer; see Ring.AppendReadText.
func (w *Watch) AppendReadText(dst []byte, off int64, max int) (data []byte, next int64, missed int64, err error) {
	return w.ps.ring.AppendReadText(dst, off, max)
}

// Elide hides the bytes [from, to) from every holder's ReadText; see Ring.Elide.
func (w *Watch) Elide(from, to int64) { w.ps.ring.Elide(from, to) }

// Wait blocks until there is data beyond off, the stream ends, or ctx is
// done; see Ring.Wait.
func (w *Watch) Wait(ctx context.Context, off int64) error {
	return w.ps.ring.Wait(ctx, off)
}

// LineAfter waits until the pane printed a line feed after off, the stream ends, or ctx is
// done, and reports whether it printed one. A shell at its prompt has taken a C-c once it did:
// every shell starts a new line for its prompt when it drops a line (fish prints nothing for
// a C-c at an empty prompt).
func (w *Watch) LineAfter(ctx context.Context, off int64) bool {
	for {
		data, next, _, err := w.Read(off, 0)
		if bytes.IndexByte(data, '\n') >= 0 {
			return true
		}
		if err != nil || w.Wait(ctx, next) != nil {
			return false
		}
		off = next
	}
}

// Changed returns a channel closed at the stream's next write or end.
func (w *Watch) Changed() <-chan struct{} { return w.ps.ring.Changed() }

// Gaps reports how many times tmux discarded output of unknown size within
// the bytes [from, to) (flow control paused the pane); see Ring.Gaps.
func (w *Watch) Gaps(from, to int64) int { return w.ps.ring.Gaps(from, to) }

// Err returns the stream's end reason (ErrPaneGone, ErrServerGone,
// ErrSessionGone, ErrHubClosed, ErrReleased), or nil while it runs.
func (w *Watch) Err() error { return w.ps.ring.Err() }

// Release gives the handle back. When no Watch holds the pane any more its
// ring is dropped; when the session's connection carries no stream it
// lingers, then closes. Release is idempotent.
func (w *Watch) Release() {
	w.once.Do(func() {
		w.hub.mu.Lock() // ps.link changes under Hub.replace
		w.ps.link.release(w.ps)
		w.hub.mu.Unlock()
	})
}

// MarkOutput notes where a command began to print; see Ring.MarkOutput.
func (w *Watch) MarkOutput(off int64) { w.ps.ring.MarkOutput(off) }

// OutputAt returns where the newest command noted began to print; see Ring.OutputAt.
func (w *Watch) OutputAt() int64 { return w.ps.ring.OutputAt() }

// ElidedEnd returns where the newest range Elide hid ends; see Ring.ElidedEnd.
func (w *Watch) ElidedEnd() int64 { return w.ps.ring.ElidedEnd() }

// MaskElided blanks what Elide hid in raw data read at start; see Ring.MaskElided.
func (w *Watch) MaskElided(data []byte, start int64) { w.ps.ring.MaskElided(data, start) }
