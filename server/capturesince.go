package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/cursor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/live"
)

// ---- capture_since

type captureSinceIn struct {
	Cursor *string `json:"cursor,omitempty" jsonschema:"From capture_since or wait_for_text; names its pane"`
	PaneTarget
	MaxLines *int `json:"max_lines,omitempty" jsonschema:"null keeps every line"`
	MaxBytes *int `json:"max_bytes,omitempty" jsonschema:"null keeps every byte"`
	WaitMs   int  `json:"wait_ms,omitempty" jsonschema:"With cursor: wait this long for news (clamped)"`
	Socket
}

// CaptureSinceOut is what a pane printed since a cursor.
type CaptureSinceOut struct {
	PaneID          string   `json:"pane_id"`
	Cursor          string   `json:"cursor" jsonschema:"pass it to the next capture_since (or wait_for_text) to read only what comes after this call"`
	Lines           []string `json:"lines"`
	LinesMissed     bool     `json:"lines_missed" jsonschema:"output since the cursor was lost (more than the buffer holds, or the stream was restarted); lines then start later or show the current screen"`
	Truncated       bool     `json:"truncated"`
	TruncatedLines  int      `json:"truncated_lines" jsonschema:"how many of the oldest lines max_lines and max_bytes left out"`
	TruncatedBytes  int      `json:"truncated_bytes" jsonschema:"how many bytes of text max_lines and max_bytes left out"`
	ElapsedSeconds  float64  `json:"elapsed_seconds"`
	EffectiveWaitMs int      `json:"effective_wait_ms" jsonschema:"the wait used after clamping to the ceiling"`
}

const freshCursorHint = "Call capture_since without a cursor to get a fresh one."

// cursorError explains a cursor that cannot be used.
func cursorError(err error) error { return fail(freshCursorHint, "cursor: %v", err) }

// cursorTarget decodes a cursor argument (nil: none), refusing a bad one with hint. Alone, a
// cursor names its pane: with no target argument the result is the target of its pane.
func cursorTarget(arg *string, pt PaneTarget, hint string) (*cursor.Cursor, PaneTarget, error) {
	if arg == nil {
		return nil, pt, nil
	}
	cur, err := cursor.Decode(*arg)
	if err != nil {
		return nil, pt, fail(hint, "cursor: %v", err)
	}
	if pt.PaneID == nil && pt.WindowID == nil && pt.SessionID == nil && pt.SessionName == nil {
		id := cur.PaneID()
		pt.PaneID = &id
	}
	return &cur, pt, nil
}

func captureSince(ctx context.Context, c *Call, in *captureSinceIn) (CaptureSinceOut, error) {
	start := time.Now()
	cur, target, err := cursorTarget(in.Cursor, in.PaneTarget, freshCursorHint)
	if err != nil {
		return CaptureSinceOut{}, err
	}
	t, err := c.pane(ctx, target, in.SocketName)
	if err != nil {
		return CaptureSinceOut{}, err
	}
	p := t.pane
	if p.PaneDead {
		return CaptureSinceOut{}, fail("capture_pane or snapshot_pane read what it shows.", "pane %s is dead: it prints nothing more", p.PaneID)
	}
	id, err := t.ts.Identity(ctx)
	if err != nil {
		return CaptureSinceOut{}, err
	}
	if cur != nil {
		if err := checkCursor(*cur, id, p); err != nil {
			return CaptureSinceOut{}, err
		}
	}
	wait := c.srv.clampWait(millis(int64(in.WaitMs)))
	out, err := c.srv.readSince(ctx, t.ts, id, p, cur, wait)
	if err != nil {
		return CaptureSinceOut{}, err
	}
	out.EffectiveWaitMs = int(wait / time.Millisecond)
	if rows, ok := altScreenRows(t.ts, p.PaneID); ok && cur != nil && len(out.Lines) > 0 {
		out.Lines = rows // a full-screen program's output is cursor motion: show its screen
	}
	// null (nil) means no limit, as limitTail reads 0.
	out.Lines, out.TruncatedLines, out.TruncatedBytes = limitTail(out.Lines, deref(in.MaxLines), deref(in.MaxBytes))
	out.Truncated = out.TruncatedLines > 0 || out.TruncatedBytes > 0
	out.ElapsedSeconds = time.Since(start).Seconds()
	return out, nil
}

