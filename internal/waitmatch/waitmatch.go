// Package waitmatch decides a wait for text from a pane's live output: it turns the stream's
// bytes into lines, leaves out the echo of what was typed (internal/echo) and the rows a line
// editor redraws, and checks the stop patterns, then the patterns; it notices a switch to the
// alternate screen on the way. wait_for_text is its user.
package waitmatch

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/internal/echo"
	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// The outcomes of a wait: the Matcher decides the first three, its caller the others.
const (
	Matched   = "matched"
	AnyOutput = "any_output"
	Stopped   = "stopped"
	Timeout   = "timeout"
	PaneDied  = "pane_died"
	AltScreen = "alternate_screen"
	Quiet     = "quiet"
)

// Bounds of the lines a decision shows and of the tail kept.
const (
	TailLines = 20
	TailBytes = 2000
)

// Matcher turns stream bytes into lines, removes our echo and checks stop, then patterns.
type Matcher struct {
	// Pats are the patterns; nil: any new output. Stops end the wait as stopped, checked first.
	Pats, Stops []*regexp.Regexp
	// Echoes is what was recently typed into the pane, so that its echo is no output.
	Echoes func() echo.Set
	// QuietOnly: no patterns and a quiet wait, so output is not an outcome by itself.
	QuietOnly bool

	f           stream.Filter
	alt         altScreen
	redraw      bool // a reverse index was seen since the last LF
	lastESC     bool // the last byte fed was ESC
	lastPartial string
	saw         bool
	shown       map[string]bool // the alternate screen's rows at the last look (Rows)
	altFresh    bool            // shown was emptied after a switch to the alternate screen
	tailLines   []string
	partial     string
}

var reverseIndex = []byte("\x1bM")

// Decision is a finished wait: its outcome, the pattern index, the lines shown, and the stream
// offset just after the deciding line.
type Decision struct {
	Outcome string   // Matched, AnyOutput or Stopped; "" when undecided
	Index   *int     // the pattern that matched, in Pats or Stops
	Lines   []string // the lines shown: the matching one, or (AnyOutput) the new ones
	Off     int64    // the stream offset right after the deciding line
}

// OnScreen reports whether a pattern matches a line of the screen at entry (echo removed).
func (m *Matcher) OnScreen(lines []string) bool {
	echoes := m.Echoes()
	for _, l := range lines {
		clean := echo.Strip(l, echoes, false)
		for _, re := range m.Pats {
			if re.MatchString(clean) {
				return true
			}
		}
	}
	return false
}

// Feed filters data (which starts at stream offset base) line by line, so that a decision knows
// the offset right after its line.
func (m *Matcher) Feed(data []byte, base int64) Decision {
	echoes := m.Echoes()
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
			if d := m.check(line, echoes, false, &anyLines); d.Outcome != "" {
				d.Off = base
				return d
			}
		}
	}
	m.partial = m.f.Partial()
	if m.partial != m.lastPartial {
		m.lastPartial = m.partial
		if d := m.check(m.partial, echoes, true, &anyLines); d.Outcome != "" {
			d.Off = base
			return d
		}
	}
	if m.Pats == nil && !m.QuietOnly && len(anyLines) > 0 {
		return Decision{Outcome: AnyOutput, Lines: BoundLines(anyLines), Off: base}
	}
	return Decision{}
}

// check matches one line. With patterns null, a line with new text is collected in anyLines
// (the decision comes once the whole chunk was read).
func (m *Matcher) check(line string, echoes echo.Set, partial bool, anyLines *[]string) Decision {
	clean := echo.Strip(line, echoes, partial)
	if strings.TrimSpace(clean) == "" {
		return Decision{}
	}
	m.saw = true
	for i, re := range m.Stops {
		if re.MatchString(clean) {
			return Decision{Outcome: Stopped, Index: &i, Lines: BoundLines([]string{line})}
		}
	}
	if m.Pats == nil {
		*anyLines = append(*anyLines, line)
		return Decision{}
	}
	for i, re := range m.Pats {
		if re.MatchString(clean) {
			return Decision{Outcome: Matched, Index: &i, Lines: BoundLines([]string{line})}
		}
	}
	return Decision{}
}

