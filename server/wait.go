package server

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tmux-mcp/tmux-mcp/internal/cursor"
	"github.com/tmux-mcp/tmux-mcp/internal/echo"
	"github.com/tmux-mcp/tmux-mcp/internal/termstate"
	"github.com/tmux-mcp/tmux-mcp/internal/waitmatch"
	"github.com/tmux-mcp/tmux-mcp/server/policy"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/live"
)

// waitTools: wait_for_text, wait_for_channel, signal_channel.
func waitTools() []*Tool {
	return []*Tool{
		define(spec{Name: "wait_for_text", Title: "Wait for Text in tmux Pane", Tier: policy.ReadOnly, Ann: annRO, Blocking: true,
			Description: "Block until new output (after cursor, else our last input; started_from) matches patterns (literal, or RE2 with regex; case-insensitive unless match_case), a stop pattern, quiet_ms of silence, pane death or timeout.",
			Input: edits(def("regex", false), def("timeout", 8.0), minimum("timeout", 0), def("match_case", false), minimum("interval", 0), minimum("quiet_ms", 1),
				describeProp("patterns", "null: any new output"),
				describeProp("stop", "Checked first; ends as stopped"))},
			waitForText),
		define(spec{Name: "wait_for_channel", Title: "Wait for tmux Channel", Tier: policy.Mutating, Toolsets: []string{policy.Manage}, Ann: annMUT, Blocking: true,
			Description: "Block until a tmux wait-for channel is signalled (signal_channel, `tmux wait-for -S NAME`) or timeout. An earlier signal counts.",
			Input:       edits(pattern("channel", channelPattern), def("timeout", 30.0), minimum("timeout", 0))},
			waitForChannel),
		define(spec{Name: "signal_channel", Title: "Signal tmux Channel", Tier: policy.Mutating, Toolsets: []string{policy.Manage}, Ann: annMUT,
			Description: "Signal a tmux wait-for channel: wakes its wait_for_channel calls (or the next one).",
			Input:       edits(pattern("channel", channelPattern))},
			signalChannel),
	}
}

// describeProp sets a property's description.
func describeProp(name, desc string) schemaEdit {
	return func(s *jsonschema.Schema) { prop(s, name).Description = desc }
}

const waitCursorHint = "Pass a cursor exactly as wait_for_text or capture_since returned it, or omit cursor to wait for output from now on."

// Limits of wait_for_text.
const (
	maxPatterns   = 64
	maxPatternLen = 4096
	waitReadChunk = 64 << 10
)

// ---- wait_for_text

type waitForTextIn struct {
	Patterns []string `json:"patterns,omitempty"`
	Stop     []string `json:"stop,omitempty"`
	Regex    bool     `json:"regex,omitempty"`
	PaneTarget
	Timeout   float64 `json:"timeout,omitempty" jsonschema:"Seconds (clamped)"`
	MatchCase bool    `json:"match_case,omitempty"`
	Cursor    *string `json:"cursor,omitempty" jsonschema:"From wait_for_text or capture_since; names its pane"`
	// libtmux-mcp polls every interval seconds; this server is woken by the pane's output.
	Interval *float64 `json:"interval,omitempty" jsonschema:"Ignored"`
	QuietMs  *int     `json:"quiet_ms,omitempty" jsonschema:"End (quiet) after this many ms of silence"`
	Socket
}

