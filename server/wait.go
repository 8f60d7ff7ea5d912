package server

import (
	"bytes"
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
	"github.com/tmux-mcp/tmux-mcp/server/policy"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// waitTools: wait_for_text, wait_for_channel, signal_channel.
func waitTools() []*Tool {
	return []*Tool{
		define(spec{Name: "wait_for_text", Title: "Wait for Text in tmux Pane", Tier: policy.ReadOnly, Ann: annRO, Blocking: true,
			Description: "Block until NEW pane output matches one of patterns (literal, or RE2 with regex; case-insensitive unless match_case), a stop pattern, the pane dies, quiet_ms of silence, or timeout. Text already shown is matched_at_entry, never a match; our own typing is ignored. Woken by tmux: wait, do not poll. Its cursor continues in the next wait or capture_since.",
			Input: edits(def("regex", false), def("timeout", 8.0), minimum("timeout", 0), def("match_case", false), minimum("interval", 0), minimum("quiet_ms", 1),
				describeProp("patterns", "null: any new output"),
				describeProp("stop", "Ends the wait as stopped; checked first"))},
			waitForText),
		define(spec{Name: "wait_for_channel", Title: "Wait for tmux Channel", Tier: policy.Mutating, Toolsets: []string{policy.Manage}, Ann: annMUT, Blocking: true,
			Description: "Block until a tmux wait-for channel is signalled (signal_channel, or `tmux wait-for -S NAME` in a pane) or timeout passes (signalled=false). A signal sent earlier is remembered.",
			Input:       edits(pattern("channel", channelPattern), def("timeout", 30.0), minimum("timeout", 0))},
			waitForChannel),
		define(spec{Name: "signal_channel", Title: "Signal tmux Channel", Tier: policy.Mutating, Toolsets: []string{policy.Manage}, Ann: annMUT,
			Description: "Signal a tmux wait-for channel, waking every wait_for_channel on it (or the next one).",
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
	maxPatterns    = 64
	maxPatternLen  = 4096
	waitTailLines  = 20
	waitTailBytes  = 2000
	waitReadChunk  = 64 << 10
	waitRewatchMax = 3
)

// ---- wait_for_text

type waitForTextIn struct {
	Patterns []string `json:"patterns,omitempty"`
	Stop     []string `json:"stop,omitempty"`
	Regex    bool     `json:"regex,omitempty"`
	PaneTarget
	Timeout   float64 `json:"timeout,omitempty" jsonschema:"Seconds; clamped to the wait ceiling"`
	MatchCase bool    `json:"match_case,omitempty"`
	Cursor    *string `json:"cursor,omitempty" jsonschema:"From wait_for_text or capture_since; alone, it names its pane"`
	// libtmux-mcp polls every interval seconds; this server is woken by the pane's output.
	Interval *float64 `json:"interval,omitempty" jsonschema:"Ignored: never polls"`
	QuietMs  *int     `json:"quiet_ms,omitempty" jsonschema:"Also end (quiet) after this many ms without output"`
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
	LinesMissed      bool     `json:"lines_missed" jsonschema:"output may have been lost: the pane printed more than the stream buffer holds, or the cursor's stream was closed (the wait then started at the call); false normally"`
}

// Outcomes of wait_for_text.
const (
	outMatched   = "matched"
	outAny       = "any_output"
	outStopped   = "stopped"
	outTimeout   = "timeout"
	outPaneDied  = "pane_died"
	outAltScreen = "alternate_screen"
	outQuiet     = "quiet"
)

func waitForText(ctx context.Context, c *Call, in *waitForTextIn) (waitForTextOut, error) {
	start := time.Now()
	if in.Patterns != nil && len(in.Patterns) == 0 {
		return waitForTextOut{}, fail("Pass patterns=null to wait for any new output, or at least one pattern.", "patterns is an empty list")
	}
	pats, err := compilePatterns("patterns", in.Patterns, in.Regex, in.MatchCase)
	if err != nil {
		return waitForTextOut{}, err
	}
	stops, err := compilePatterns("stop", in.Stop, in.Regex, in.MatchCase)
	if err != nil {
		return waitForTextOut{}, err
	}
	eff := c.srv.clampWait(seconds(in.Timeout))

	var cur *cursor.Cursor
	pt := in.PaneTarget
	if in.Cursor != nil {
		k, err := cursor.Decode(*in.Cursor)
		if err != nil {
			return waitForTextOut{}, fail(waitCursorHint, "cursor: %v", err)
		}
		cur = &k
		if pt.PaneID == nil && pt.WindowID == nil && pt.SessionID == nil && pt.SessionName == nil {
			id := cur.PaneID()
			pt.PaneID = &id
		}
	}
	t, err := c.pane(ctx, pt, in.SocketName)
	if err != nil {
		return waitForTextOut{}, err
	}
	paneID := t.pane.PaneID
	id, err := t.ts.Identity(ctx)
	if err != nil {
		return waitForTextOut{}, err
	}
	if cur != nil {
		if err := checkCursor(*cur, id, t.pane); err != nil {
			return waitForTextOut{}, err
		}
	}
	out := waitForTextOut{PaneID: paneID, EffectiveTimeout: eff.Seconds(), MatchedLines: []string{}, Tail: []string{}}
	lastOutput := start
	finish := func() (waitForTextOut, error) {
		out.ElapsedSeconds = math.Round(time.Since(start).Seconds()*1000) / 1000
		out.QuietMs = int(time.Since(lastOutput) / time.Millisecond)
		out.Found = out.Outcome == outMatched || out.Outcome == outAny
		return out, nil
	}
	if t.pane.PaneDead && cur == nil {
		out.Outcome = outPaneDied
		return finish()
	}

	// The pane's stream is shared with capture_since and kept open between calls, so a
	// cursor of either tool resumes it.
	key := paneKey{Daemon: id, Pane: paneID}
	live := &c.srv.read.live
	e, err := live.acquire(ctx, t.ts, key)
	if err != nil {
		return waitForTextOut{}, fmt.Errorf("cannot follow the output of pane %s (wait_for_text does not fall back to polling): %w: %w", paneID, errNoStream, err)
	}
	defer func() {
		if e != nil {
			live.Release(e)
		}
	}()
	// The offset first, then the screen: nothing printed after the offset escapes the stream,
	// and what the screen shows now can only be "matched at entry".
	w := e.Watch()
	off := w.Offset()
	if cur != nil {
		if cur.Gen == e.Gen() {
			off = cur.Offset
		} else {
			// The cursor's stream was closed (idle too long, or its connection was reopened):
			// what the pane printed since the cursor cannot be seen; the wait starts now.
			out.LinesMissed = true
		}
	}
	m := &waitMatcher{pats: pats, stops: stops, quietOnly: in.QuietMs != nil && pats == nil,
		echoes: func() echo.Set { return c.srv.state.echo.Echoes(key, time.Now()) }}
	if len(pats) > 0 {
		if screen, err := t.ts.Query(ctx, []string{"capture-pane", "-p", "-J", "-t", paneID}); err == nil {
			out.MatchedAtEntry = m.onScreen(screen[0])
		}
	}

	// The timeout counts from the start of the call, setup included.
	wctx, cancel := context.WithDeadline(ctx, start.Add(eff))
	defer cancel()
	var tick <-chan time.Time
	if c.hasProgressToken() {
		tk := time.NewTicker(time.Second)
		defer tk.Stop()
		tick = tk.C
	}
	// A stream that ended for another reason than the pane's or the server's end (its session
	// was destroyed while the pane lives on in another one, its connection closed) is followed
	// anew, a few times at most.
	rewatch := 0
	f := stream.NewFollower(w, off).Text().OnEnd(func(ctx context.Context, ended error) (*stream.Watch, error) {
		if errors.Is(ended, stream.ErrOffsetAhead) || errors.Is(ended, stream.ErrPaneGone) || errors.Is(ended, stream.ErrServerGone) || rewatch >= waitRewatchMax {
			return nil, ended
		}
		rewatch++
		live.Drop(e)
		live.Release(e)
		var err error
		if e, err = live.acquire(ctx, t.ts, key); err != nil {
			e = nil
			return nil, ended
		}
		out.LinesMissed = true
		return e.Watch(), nil
	})
	cursorAt := off
	mint := func() {
		out.Cursor = cursor.New(id, t.pane, e.Gen(), cursorAt).Encode()
		out.Tail = m.tail()
		out.SawNewOutput = m.saw
	}
	// The quiet wait: a timer pushed back by every chunk the pane prints.
	var quiet <-chan time.Time
	var quietT *time.Timer
	if in.QuietMs != nil {
		quietT = time.NewTimer(time.Duration(*in.QuietMs) * time.Millisecond)
		defer quietT.Stop()
		quiet = quietT.C
	}
	for {
		changed := f.Watch().Changed() // before the read: a write after it closes this channel
		ch, rerr := f.Read(ctx, waitReadChunk)
		cursorAt = f.Offset()
		if ch.Missed > 0 || ch.Gaps > 0 {
			out.LinesMissed = true
		}
		if len(ch.Data) > 0 {
			lastOutput = time.Now()
			if quietT != nil {
				quietT.Reset(time.Duration(*in.QuietMs) * time.Millisecond)
			}
			if d := m.feed(ch.Data, ch.At); d.outcome != "" {
				cursorAt = d.off
				out.Outcome, out.MatchedIndex, out.MatchedLines = d.outcome, d.index, d.lines
				mint()
				return finish()
			}
			continue
		}
		if rerr != nil {
			if errors.Is(rerr, stream.ErrOffsetAhead) {
				return waitForTextOut{}, fail(waitCursorHint, "cursor: its position lies beyond the pane's output")
			}
			out.Outcome = outPaneDied
			if e == nil {
				out.Tail, out.SawNewOutput = m.tail(), m.saw
				return finish()
			}
			mint()
			return finish()
		}
		select {
		case <-changed:
		case <-quiet:
			out.Outcome = outQuiet
			mint()
			return finish()
		case <-tick:
			el := time.Since(start).Seconds()
			c.Progress(ctx, el, eff.Seconds(), fmt.Sprintf("Waiting on pane %s: %.1fs elapsed, %.1fs left", paneID, el, max(eff.Seconds()-el, 0)))
		case <-wctx.Done():
			if ctx.Err() != nil {
				return waitForTextOut{}, ctx.Err()
			}
			out.Outcome = outTimeout
			if m.alt.seen {
				out.Outcome = outAltScreen
			}
			// tmux announces no pane that dies under remain-on-exit (unless it is its
			// window's active pane): one look at the deadline tells a dead pane from a quiet one.
			if paneDead(context.WithoutCancel(ctx), t.ts, paneID) {
				out.Outcome = outPaneDied
			}
			mint()
			return finish()
		}
	}
}

// paneDead reports whether the pane is dead (remain-on-exit) or gone, asking tmux once.
func paneDead(ctx context.Context, ts *tmux.Server, pane string) bool {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	out, err := ts.Query(ctx, []string{"display-message", "-p", "-t", pane, "#{pane_dead}"})
	if err != nil {
		return errors.Is(err, tmux.ErrNotFound)
	}
	return len(out) == 1 && len(out[0]) == 1 && out[0][0] == "1"
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
			}
			return nil, fail("Patterns with regex=true are Go RE2 regular expressions (no lookaround, no backreferences); pass regex=false to match the text literally.",
				"%s[%d] %q is not a valid regular expression: %s", arg, i, truncate(p, 80), msg)
		}
		out = append(out, re)
	}
	return out, nil
}

// waitMatcher turns stream bytes into lines, removes our echo and checks stop, then patterns.
type waitMatcher struct {
	pats, stops []*regexp.Regexp
	echoes      func() echo.Set
	quietOnly   bool // no patterns and a quiet wait: output is not an outcome by itself

	f           stream.Filter
	alt         altScreen
	redraw      bool // a reverse index was seen since the last LF
	lastESC     bool // the last byte fed was ESC
	lastPartial string
	saw         bool
	tailLines   []string
	partial     string
}

var reverseIndex = []byte("\x1bM")

// decision is a finished wait: its outcome, the pattern index, the lines shown, and the stream
// offset just after the deciding line.
type decision struct {
	outcome string
	index   *int
	lines   []string
	off     int64
}

// onScreen reports whether a pattern matches a line of the screen at entry (echo removed).
func (m *waitMatcher) onScreen(lines []string) bool {
	echoes := m.echoes()
	for _, l := range lines {
		clean := echo.Strip(l, echoes, false)
		for _, re := range m.pats {
			if re.MatchString(clean) {
				return true
			}
		}
	}
	return false
}

// feed filters data (which starts at stream offset base) line by line, so that a decision knows
// the offset right after its line.
func (m *waitMatcher) feed(data []byte, base int64) decision {
	echoes := m.echoes()
	var anyLines []string
	for len(data) > 0 {
		seg := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			seg = data[:i+1]
		}
		data = data[len(seg):]
		base += int64(len(seg))
		m.alt.scan(seg)
		m.f.Write(seg)
		// A line ended after a reverse index (ESC M) was drawn by a line editor moving its
		// cursor (fish draws the rows of a long typed line so): while we typed, it is echo.
		if bytes.Contains(seg, reverseIndex) || m.lastESC && len(seg) > 0 && seg[0] == 'M' {
			m.redraw = true
		}
		m.lastESC = seg[len(seg)-1] == 0x1b
		redraw := m.redraw && !echoes.Empty()
		if seg[len(seg)-1] == '\n' {
			m.redraw = false
		}
		for _, line := range m.f.Lines() {
			m.addTail(line)
			m.partial, m.lastPartial = "", ""
			if redraw {
				continue
			}
			if d := m.check(line, echoes, false, &anyLines); d.outcome != "" {
				d.off = base
				return d
			}
		}
	}
	m.partial = m.f.Partial()
	if m.partial != m.lastPartial {
		m.lastPartial = m.partial
		if d := m.check(m.partial, echoes, true, &anyLines); d.outcome != "" {
			d.off = base
			return d
		}
	}
	if m.pats == nil && !m.quietOnly && len(anyLines) > 0 {
		return decision{outcome: outAny, lines: boundLines(anyLines), off: base}
	}
	return decision{}
}

