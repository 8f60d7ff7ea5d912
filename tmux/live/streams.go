package live

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// Errors of the streams' reads.
var (
	// ErrNoStream is wrapped into the error of a read whose pane stream could not be opened.
	ErrNoStream = errors.New("no live stream of the pane could be opened")
	// ErrPaneGone: the pane exited or died; its stream ended.
	ErrPaneGone = stream.ErrPaneGone
	// ErrOffsetAhead: a position lies beyond the pane's output (it is not of this stream).
	ErrOffsetAhead = stream.ErrOffsetAhead
)

// Key names a pane on one tmux daemon: a restarted server reuses pane ids.
type Key struct {
	Daemon tmux.Identity
	Pane   string
}

// Position is a place in a pane's output: the generation of the kept stream and a byte
// offset in it.
type Position struct {
	Gen    uint64
	Offset int64
}

// Streams are the pane streams kept open between calls, so that a position handed out by one
// call is read from by a later one. A stream unused for a while is closed. The zero value is
// ready to use.
type Streams struct {
	k stream.Keeper[Key]
}

// Stream is one kept pane stream, in use until given back with Streams.Release.
type Stream struct {
	e *stream.Kept[Key]
}

// Gen is the stream's generation: unique in the process, new when a pane's stream is opened
// again (its offsets start anew).
func (s *Stream) Gen() uint64 { return s.e.Gen() }

// Offset is the end of what the pane printed so far: a read from it misses nothing printed
// afterwards.
func (s *Stream) Offset() int64 { return s.e.Watch().Offset() }

// OutputAt is where the newest run's command began to print, after the line showing it (0:
// none known).
func (s *Stream) OutputAt() int64 { return s.e.Watch().OutputAt() }

// Position is the stream's end now (see Offset).
func (s *Stream) Position() Position { return Position{Gen: s.Gen(), Offset: s.Offset()} }

// Acquire returns pane k's kept stream on ts, opening one when needed; give it back with
// Release. Its error wraps ErrNoStream.
func (ls *Streams) Acquire(ctx context.Context, ts *tmux.Server, k Key) (*Stream, error) {
	e, err := ls.k.Acquire(ctx, k, func(ctx context.Context) (*stream.Watch, error) { return ts.WatchPane(ctx, k.Pane) })
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoStream, err)
	}
	return &Stream{e: e}, nil
}

// Release gives back a stream Acquire returned.
func (ls *Streams) Release(s *Stream) { ls.k.Release(s.e) }

// Drop forgets a stream that ended, so that the next Acquire opens a new one; release it still.
func (ls *Streams) Drop(s *Stream) { ls.k.Drop(s.e) }

// CloseAll closes every kept stream.
func (ls *Streams) CloseAll() { ls.k.CloseAll() }

// Since is what Read found.
type Since struct {
	// Next is where the next read goes on.
	Next Position
	// Fresh says nothing was read: no position was given, or its stream is no longer kept.
	// Next is then the stream's end, taken before the call returned: the caller shows what
	// the pane shows now, and the next read misses nothing printed after it.
	Fresh bool
	// Lines are the text lines the pane printed after the position.
	Lines []string
	// Missed says output after the position was lost (more than the stream holds, or lost
	// by tmux).
	Missed bool
}

// Read returns what pane k printed after at (nil: a fresh read), waiting up to wait for output
// when there is none yet. A stream that ended for another reason than the pane's end is
// opened again once (the read is then Fresh). It fails with ErrPaneGone, ErrOffsetAhead, an
// error wrapping ErrNoStream, or ctx's error.
func (ls *Streams) Read(ctx context.Context, ts *tmux.Server, k Key, at *Position, wait time.Duration) (Since, error) {
	for attempt := 0; ; attempt++ {
		s, err := ls.Acquire(ctx, ts, k)
		if err != nil {
			return Since{}, err
		}
		out, err := s.read(ctx, at, wait)
		if err != nil && !errors.Is(err, ErrPaneGone) && !errors.Is(err, ErrOffsetAhead) && ctx.Err() == nil {
			// The stream ended for another reason (its connection closed): open a new one.
			ls.Drop(s)
			ls.Release(s)
			if attempt > 0 {
				return Since{}, fmt.Errorf("%w: %w", ErrNoStream, err)
			}
			continue
		}
		ls.Release(s)
		return out, err
	}
}

func (s *Stream) read(ctx context.Context, at *Position, wait time.Duration) (Since, error) {
	w := s.e.Watch()
	if at == nil || at.Gen != s.Gen() {
		return Since{Next: s.Position(), Fresh: true}, nil
	}
	if wait > 0 {
		wctx, cancel := context.WithTimeout(ctx, wait)
		err := w.Wait(wctx, at.Offset)
		cancel()
		if err != nil && ctx.Err() != nil {
			return Since{}, ctx.Err()
		}
	}
	f := stream.NewFollower(w, at.Offset).Text()
	ch, err := f.Read(ctx, 0)
	if err != nil {
		return Since{}, err
	}
	return Since{
		Next:   Position{Gen: s.Gen(), Offset: f.Offset()},
		Lines:  stream.Clean(ch.Data),
		Missed: ch.Missed > 0 || ch.Gaps > 0,
	}, nil
}

// LineAfter waits until the pane printed a line feed after off, or until limit passed, and
// reports whether it did (see stream.Watch.LineAfter).
func (s *Stream) LineAfter(ctx context.Context, off int64, limit time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	return s.e.Watch().LineAfter(ctx, off)
}

// QuietAfter waits until the pane printed something after off and then nothing for quiet, or
// until limit passed; it returns the offset it read up to.
func (s *Stream) QuietAfter(ctx context.Context, off int64, quiet, limit time.Duration) int64 {
	w := s.e.Watch()
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	saw := false
	for {
		_, next, _, err := w.Read(off, 0)
		if err != nil {
			return off
		}
		if next > off {
			off, saw = next, true
		}
		wait := limit
		if saw {
			wait = quiet
		}
		wctx, wcancel := context.WithTimeout(ctx, wait)
		err = w.Wait(wctx, off)
		wcancel()
		if err != nil {
			return off // quiet (or the limit, or the stream's end)
		}
	}
}