type waitForTextOut struct {
	Found            bool     `json:"found" jsonschema:"true for outcomes matched and any_output"`
	Outcome          string   `json:"outcome" jsonschema:"matched, any_output, stopped, quiet (quiet_ms passed with no output), timeout, pane_died or alternate_screen"`
	MatchedIndex     *int     `json:"matched_index" jsonschema:"index in patterns (matched) or in stop (stopped) of the pattern that matched; null otherwise"`
	MatchedLines     []string `json:"matched_lines" jsonschema:"the line that matched (any_output: the new lines), at most 20 lines / 2000 bytes, newest kept"`
	Tail             []string `json:"tail" jsonschema:"the last lines of new output seen, at most 20 lines / 2000 bytes"`
	SawNewOutput     bool     `json:"saw_new_output" jsonschema:"the pane printed something other than the echo of our own typing"`
	MatchedAtEntry   bool     `json:"matched_at_entry" jsonschema:"a pattern was already on screen when the wait started (never counted as a match)"`
	PaneID           string   `json:"pane_id"`
	ElapsedSeconds   float64  `json:"elapsed_seconds"`
	EffectiveTimeout float64  `json:"effective_timeout" jsonschema:"the timeout used, in seconds, after clamping to the wait ceiling"`
	Cursor           string   `json:"cursor" jsonschema:"resume point: pass it to the next wait_for_text (or capture_since) to see only what follows this call's last line"`
	QuietMs          int      `json:"quiet_ms" jsonschema:"how long the pane had printed nothing when the wait ended, in milliseconds"`
	StartedFrom      string   `json:"started_from" jsonschema:"call, cursor, last_input (this server's last input to the pane) or last_wait"`
	LinesMissed      bool     `json:"lines_missed" jsonschema:"output may have been lost: the pane printed more than the stream buffer holds, or the cursor's stream was closed (the wait then started at the call); false normally"`
	Note             string   `json:"note,omitempty" jsonschema:"what to do next when the outcome alone does not say"`
}

func waitForText(ctx context.Context, c *Call, in *waitForTextIn) (waitForTextOut, error) {
	start := time.Now()
	m, err := waitMatcher(in)
	if err != nil {
		return waitForTextOut{}, err
	}
	eff := c.srv.clampWait(seconds(in.Timeout))
	cur, pt, err := cursorTarget(in.Cursor, in.PaneTarget, waitCursorHint)
	if err != nil {
		return waitForTextOut{}, err
	}
	t, err := c.pane(ctx, pt, in.SocketName)
	if err != nil {
		return waitForTextOut{}, err
	}
	id, err := t.ts.Identity(ctx)
	if err != nil {
		return waitForTextOut{}, err
	}
	if cur != nil {
		if err := checkCursor(*cur, id, t.pane); err != nil {
			return waitForTextOut{}, err
		}
	}
	w := &textWait{c: c, t: t, id: id, key: paneKey{Daemon: id, Pane: t.pane.PaneID}, m: m, start: start, lastOutput: start, eff: eff,
		out: waitForTextOut{PaneID: t.pane.PaneID, StartedFrom: fromCall, EffectiveTimeout: eff.Seconds(), MatchedLines: []string{}, Tail: []string{}}}
	if t.pane.PaneDead && cur == nil {
		w.out.Outcome = waitmatch.PaneDied
		return w.finish()
	}
	if err := w.open(ctx, cur); err != nil {
		return waitForTextOut{}, err
	}
	defer w.close()
	return w.follow(ctx, in.QuietMs)
}

// waitMatcher checks and compiles the patterns of a wait.
func waitMatcher(in *waitForTextIn) (*waitmatch.Matcher, error) {
	if in.Patterns != nil && len(in.Patterns) == 0 {
		return nil, fail("Pass patterns=null to wait for any new output, or at least one pattern.", "patterns is an empty list")
	}
	pats, err := compilePatterns("patterns", in.Patterns, in.Regex, in.MatchCase)
	if err != nil {
		return nil, err
	}
	stops, err := compilePatterns("stop", in.Stop, in.Regex, in.MatchCase)
	if err != nil {
		return nil, err
	}
	return &waitmatch.Matcher{Pats: pats, Stops: stops, QuietOnly: in.QuietMs != nil && pats == nil}, nil
}

// textWait is one wait_for_text in progress.
type textWait struct {
	c                 *Call
	t                 *target
	id                tmux.Identity
	key               paneKey
	m                 *waitmatch.Matcher
	start, lastOutput time.Time
	eff               time.Duration // the clamped timeout, counted from start
	tail              *live.Tail    // the pane's kept stream, followed
	at                int64         // where the result's cursor points
	out               waitForTextOut
}