// check matches one line. With patterns null, a line with new text is collected in anyLines
// (the decision comes once the whole chunk was read).
func (m *waitMatcher) check(line string, echoes echo.Set, partial bool, anyLines *[]string) decision {
	clean := echo.Strip(line, echoes, partial)
	if strings.TrimSpace(clean) == "" {
		return decision{}
	}
	m.saw = true
	for i, re := range m.stops {
		if re.MatchString(clean) {
			return decision{outcome: outStopped, index: &i, lines: boundLines([]string{line})}
		}
	}
	if m.pats == nil {
		*anyLines = append(*anyLines, line)
		return decision{}
	}
	for i, re := range m.pats {
		if re.MatchString(clean) {
			return decision{outcome: outMatched, index: &i, lines: boundLines([]string{line})}
		}
	}
	return decision{}
}

func (m *waitMatcher) addTail(line string) {
	m.tailLines = append(m.tailLines, line)
	if len(m.tailLines) > 2*waitTailLines {
		m.tailLines = append(m.tailLines[:0], m.tailLines[len(m.tailLines)-waitTailLines:]...)
	}
}

// tail returns the last lines seen, the unfinished one included.
func (m *waitMatcher) tail() []string {
	lines := append([]string{}, m.tailLines...)
	if m.partial != "" {
		lines = append(lines, m.partial)
	}
	return boundLines(lines)
}