func (m *Matcher) addTail(line string) {
	m.tailLines = append(m.tailLines, line)
	if len(m.tailLines) > 2*TailLines {
		m.tailLines = append(m.tailLines[:0], m.tailLines[len(m.tailLines)-TailLines:]...)
	}
}

// Tail returns the last lines seen, the unfinished one included.
func (m *Matcher) Tail() []string {
	lines := append([]string{}, m.tailLines...)
	if m.partial != "" {
		lines = append(lines, m.partial)
	}
	return BoundLines(lines)
}

// BoundLines keeps the newest lines within TailLines lines and TailBytes bytes.
func BoundLines(lines []string) []string {
	if len(lines) > TailLines {
		lines = lines[len(lines)-TailLines:]
	}
	total := 0
	for i := len(lines) - 1; i >= 0; i-- {
		total += len(lines[i])
		if total > TailBytes {
			if i == len(lines)-1 {
				return []string{stream.TailBytes(lines[i], TailBytes)}
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

// Saw reports whether the pane printed something other than the echo of our own typing.
func (m *Matcher) Saw() bool { return m.saw }

// AltSeen reports whether the pane switched to the alternate screen.
func (m *Matcher) AltSeen() bool { return m.alt.seen }

// A full-screen program draws its rows with cursor motion, often rewriting only what changed
// (watch, top), so its text need not come as lines in the stream: on the alternate screen the
// wait also reads the screen's rows, and a row that was not on screen at the last look counts as
// new output. Rows already shown when the wait began (the alternate screen was on then) are the
// first look; after a switch to it during the wait, every row is new.

// StartOnAlt tells the matcher the pane showed the alternate screen, with rows, when the wait began.
func (m *Matcher) StartOnAlt(rows []string) {
	m.alt.on = true
	m.shown = rowSet(rows)
}

// OnAlt reports whether the pane shows the alternate screen now, as far as the output read tells.
func (m *Matcher) OnAlt() bool { return m.alt.on }

// Rows checks the rows of the alternate screen, read after the output fed so far: stop
// patterns, then patterns, in the rows not shown at the last look.
func (m *Matcher) Rows(rows []string) Decision {
	if m.alt.seen && !m.altFresh {
		m.altFresh, m.shown = true, nil // switched to it during the wait: every row is new
	}
	echoes := m.Echoes()
	var fresh []string // new rows, our echo removed
	var lines []string // the same rows as shown
	for _, row := range rows {
		row = strings.TrimRight(row, " ")
		if clean := echo.Strip(row, echoes, false); !m.shown[row] && strings.TrimSpace(clean) != "" {
			fresh, lines = append(fresh, clean), append(lines, row)
		}
	}
	m.shown = rowSet(rows)
	if len(fresh) > 0 {
		m.saw = true
	}
	if i, at := firstMatch(m.Stops, fresh); i >= 0 {
		return Decision{Outcome: Stopped, Index: &i, Lines: []string{lines[at]}}
	}
	if i, at := firstMatch(m.Pats, fresh); i >= 0 {
		return Decision{Outcome: Matched, Index: &i, Lines: []string{lines[at]}}
	}
	return Decision{}
}

// firstMatch returns the first row (at) that a pattern (i) matches, or -1s.
func firstMatch(pats []*regexp.Regexp, rows []string) (i, at int) {
	for at, row := range rows {
		for i, re := range pats {
			if re.MatchString(row) {
				return i, at
			}
		}
	}
	return -1, -1
}

// rowSet is the set of rows, trailing blanks removed.
func rowSet(rows []string) map[string]bool {
	set := make(map[string]bool, len(rows))
	for _, r := range rows {
		set[strings.TrimRight(r, " ")] = true
	}
	return set
}