// open takes the pane's kept stream (shared with capture_since and kept between calls, so a
// cursor of either tool resumes it) and looks at the screen: the offset first, then the screen,
// so that nothing printed after the offset escapes the stream, and what the screen shows now
// can only be "matched at entry".
func (w *textWait) open(ctx context.Context, cur *cursor.Cursor) error {
	tail, err := w.c.srv.read.live.OpenTail(ctx, w.t.ts, live.Key(w.key))
	if err != nil {
		return fmt.Errorf("cannot follow the output of pane %s (wait_for_text does not fall back to polling): %w", w.t.pane.PaneID, err)
	}
	w.tail = tail
	st := tail.Stream()
	off, from := w.c.srv.state.marks.start(w.key, st.Gen(), st.Offset())
	w.out.StartedFrom = from
	if cur != nil {
		w.out.StartedFrom = fromCursor
		off = st.Offset()
		if cur.Gen == st.Gen() {
			off = cur.Offset
		} else {
			// The cursor's stream was closed (idle too long, or its connection was reopened):
			// what the pane printed since the cursor cannot be seen; the wait starts now.
			w.out.LinesMissed = true
		}
	}
	w.m.Echoes = func() echo.Set { return w.c.srv.state.echo.Echoes(w.key, time.Now()) }
	if len(w.m.Pats) > 0 {
		scr, screen := &tmux.Screen{Pane: w.t.pane.PaneID}, &tmux.Capture{Pane: w.t.pane.PaneID, Join: true}
		if err := w.t.ts.Batch(ctx, scr, screen); err == nil {
			w.out.MatchedAtEntry = off == st.Offset() && w.m.OnScreen(screen.Lines)
			if scr.AlternateOn {
				w.m.StartOnAlt(screen.Lines)
			}
		}
	}
	w.at = off
	tail.From(off)
	return nil
}

func (w *textWait) close() {
	if w.tail != nil {
		w.tail.Close()
	}
}

// follow reads the pane's output until the matcher decides, the pane goes quiet for quietMs
// (when set), the stream ends, the pane's program is gone (deathWatch), or the timeout passes.
// Woken by the stream: nothing polls tmux.
func (w *textWait) follow(ctx context.Context, quietMs *int) (waitForTextOut, error) {
	wctx, cancel := context.WithDeadline(ctx, w.start.Add(w.eff)) // setup counts too
	defer cancel()
	tick, quiet, pushQuiet, stop := w.timers(quietMs)
	defer stop()
	death, dead := w.deathWatch()
	defer death.Stop()
	for {
		changed := w.tail.Changed() // before the read: a write after it closes this channel
		ch, rerr := w.tail.Read(ctx, waitReadChunk)
		w.at = w.tail.Offset()
		if ch.Missed > 0 || ch.Gaps > 0 {
			w.out.LinesMissed = true
		}
		if len(ch.Data) > 0 {
			w.lastOutput = time.Now()
			pushQuiet()
			if w.decided(ctx, ch.Data, ch.At) {
				return w.end()
			}
			continue
		}
		if rerr != nil {
			if errors.Is(rerr, live.ErrOffsetAhead) {
				return waitForTextOut{}, fail(waitCursorHint, "cursor: its position lies beyond the pane's output")
			}
			w.out.Outcome = waitmatch.PaneDied
			return w.end()
		}
		select {
		case <-changed:
		case <-quiet:
			w.out.Outcome = waitmatch.Quiet
			return w.end()
		case <-dead:
			if died, respawned := w.programGone(ctx); died {
				w.out.Outcome = waitmatch.PaneDied
				return w.end()
			} else if respawned {
				dead = nil // its new program is not followed; the deadline looks again
			}
		case <-tick:
			el := time.Since(w.start).Seconds()
			w.c.Progress(ctx, el, w.eff.Seconds(), fmt.Sprintf("Waiting on pane %s: %.1fs elapsed, %.1fs left", w.t.pane.PaneID, el, max(w.eff.Seconds()-el, 0)))
		case <-wctx.Done():
			if ctx.Err() != nil {
				return waitForTextOut{}, ctx.Err()
			}
			return w.timedOut(ctx)
		}
	}
}

