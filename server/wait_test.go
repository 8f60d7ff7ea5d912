package server

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/echo"
	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

// TestWaitWakeUpInProcess measures wait_for_text's wake-up without the MCP transport: from
// bash printing a line to the handler returning its match.
func TestWaitWakeUpInProcess(t *testing.T) {
	s, tmx, pane := newTestServer(t, policy.Mutating)
	ctx := context.Background()
	call := func(args map[string]any) waitForTextOut {
		t.Helper()
		raw, _ := json.Marshal(args)
		res, err := s.Call(ctx, "wait_for_text", raw)
		if err != nil || res.IsError {
			t.Fatalf("%v %s", err, resultText(res))
		}
		var out waitForTextOut
		json.Unmarshal(res.StructuredContent.(json.RawMessage), &out)
		return out
	}
	call(map[string]any{"pane_id": pane, "timeout": 0.1}) // attaches the stream connection
	var lat []time.Duration
	for range 12 {
		// Typed by tmux directly: "WOKE$EPOCHREALTIME" on the typed line does not match. The
		// sleep outlasts the wait's setup even on a loaded machine.
		tmx.Tmux("send-keys", "-t", pane, "sleep 0.5; echo WOKE$EPOCHREALTIME", "Enter")
		out := call(map[string]any{"pane_id": pane, "patterns": []string{`^WOKE\d+\.\d+$`}, "regex": true, "timeout": 5})
		now := time.Now()
		if !out.Found {
			t.Fatalf("%+v", out)
		}
		f, err := strconv.ParseFloat(strings.TrimPrefix(out.MatchedLines[0], "WOKE"), 64)
		if err != nil {
			t.Fatal(err)
		}
		lat = append(lat, now.Sub(time.Unix(0, int64(f*1e9))))
	}
	slices.Sort(lat)
	t.Logf("wake-up in process (bash prints -> handler returns), %d runs: min %v, median %v, p90 %v, max %v",
		len(lat), lat[0], lat[len(lat)/2], lat[len(lat)*9/10], lat[len(lat)-1])
	if lat[len(lat)/2] > 20*time.Millisecond {
		t.Errorf("median wake-up %v", lat[len(lat)/2])
	}
}

// Raw output of shells typing and running `echo <120 letters> LONGMARK` in an 80-column pane
// (recorded with tmux 3.3a), cut to what matters.
const (
	longEcho = "echo abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij LONGMARK"
	longOut  = "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij LONGMARK"
	fishRaw  = "echo \r\x1b[16Cabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij \x1bM\r\r\n" +
		"\x1b[57CLONGMARK\x1bM\r\r\n\x1b[65C\x1bM\x1b[54D" + longEcho + "\x1bM\r\r\n\x1b[65C\r\n\x1b[30m\x1b[m\x0f\x1b]0;echo abcdefghijabcde ~\a\x1b[30m\x1b[m\x0f\r" +
		longOut + "\r\n\x1b[2m⏎\x1b[m\x0f \r⏎ \r\x1b[K"
	zshRaw = "e\becho abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabc \r\x1b[Kd\rdefghijabcdefghijabcdefghijabcdefghijabcdefghij LONGMARK\x1b[?2004l\r\r\n" +
		longOut + "\r\n\x1b[1m\x1b[7m#\x1b[27m\x1b[1m\x1b[0m \r \r\r\x1b[0m\x1b[27m\x1b[24m\x1b[J$ \x1b[K\x1b[?2004h"
)

func TestWaitMatcherEcho(t *testing.T) {
	for _, tc := range []struct {
		name string
		raw  string
	}{{"fish", fishRaw}, {"zsh", zshRaw}} {
		var es echo.Store[paneKey]
		k := paneKey{Pane: "%1"}
		es.Typed(k, []echo.Input{{Text: longEcho}, {Key: "Enter"}}, time.Now())
		re := regexp.MustCompile("(?i)LONGMARK")
		// Fed whole, a line at a time, and (zsh) one byte at a time: fish draws each row in
		// one write, so its rows are never split inside.
		steps := map[string][]int{"fish": {0, -1}, "zsh": {0, -1, 1}}[tc.name]
		for _, step := range steps {
			m := &waitMatcher{pats: []*regexp.Regexp{re}, echoes: func() echo.Set { return es.Echoes(k, time.Now()) }}
			var d decision
			raw := []byte(tc.raw)
			off := int64(0)
			for len(raw) > 0 && d.outcome == "" {
				n := len(raw)
				switch {
				case step > 0:
					n = min(step, len(raw))
				case step < 0:
					if i := bytes.IndexByte(raw, '\n'); i >= 0 {
						n = i + 1
					}
				}
				d = m.feed(raw[:n], off)
				raw, off = raw[n:], off+int64(n)
			}
			if d.outcome != outMatched || !slices.Equal(d.lines, []string{longOut}) {
				t.Errorf("%s (step %d): %+v", tc.name, step, d)
			}
			// The cursor points right after the matched text (its line end, once seen).
			end := int64(strings.LastIndex(tc.raw, longOut) + len(longOut))
			if d.off < end || d.off > end+2 {
				t.Errorf("%s (step %d): offset %d, want %d to %d", tc.name, step, d.off, end, end+2)
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
	if got := boundLines(many); len(got) != waitTailLines || got[len(got)-1] != "29" {
		t.Errorf("30 lines: %q", got)
	}
	big := strings.Repeat("é", 3000)
	if got := boundLines([]string{"a", big}); len(got) != 1 || len(got[0]) > waitTailBytes || !strings.HasSuffix(big, got[0]) {
		t.Errorf("a long line: %d lines, %d bytes", len(got), len(got[0]))
	}
	if got := boundLines([]string{strings.Repeat("a", 1500), strings.Repeat("b", 1000)}); len(got) != 1 || got[0][0] != 'b' {
		t.Errorf("byte bound: %d lines", len(got))
	}
}
