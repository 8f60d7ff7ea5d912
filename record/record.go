// Package record records a tmux pane into an asciicast v2 file from its live output stream
// (tmux/stream): the screen as it was at the start, one "o" event per chunk of output, an "r"
// event when the pane changes size (woken by tmux's %layout-change), "m" markers that callers
// place (a command began or ended) and markers where output was lost (a flood beyond the
// stream's ring, tmux's flow control, a stream reconnected). Nothing polls: the recorder
// sleeps on the stream until tmux sends something. It stops when told, when the pane or its
// server goes, or at its size limit, and leaves a complete file every time: each event is
// one whole line, flushed as soon as it is written.
package record

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tmux-mcp/tmux-mcp/asciicast"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// DefaultMaxBytes is a recording's size limit when none is given: 64 MiB.
const DefaultMaxBytes = 64 << 20

// Options say where and how to record.
type Options struct {
	Path      string // absolute; the caller confines it
	Overwrite bool   // replace an existing file; else an existing file is refused
	MaxBytes  int64  // size limit (DefaultMaxBytes when <= 0)
	Title     string // the header's title ("" for the pane's command)
}

// Why a recording ended.
const (
	EndStopped    = "stopped"
	EndPaneExited = "pane exited"
	EndServerGone = "tmux server exited"
	EndLimit      = "size limit reached"
	EndClosed     = "recorder closed"
)

// ErrExists means the file exists and Options.Overwrite is false.
var ErrExists = errors.New("the file exists")

// Summary describes a recording, running or ended.
type Summary struct {
	Pane, Path    string
	Title         string
	Width, Height int
	MaxBytes      int64
	Started       time.Time
	Duration      time.Duration // so far, or in all once ended
	Bytes         int64
	Events        int
	Outputs       int    // "o" events
	Resizes       int    // "r" events
	Markers       int    // "m" events
	Ended         string // "" while running, else one of the End* reasons (or a write error)
	LimitReached  bool
}

// Recording is one pane being recorded.
type Recording struct {
	ts    *tmux.Server
	pane  string
	start time.Time
	f     *os.File
	w     *asciicast.Writer

	kick    chan struct{} // capacity 1: a mark or a size check is pending
	stop    chan struct{}
	stopped sync.Once
	done    chan struct{}

	mu       sync.Mutex
	sum      Summary
	marks    []mark // placed, not yet written
	watch    *stream.Watch
	checkDim bool // a %layout-change arrived: compare the pane's size
	// holdAt, while holding, is the stream offset output is written up to (see Hold);
	// holdUntil ends the hold at the latest.
	holding   bool
	holdAt    int64
	holdUntil time.Time
}

// holdMax bounds a hold: a run's typed line is redrawn (and hidden) well within it.
const holdMax = 3 * time.Second

// Hold keeps output from the stream's current offset on out of the file until the text
// readers' view hides what a run typed (the wrapper's line, which the run redraws as the
// command: a cast holds only what a person's screen kept), until release, or holdMax at most.
// The held output is then written with the hidden part blanked.
func (r *Recording) Hold() (release func()) {
	r.mu.Lock()
	if r.watch != nil && !r.holding {
		r.holding, r.holdAt, r.holdUntil = true, r.watch.Offset(), time.Now().Add(holdMax)
	}
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		r.holding = false
		r.mu.Unlock()
		r.poke()
	}
}

// held returns how far output may be written from off (-1: no limit) and, while holding, when
// the hold ends at the latest.
func (r *Recording) held(w *stream.Watch, off int64) (limit int64, until time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.holding && (time.Now().After(r.holdUntil) || w.ElidedEnd() > r.holdAt) {
		r.holding = false
	}
	if !r.holding {
		return -1, time.Time{}
	}
	return max(r.holdAt-off, 0), r.holdUntil
}

// mark is a marker to write where the stream stood when it was placed.
type mark struct {
	at    int64 // stream offset; -1 when no stream is open
	label string
}

// noFollow refuses a symlink as the file itself (a path checked, then swapped for a link).
const noFollow = syscall.O_NOFOLLOW

