package cmdhist

import (
	"context"
	"errors"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// readChunk bounds one read of a followed pane's stream.
const readChunk = 64 << 10

// caughtUp waits (a little at most) until the history holds what the pane's stream held when
// called, so that a result reflects the output read so far.
func (f *Pane) caughtUp(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	f.mu.Lock()
	w := f.w
	f.mu.Unlock()
	target := w.Offset()
	for {
		f.mu.Lock()
		done := f.w != w || f.read >= target || f.ended != nil
		adv := f.adv
		f.mu.Unlock()
		if done {
			return
		}
		select {
		case <-adv:
		case <-ctx.Done():
			return
		}
	}
}

// advancedLocked records that the reader reached off; called with f.mu held.
func (f *Pane) advancedLocked(off int64) {
	f.read = off
	close(f.adv)
	f.adv = make(chan struct{})
}

// run reads the pane's stream into the history until the pane is gone or the follow ends.
func (f *Pane) run(ctx context.Context, ts *tmux.Server, fs *Panes, off int64) {
	defer close(f.done)
	f.mu.Lock()
	w := f.w
	f.advancedLocked(off)
	f.mu.Unlock()
	if !f.fromStart {
		f.queryCwd(ctx, ts) // the directory of the first command, in a shell without OSC 7
	}
	for {
		err := f.readAll(ctx, ts, w, &off)
		if ctx.Err() == nil && !errors.Is(err, stream.ErrPaneGone) {
			// The connection went (the pane's session ended but the pane lives on elsewhere,
			// or tmux was reconnected): follow it on a new stream, with a gap.
			if nw, werr := ts.WatchPane(ctx, f.key.pane); werr == nil {
				w, off = nw, f.restart(fs, w, nw)
				continue
			}
		}
		f.end(ctx, fs, w, off, err)
		return
	}
}

// readAll feeds the history with what w holds from *off on, waiting for more, until the
// stream ends or ctx does; it returns why.
func (f *Pane) readAll(ctx context.Context, ts *tmux.Server, w *stream.Watch, off *int64) error {
	var buf []byte
	for {
		data, next, missed, err := w.AppendRead(buf, *off, readChunk)
		buf = data[:0]
		if missed > 0 || (len(data) > 0 && w.Gaps(*off, next) > 0) {
			f.mu.Lock()
			f.h.Gap()
			f.mu.Unlock()
		}
		if len(data) > 0 {
			f.take(ctx, ts, data, next-int64(len(data)))
			*off = next
			continue
		}
		if err == nil {
			err = w.Wait(ctx, *off)
		}
		if err != nil {
			return err
		}
	}
}

// restart goes on in the new stream nw (old ended) and returns its offset.
func (f *Pane) restart(fs *Panes, old, nw *stream.Watch) int64 {
	fs.mu.Lock()
	id := fs.newStreamLocked()
	fs.mu.Unlock()
	f.mu.Lock()
	defer f.mu.Unlock()
	old.Release()
	f.w, f.stream = nw, id
	f.h.NewStream(id)
	off := nw.Offset()
	f.advancedLocked(off)
	return off
}

// end records why the follow ended (err, else ctx's error) and forgets it.
func (f *Pane) end(ctx context.Context, fs *Panes, w *stream.Watch, off int64, err error) {
	f.mu.Lock()
	f.ended = err
	if f.ended == nil {
		f.ended = ctx.Err()
	}
	w.Release()
	f.advancedLocked(off)
	f.mu.Unlock()
	fs.forget(f)
}

// take feeds data (at offset off) to the history, then does what the marks ask of tmux: the
// directory of a shell that does not report it, and the pane option doctor reads.
func (f *Pane) take(ctx context.Context, ts *tmux.Server, data []byte, off int64) {
	f.mu.Lock()
	done := f.h.Finished()
	f.h.Write(data, off, time.Now())
	f.advancedLocked(off + int64(len(data)))
	needCwd := f.h.Finished() != done && f.h.AtPrompt() && !f.h.SawCwd()
	flag := f.h.SawMarks() && !f.flagged
	f.flagged = f.flagged || flag
	f.mu.Unlock()
	if !needCwd && !flag {
		return
	}
	qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if flag {
		_ = ts.Do(qctx, &tmux.SetPaneOption{Pane: f.key.pane, Name: MarksSeenOption, Value: "1"})
	}
	if needCwd {
		f.queryCwd(qctx, ts) // at its prompt the shell's directory is where its next command runs
	}
}

// queryCwd sets the directory of the next command from tmux, for a shell without OSC 7.
func (f *Pane) queryCwd(ctx context.Context, ts *tmux.Server) {
	op := &tmux.PanePath{Pane: f.key.pane}
	if err := ts.Do(ctx, op); err == nil && op.Path != "" {
		f.mu.Lock()
		f.h.SetCwd(op.Path)
		f.mu.Unlock()
	}
}