// timers returns the wait's progress ticks (none without a progress token) and its quiet
// timer (none without quietMs), which pushQuiet pushes back as the pane prints; stop ends both.
func (w *textWait) timers(quietMs *int) (tick, quiet <-chan time.Time, pushQuiet, stop func()) {
	var stops []func() bool
	if w.c.hasProgressToken() {
		tk := time.NewTicker(time.Second)
		tick, stops = tk.C, append(stops, func() bool { tk.Stop(); return true })
	}
	pushQuiet = func() {}
	if quietMs != nil {
		d := time.Duration(*quietMs) * time.Millisecond
		qt := time.NewTimer(d)
		quiet, pushQuiet, stops = qt.C, func() { qt.Reset(d) }, append(stops, qt.Stop)
	}
	return tick, quiet, pushQuiet, func() {
		for _, s := range stops {
			s()
		}
	}
}

// decided feeds output to the matcher, then, on a full-screen program, its screen's new rows
// (screenRows); it reports whether the wait's outcome is decided (w.out holds it).
func (w *textWait) decided(ctx context.Context, data []byte, at int64) bool {
	d := w.m.Feed(data, at)
	if d.Outcome != "" {
		w.at = d.Off
	} else if d = w.screenRows(ctx); d.Outcome == "" {
		return false
	}
	w.out.Outcome, w.out.MatchedIndex, w.out.MatchedLines = d.Outcome, d.Index, d.Lines
	return true
}

// programGone looks whether the pane's program, which the process table says exited, left
// the pane dead (died), or the pane lives on with another (respawned).
func (w *textWait) programGone(ctx context.Context) (died, respawned bool) {
	if !termstate.New().Exited(w.t.pane.PanePID) {
		return false, false
	}
	if paneDead(context.WithoutCancel(ctx), w.t.ts, w.t.pane.PaneID) {
		return true, false
	}
	return false, true
}

// paneDeathPoll is how often a wait looks in the process table whether the pane's program is
// still there.
const paneDeathPoll = time.Second

// deathWatch ticks while the wait lasts when the pane's program can be looked up (a local pane
// with a pid): tmux announces no pane that dies under remain-on-exit, so a wait on a pane whose
// program exited (split_window shell=..., a server that crashed) would last its whole timeout.
// A lookup costs no tmux round trip; only a program found gone asks tmux (paneDead).
func (w *textWait) deathWatch() (*time.Ticker, <-chan time.Time) {
	tk := time.NewTicker(paneDeathPoll)
	if !w.t.ts.Local() || w.t.pane.PanePID <= 0 || !termstate.New().Available() {
		tk.Stop()
		return tk, nil
	}
	return tk, tk.C
}

// screenRows checks the rows of a full-screen program's screen (waitmatch.Matcher.Rows) once
// output was read that left the pane on the alternate screen: its redraws need not be lines.
func (w *textWait) screenRows(ctx context.Context) waitmatch.Decision {
	if len(w.m.Pats) == 0 || !w.m.OnAlt() {
		return waitmatch.Decision{}
	}
	screen := &tmux.Capture{Pane: w.t.pane.PaneID, Join: true}
	if err := w.t.ts.Do(ctx, screen); err != nil {
		return waitmatch.Decision{}
	}
	return w.m.Rows(screen.Lines)
}

// timedOut ends a wait at its deadline: timeout, or alternate_screen when the pane switched to
// it. tmux announces no pane that dies under remain-on-exit (unless it is its window's active
// pane): one look at the deadline tells a dead pane from a quiet one.
func (w *textWait) timedOut(ctx context.Context) (waitForTextOut, error) {
	w.out.Outcome = waitmatch.Timeout
	if w.m.AltSeen() {
		w.out.Outcome = waitmatch.AltScreen
	}
	if paneDead(context.WithoutCancel(ctx), w.t.ts, w.t.pane.PaneID) {
		w.out.Outcome = waitmatch.PaneDied
	}
	if w.out.Outcome == waitmatch.Timeout && w.out.MatchedAtEntry && !w.out.SawNewOutput {
		w.out.Note = "A pattern was already on screen when the wait began, and wait_for_text waits for new output: " +
			"read the screen with capture_pane, or pass the cursor send_keys returned to see output from before the wait."
	}
	return w.end()
}

