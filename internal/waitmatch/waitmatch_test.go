package waitmatch

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/echo"
)

const (
	longEcho = "echo abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij LONGMARK"
	longOut  = "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij LONGMARK"
	fishRaw  = "echo \r\x1b[16Cabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij \x1bM\r\r\n" +
		"\x1b[57CLONGMARK\x1bM\r\r\n\x1b[65C\x1bM\x1b[54D" + longEcho + "\x1bM\r\r\n\x1b[65C\r\n\x1b[30m\x1b[m\x0f\x1b]0;echo abcdefghijabcde ~\a\x1b[30m\x1b[m\x0f\r" +
		longOut + "\r\n\x1b[2m⏎\x1b[m\x0f \r⏎ \r\x1b[K"
	zshRaw = "e\becho abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabc \r\x1b[Kd\rdefghijabcdefghijabcdefghijabcdefghijabcdefghij LONGMARK\x1b[?2004l\r\r\n" +
		longOut + "\r\n\x1b[1m\x1b[7m#\x1b[27m\x1b[1m\x1b[0m \r \r\r\x1b[0m\x1b[27m\x1b[24m\x1b[J$ \x1b[K\x1b[?2004h"
)

func TestMatcherEcho(t *testing.T) {
	for _, tc := range []struct {
		name string
		raw  string
	}{{"fish", fishRaw}, {"zsh", zshRaw}} {
		var es echo.Store[string]
		k := "%1"
		es.Typed(k, []echo.Input{{Text: longEcho}, {Key: "Enter"}}, time.Now())
		re := regexp.MustCompile("(?i)LONGMARK")
		// Fed whole, a line at a time, and (zsh) one byte at a time: fish draws each row in
		// one write, so its rows are never split inside.
		steps := map[string][]int{"fish": {0, -1}, "zsh": {0, -1, 1}}[tc.name]
		for _, step := range steps {
			m := &Matcher{Pats: []*regexp.Regexp{re}, Echoes: func() echo.Set { return es.Echoes(k, time.Now()) }}
			var d Decision
			raw := []byte(tc.raw)
			off := int64(0)
			for len(raw) > 0 && d.Outcome == "" {
				n := len(raw)
				switch {
				case step > 0:
					n = min(step, len(raw))
				case step < 0:
					if i := bytes.IndexByte(raw, '\n'); i >= 0 {
						n = i + 1
					}
				}
				d = m.Feed(raw[:n], off)
				raw, off = raw[n:], off+int64(n)
			}
			if d.Outcome != Matched || !slices.Equal(d.Lines, []string{longOut}) {
				t.Errorf("%s (step %d): %+v", tc.name, step, d)
			}
			// The cursor points right after the matched text (its line end, once seen).
			end := int64(strings.LastIndex(tc.raw, longOut) + len(longOut))
			if d.Off < end || d.Off > end+2 {
				t.Errorf("%s (step %d): offset %d, want %d to %d", tc.name, step, d.Off, end, end+2)
			}
		}
	}
}

func TestAltScreen(t *testing.T) {
	for _, tc := range []struct {
		chunks   []string
		on, seen bool
	}{
		{[]string{"x\x1b[?1049hy"}, true, true},
		{[]string{"x\x1b[?10", "49hy"}, true, true},
		{[]string{"\x1b", "[", "?", "4", "7", "h"}, true, true},
		{[]string{"\x1b[?1049h", "text", "\x1b[?1049l"}, false, true},
		{[]string{"\x1b[?1049l plain"}, false, false},
		{[]string{"\x1b[?2004h"}, false, false},
	} {
		var a altScreen
		for _, c := range tc.chunks {
			a.scan([]byte(c))
		}
		if a.on != tc.on || a.seen != tc.seen {
			t.Errorf("%q: on %v seen %v, want %v %v", tc.chunks, a.on, a.seen, tc.on, tc.seen)
		}
	}
}

func TestBoundLines(t *testing.T) {
	many := make([]string, 30)
	for i := range many {
		many[i] = strconv.Itoa(i)
	}
	if got := BoundLines(many); len(got) != TailLines || got[len(got)-1] != "29" {
		t.Errorf("30 lines: %q", got)
	}
	big := strings.Repeat("é", 3000)
	if got := BoundLines([]string{"a", big}); len(got) != 1 || len(got[0]) > TailBytes || !strings.HasSuffix(big, got[0]) {
		t.Errorf("a long line: %d lines, %d bytes", len(got), len(got[0]))
	}
	if got := BoundLines([]string{strings.Repeat("a", 1500), strings.Repeat("b", 1000)}); len(got) != 1 || got[0][0] != 'b' {
		t.Errorf("byte bound: %d lines", len(got))
	}
}

// TestRows: on the alternate screen a row counts once it was not on screen at the last look;
// after a switch to it during the wait, every row is new; stop patterns come first.
func TestRows(t *testing.T) {
	pats := func(s ...string) []*regexp.Regexp {
		var res []*regexp.Regexp
		for _, p := range s {
			res = append(res, regexp.MustCompile(regexp.QuoteMeta(p)))
		}
		return res
	}
	none := func() echo.Set { return echo.Set{} }
	m := &Matcher{Pats: pats("count 2", "footer"), Stops: pats("error"), Echoes: none}
	m.StartOnAlt([]string{"count 1", "footer   "})
	if d := m.Rows([]string{"count 1", "footer"}); d.Outcome != "" {
		t.Errorf("unchanged rows: %+v", d)
	}
	if d := m.Rows([]string{"count 2  ", "footer"}); d.Outcome != Matched || *d.Index != 0 || d.Lines[0] != "count 2" {
		t.Errorf("a redrawn row: %+v", d)
	}
	if d := m.Rows([]string{"count 2", "footer", "error: x"}); d.Outcome != Stopped {
		t.Errorf("stop pattern: %+v", d)
	}
	m = &Matcher{Pats: pats("footer"), Echoes: none}
	m.Feed([]byte("\x1b[?1049hfooter"), 0)
	if d := m.Rows([]string{"footer"}); d.Outcome != Matched {
		t.Errorf("after a switch during the wait: %+v", d)
	}
}
