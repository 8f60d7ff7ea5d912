package stream

import (
	"context"
)

// Follower reads one pane's stream in order from an offset: the one loop over a stream that
// every reader (a run, wait_for_text, capture_since) uses. It counts what was lost before what
// it returns (bytes the ring dropped before they were read, gaps tmux reported), and, when the
// stream ends for a reason its reopen function accepts (the session carrying it went while the
// pane lives on elsewhere, its connection closed), goes on in the stream that function opens,
// counting a gap for what was printed in between. It is not safe for concurrent use.
type Follower struct {
	w      *Watch
	off    int64
	text   bool
	reopen func(ctx context.Context, ended error) (*Watch, error)
	buf    []byte // what Read returns, reused: else a large output allocates a fresh chunk per read
}

// Chunk is what one Read returned.
type Chunk struct {
	// Data is valid until the next Read: the follower reuses its buffer.
	Data   []byte
	At     int64 // the stream offset of Data[0]
	Missed int64 // bytes dropped before Data could be read
	Gaps   int   // times output of unknown size was lost before Data (a reopen counts one)
}

// NewFollower follows w from offset off.
func NewFollower(w *Watch, off int64) *Follower { return &Follower{w: w, off: off} }

// Text makes Read return the bytes Elide hid as NUL (see Ring.ReadText), for readers of the
// text a pane shows. It returns f.
func (f *Follower) Text() *Follower {
	f.text = true
	return f
}

// OnEnd sets how to go on when the stream ends: reopen returns a new Watch, or an error (the
// end reason, when the end is final), and is told why the stream ended. Without it, an end is
// final. It returns f.
func (f *Follower) OnEnd(reopen func(ctx context.Context, ended error) (*Watch, error)) *Follower {
	f.reopen = reopen
	return f
}

// Watch returns the stream followed now.
func (f *Follower) Watch() *Watch { return f.w }

// Offset returns the offset Read reads from next.
func (f *Follower) Offset() int64 { return f.off }

// Read returns the next chunk available now (at most max bytes; all when max <= 0) without
// blocking, and an empty chunk when there is nothing new. At the stream's end it reopens when
// OnEnd allows and goes on; err is the end reason once there is nothing more to read.
func (f *Follower) Read(ctx context.Context, max int) (Chunk, error) {
	read := f.w.AppendRead
	if f.text {
		read = f.w.AppendReadText
	}
	data, next, missed, err := read(f.buf, f.off, max)
	if len(data) > 0 && cap(data) <= 1<<20 {
		f.buf = data[:0] // a read of everything (max <= 0) may be larger: not kept
	}
	c := Chunk{Data: data, At: next - int64(len(data)), Missed: missed}
	if len(data) > 0 {
		c.Gaps = f.w.Gaps(f.off+missed, next)
		f.off = next
		return c, nil
	}
	f.off = next
	if err == nil || f.reopen == nil {
		return c, err
	}
	w, rerr := f.reopen(ctx, err)
	if rerr != nil {
		return c, rerr
	}
	f.w, f.off = w, w.Offset()
	c.Gaps++ // what was printed in between is lost
	return c, nil
}

// Wait blocks until Read has something to return (data or the stream's end) or ctx is done.
func (f *Follower) Wait(ctx context.Context) error { return f.w.Wait(ctx, f.off) }
