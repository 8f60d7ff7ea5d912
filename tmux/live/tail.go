package live

import (
	"context"
	"errors"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// maxReopen bounds how often a Tail opens its pane's stream anew.
const maxReopen = 3

// Chunk is what one Tail.Read returned: Data (valid until the next Read) at stream offset At,
// after Missed bytes dropped unread and Gaps losses of unknown size.
type Chunk = stream.Chunk

// Tail follows one pane's kept stream for a reader that waits on it, as text (bytes a run hid
// read as NUL). When the stream ends while the pane lives on (its session was destroyed while
// the pane's window lives in another one, its connection closed), it opens the pane's stream
// anew, a few times at most, and says so (Reopened). It is not safe for concurrent use.
type Tail struct {
	ls       *Streams
	ts       *tmux.Server
	k        Key
	s        *Stream // nil once the stream could not be opened again
	f        *stream.Follower
	reopens  int  // attempts to open the stream anew
	reopened bool // one succeeded
}

// OpenTail takes pane k's kept stream; choose where to read from with From, and give the
// stream back with Close.
func (ls *Streams) OpenTail(ctx context.Context, ts *tmux.Server, k Key) (*Tail, error) {
	s, err := ls.Acquire(ctx, ts, k)
	if err != nil {
		return nil, err
	}
	return &Tail{ls: ls, ts: ts, k: k, s: s}, nil
}

// Stream is the kept stream followed now (nil once it could not be opened again).
func (t *Tail) Stream() *Stream { return t.s }

// From sets the offset the reads start from.
func (t *Tail) From(off int64) {
	t.f = stream.NewFollower(t.s.e.Watch(), off).Text().OnEnd(t.reopen)
}

// Read returns the output available now after the last read (at most max bytes), without
// blocking; an empty chunk when there is none. err is the stream's end reason (ErrPaneGone,
// ErrOffsetAhead, ...) once there is nothing more to read.
func (t *Tail) Read(ctx context.Context, max int) (Chunk, error) { return t.f.Read(ctx, max) }

// Changed is closed when the stream followed now is written to or ends; take it before a Read
// that found nothing, and wait on it.
func (t *Tail) Changed() <-chan struct{} { return t.f.Watch().Changed() }

// Offset is where the next Read goes on.
func (t *Tail) Offset() int64 { return t.f.Offset() }

// Reopened says the stream was opened anew: what the pane printed meanwhile was not seen.
func (t *Tail) Reopened() bool { return t.reopened }

// Close gives the stream back.
func (t *Tail) Close() {
	if t.s != nil {
		t.ls.Release(t.s)
		t.s = nil
	}
}

func (t *Tail) reopen(ctx context.Context, ended error) (*stream.Watch, error) {
	if errors.Is(ended, stream.ErrOffsetAhead) || errors.Is(ended, stream.ErrPaneGone) || errors.Is(ended, stream.ErrServerGone) || t.reopens >= maxReopen {
		return nil, ended
	}
	t.reopens++
	t.ls.Drop(t.s)
	t.ls.Release(t.s)
	s, err := t.ls.Acquire(ctx, t.ts, t.k)
	if err != nil {
		t.s = nil
		return nil, ended
	}
	t.s, t.reopened = s, true
	return s.e.Watch(), nil
}