// Start begins recording pane into o.Path. The file is created (0600: a pane's output can
// hold secrets) before anything else can fail late, and holds a header and the first frame
// when Start returns.
func Start(ctx context.Context, ts *tmux.Server, pane string, o Options) (*Recording, error) {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	// The stream first: output from here on is in its ring, so nothing falls between the
	// first frame and the first event (at worst a line is drawn twice).
	w, err := ts.WatchPane(ctx, pane)
	if err != nil {
		return nil, err
	}
	off := w.Offset()
	// The pane and its screen at one instant.
	st, cp := &tmux.Screen{Pane: pane}, &tmux.Capture{Pane: pane, Escapes: true, Trailing: true}
	if err := ts.Batch(ctx, st, cp); err != nil {
		w.Release()
		return nil, err
	}
	if st.Dead {
		w.Release()
		return nil, fmt.Errorf("pane %s is dead: %w", pane, tmux.ErrNotFound)
	}
	r := &Recording{ts: ts, pane: pane, start: time.Now(), kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}), watch: w}
	r.sum = Summary{Pane: pane, Path: o.Path, Title: o.Title, Width: st.Width, Height: st.Height, MaxBytes: o.MaxBytes, Started: r.start}
	if r.sum.Title == "" {
		r.sum.Title = st.Command
	}
	if err := r.open(o, firstFrame(cp.Lines, st.CursorX, st.CursorY, st.AlternateOn)); err != nil {
		w.Release()
		return nil, err
	}
	go r.run(off)
	return r, nil
}

// open creates the file and writes the header and the first frame.
func (r *Recording) open(o Options, frame string) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL | noFollow
	if o.Overwrite {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC | noFollow
	}
	f, err := os.OpenFile(o.Path, flags, 0o600)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s: %w", o.Path, ErrExists)
	}
	if err != nil {
		return err
	}
	h := asciicast.Header{Width: r.sum.Width, Height: r.sum.Height, Timestamp: r.start.Unix(), Title: r.sum.Title}
	w, err := asciicast.NewWriter(f, h, o.MaxBytes)
	if err == nil {
		err = w.Write(0, asciicast.Output, frame)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", o.Path, err)
	}
	r.f, r.w = f, w
	r.sum.Events, r.sum.Outputs, r.sum.Bytes = w.Events(), 1, w.Bytes()
	return nil
}

// firstFrame draws the screen that capture-pane -e -N printed, for a player that starts
// from a blank terminal: on the alternate screen when the pane is, the cursor where it was.
func firstFrame(lines []string, cx, cy int, alt bool) string {
	var b strings.Builder
	if alt {
		b.WriteString("\x1b[?1049h")
	}
	b.WriteString("\x1b[H\x1b[2J")
	// tmux carries the style from one line to the next (it writes only changes): no reset
	// between lines.
	b.WriteString(strings.Join(lines, "\r\n"))
	fmt.Fprintf(&b, "\x1b[0m\x1b[%d;%dH", cy+1, cx+1)
	return b.String()
}

// Mark places a marker at the current end of the pane's output (a command is about to be
// typed, or has just ended).
func (r *Recording) Mark(label string) {
	r.mu.Lock()
	at := int64(-1)
	if r.watch != nil {
		at = r.watch.Offset()
	}
	if r.sum.Ended == "" && len(r.marks) < 1000 {
		r.marks = append(r.marks, mark{at: at, label: label})
	}
	r.mu.Unlock()
	r.poke()
}

func (r *Recording) poke() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// Stop ends the recording (if it still runs) and returns its summary once the file is
// complete.
func (r *Recording) Stop() Summary {
	r.stopped.Do(func() { close(r.stop) })
	<-r.done
	return r.Summary()
}

// Done is closed once the recording has ended and its file is closed.
func (r *Recording) Done() <-chan struct{} { return r.done }

// Summary describes the recording now.
func (r *Recording) Summary() Summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sum
	if s.Ended == "" {
		s.Duration = time.Since(r.start)
	}
	return s
}