// boundLines keeps the newest lines within waitTailLines lines and waitTailBytes bytes.
func boundLines(lines []string) []string {
	if len(lines) > waitTailLines {
		lines = lines[len(lines)-waitTailLines:]
	}
	total := 0
	for i := len(lines) - 1; i >= 0; i-- {
		total += len(lines[i])
		if total > waitTailBytes {
			if i == len(lines)-1 {
				return []string{stream.TailBytes(lines[i], waitTailBytes)}
			}
			return append([]string{}, lines[i+1:]...)
		}
	}
	return append([]string{}, lines...)
}

// altScreen notices a switch to the alternate screen (ESC [ ? 1049 h, 1047 h or 47 h) in raw
// output, also when the sequence is split between chunks.
type altScreen struct {
	carry []byte
	on    bool
	seen  bool // switched on during the wait
}

var altSeqs = []struct {
	seq []byte
	on  bool
}{
	{[]byte("\x1b[?1049h"), true}, {[]byte("\x1b[?1047h"), true}, {[]byte("\x1b[?47h"), true},
	{[]byte("\x1b[?1049l"), false}, {[]byte("\x1b[?1047l"), false}, {[]byte("\x1b[?47l"), false},
}

const altCarry = 7 // longest sequence minus one

func (a *altScreen) scan(p []byte) {
	if bytes.IndexByte(p, 0x1b) < 0 && len(a.carry) == 0 {
		return
	}
	buf := append(a.carry, p...)
	last, on := -1, false
	for _, s := range altSeqs {
		if i := bytes.LastIndex(buf, s.seq); i > last {
			last, on = i, s.on
		}
	}
	if last >= 0 {
		a.on = on
		if on {
			a.seen = true
		}
	}
	if len(buf) > altCarry {
		buf = buf[len(buf)-altCarry:]
	}
	a.carry = append(a.carry[:0:0], buf...)
	if bytes.IndexByte(a.carry, 0x1b) < 0 {
		a.carry = a.carry[:0]
	}
}