// end fills in what the pane showed and a cursor at w.at (none when the stream could not be
// reopened), and finishes.
func (w *textWait) end() (waitForTextOut, error) {
	if w.tail.Reopened() {
		w.out.LinesMissed = true
	}
	if st := w.tail.Stream(); st != nil {
		w.out.Cursor = cursor.New(w.id, w.t.pane, st.Gen(), w.at).Encode()
		w.c.srv.state.marks.waited(w.key, st.Gen(), w.at)
	}
	w.out.Tail, w.out.SawNewOutput = w.m.Tail(), w.m.Saw()
	if rows, ok := altScreenRows(w.t.ts, w.t.pane.PaneID); ok {
		// A full-screen program's output is cursor motion, not lines: show its screen.
		w.out.Tail = waitmatch.BoundLines(rows)
		if w.out.Outcome == waitmatch.AnyOutput {
			w.out.MatchedLines = w.out.Tail
		}
	}
	return w.finish()
}

// altScreenRows returns the rows of the pane's screen when it shows the alternate screen (vim,
// less, top), without trailing blanks and without the rows of a lone "~" (the filler of vim
// and less past the end of the text); ok is false on the normal screen.
func altScreenRows(ts *tmux.Server, pane string) ([]string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	st, screen := &tmux.Screen{Pane: pane}, &tmux.Capture{Pane: pane}
	if err := ts.Batch(ctx, st, screen); err != nil || !st.AlternateOn {
		return nil, false
	}
	rows := make([]string, 0, len(screen.Lines))
	for _, r := range screen.Lines {
		r = strings.TrimRight(r, " ")
		if r != "~" {
			rows = append(rows, r)
		}
	}
	return trimBlankTail(rows), true
}

func (w *textWait) finish() (waitForTextOut, error) {
	w.out.ElapsedSeconds = math.Round(time.Since(w.start).Seconds()*1000) / 1000
	w.out.QuietMs = int(time.Since(w.lastOutput) / time.Millisecond)
	w.out.Found = w.out.Outcome == waitmatch.Matched || w.out.Outcome == waitmatch.AnyOutput
	return w.out, nil
}

// paneDead reports whether the pane is dead (remain-on-exit) or gone, asking tmux once.
func paneDead(ctx context.Context, ts *tmux.Server, pane string) bool {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	st := &tmux.Screen{Pane: pane}
	if err := ts.Do(ctx, st); err != nil {
		return errors.Is(err, tmux.ErrNotFound)
	}
	return st.Dead
}

// compilePatterns compiles the patterns of argument arg: Go RE2 when regex, else the literal
// text; case-insensitive unless matchCase.
func compilePatterns(arg string, pats []string, regex, matchCase bool) ([]*regexp.Regexp, error) {
	if len(pats) > maxPatterns {
		return nil, fail("Combine them into fewer patterns (a regular expression with | matches any of several).", "%s has %d entries; at most %d are allowed", arg, len(pats), maxPatterns)
	}
	if len(pats) == 0 {
		return nil, nil // nil patterns: any new output
	}
	out := make([]*regexp.Regexp, 0, len(pats))
	for i, p := range pats {
		switch {
		case p == "":
			return nil, fail("Remove the empty pattern; pass patterns=null to wait for any new output.", "%s[%d] is empty", arg, i)
		case len(p) > maxPatternLen:
			return nil, fail("Wait for a shorter, distinctive part of the text.", "%s[%d] is %d bytes long; at most %d are allowed", arg, i, len(p), maxPatternLen)
		}
		src := p
		if !regex {
			src = regexp.QuoteMeta(p)
		}
		if !matchCase {
			src = "(?i)" + src
		}
		re, err := regexp.Compile(src)
		if err != nil {
			var se *syntax.Error
			msg := err.Error()
			if errors.As(err, &se) {
				msg = fmt.Sprintf("%s: %s", se.Code, se.Expr)
				if !matchCase && se.Expr == src {
					msg = string(se.Code) // the whole pattern, with the (?i) added here
				}
			}
			return nil, fail("Patterns with regex=true are Go RE2 regular expressions (no lookaround, no backreferences); pass regex=false to match the text literally.",
				"%s[%d] %q is not a valid regular expression: %s", arg, i, truncate(p, 80), msg)
		}
		out = append(out, re)
	}
	return out, nil
}