// checkCursor refuses a cursor of another daemon, another pane or an earlier process of the pane.
func checkCursor(cur cursor.Cursor, id tmux.Identity, p tmux.Pane) error {
	if int64(cur.DaemonPID) != int64(id.PID) || cur.DaemonStart != id.StartTime {
		return fail("Cursors are void after a tmux restart or on another socket; call capture_since without a cursor.",
			"cursor: it belongs to another tmux server (or one that was restarted)")
	}
	if cur.PaneID() != p.PaneID {
		return fail(fmt.Sprintf("Pass the cursor with pane_id %s (or no target at all), or start a cursor for %s by calling capture_since without one.", cur.PaneID(), p.PaneID),
			"cursor: it belongs to pane %s, not %s", cur.PaneID(), p.PaneID)
	}
	if int64(cur.PanePID) != int64(p.PanePID) {
		return fail("Call capture_since without a cursor to start reading the new process.",
			"cursor: pane %s was respawned since the cursor was made (its process changed)", p.PaneID)
	}
	return nil
}

// readSince reads the pane's live stream after cur (or the screen when cur is nil or its
// stream is gone) and returns the lines, a cursor at the end of what it read, and whether
// output was missed. It waits up to wait for new output when there is none.
func (s *Server) readSince(ctx context.Context, ts *tmux.Server, id tmux.Identity, p tmux.Pane, cur *cursor.Cursor, wait time.Duration) (CaptureSinceOut, error) {
	var at *live.Position
	if cur != nil {
		at = &live.Position{Gen: cur.Gen, Offset: cur.Offset}
	}
	r, err := s.read.live.Read(ctx, ts, live.Key{Daemon: id, Pane: p.PaneID}, at, wait)
	switch {
	case errors.Is(err, live.ErrPaneGone):
		return CaptureSinceOut{}, fail("capture_pane or snapshot_pane read what it shows now.", "pane %s exited or died: its output stream ended", p.PaneID)
	case errors.Is(err, live.ErrOffsetAhead):
		return CaptureSinceOut{}, cursorError(errors.New("its position lies beyond the pane's output"))
	case err != nil:
		return CaptureSinceOut{}, err
	}
	out := CaptureSinceOut{PaneID: p.PaneID, Cursor: cursor.New(id, p, r.Next.Gen, r.Next.Offset).Encode(), Lines: nonNil(r.Lines), LinesMissed: r.Missed}
	if r.Fresh {
		// A fresh read, or the cursor's stream is gone (released while idle, or the tmux
		// connection was reopened): the offset was taken before the capture, so nothing
		// printed afterwards is missed by the next call.
		lines, err := screenLines(ctx, ts, p.PaneID)
		if err != nil {
			return CaptureSinceOut{}, err
		}
		out.Lines, out.LinesMissed = nonNil(lines), cur != nil
	}
	return out, nil
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// limitTail keeps the newest lines within maxLines and maxBytes (a single line longer than
// maxBytes keeps its tail) and reports how many lines and bytes it cut.
func limitTail(lines []string, maxLines, maxBytes int) (kept []string, cutLines, cutBytes int) {
	if maxLines > 0 && len(lines) > maxLines {
		for _, l := range lines[:len(lines)-maxLines] {
			cutBytes += len(l)
		}
		cutLines = len(lines) - maxLines
		lines = lines[len(lines)-maxLines:]
	}
	if maxBytes <= 0 {
		return lines, cutLines, cutBytes
	}
	total := 0
	i := len(lines)
	for i > 0 && total+len(lines[i-1]) <= maxBytes {
		total += len(lines[i-1])
		i--
	}
	for _, l := range lines[:i] {
		cutBytes += len(l)
	}
	cutLines += i
	kept = lines[i:]
	if len(kept) == 0 && i > 0 {
		// The newest line alone is too long: keep its tail, on a character boundary.
		last := lines[i-1]
		tail := last[len(last)-maxBytes:]
		for len(tail) > 0 && tail[0]&0xC0 == 0x80 {
			tail = tail[1:]
		}
		cutBytes -= len(tail)
		cutLines--
		kept = []string{tail}
	}
	return kept, cutLines, cutBytes
}

// liveStreams are the pane streams kept open between calls, so that a cursor of one call is
// read by a later one (capture_since, wait_for_text, the input tools' cursors).
type liveStreams = live.Streams

// acquireLive returns the kept stream of pane k on ts; give it back with s.read.live.Release.
func (s *Server) acquireLive(ctx context.Context, ts *tmux.Server, k paneKey) (*live.Stream, error) {
	return s.read.live.Acquire(ctx, ts, live.Key(k))
}
