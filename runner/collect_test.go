package runner

import (
	"bytes"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/shellrun"
)

const testID = "tmx0123456789ab"

// Markers of testID.
const (
	startMark = "\x1b]6973;" + testID + ";S\a"
	endPrefix = "\x1b]6973;" + testID + ";E;"
)

// framed is what a pane shows for one run: the echo, the start marker, the body, the end
// marker and the next prompt.
func framed(body string, status int) []byte {
	var b bytes.Buffer
	b.WriteString("$  { . '/tmp/tmux-mcp-1/r1'; }\r\n\x1b[?2004l\r")
	b.WriteString(startMark)
	b.WriteString(body)
	fmt.Fprintf(&b, "%s%d\a$ ", endPrefix, status)
	return b.Bytes()
}

func feedAll(c *collector, out []byte, cuts []int) {
	prev := 0
	for _, at := range cuts {
		c.feed(out[prev:at], 0)
		prev = at
	}
	c.feed(out[prev:], 0)
}

func TestCollectorSplits(t *testing.T) {
	cases := []struct {
		body   string
		status int
		want   string
	}{
		{"", 0, ""},
		{"hello\r\n", 3, "hello"},
		{"a\r\nb\r\n\r\nc\r\n", 255, "a\r\nb\r\n\r\nc"},
		{"\r\nx\r\n\r\n", 0, "\r\nx\r\n"},
		{"no newline", 1, "no newline"},
		{"tmx0123456789ab_E 0 tmx0123456789ab_D looks like us but is not a marker\r\n", 0, "tmx0123456789ab_E 0 tmx0123456789ab_D looks like us but is not a marker"},
		{"héllo ✓ 🙂\r\n", 7, "héllo ✓ 🙂"},
	}
	for _, tc := range cases {
		out := framed(tc.body, tc.status)
		for at := 0; at <= len(out); at++ {
			c := newCollector(testID, 1<<20, nil)
			feedAll(c, out, []int{at})
			if !c.done || c.status != tc.status || string(c.output()) != tc.want {
				t.Fatalf("%q split at %d: done %v status %d output %q", tc.body, at, c.done, c.status, c.output())
			}
		}
		// Byte by byte.
		c := newCollector(testID, 1<<20, nil)
		for i := range out {
			c.feed(out[i:i+1], 0)
		}
		if !c.done || string(c.output()) != tc.want {
			t.Fatalf("%q byte by byte: %q", tc.body, c.output())
		}
	}
}

func TestCollectorNotDone(t *testing.T) {
	out := framed("partial\r\n", 0)
	cut := bytes.Index(out, []byte(endPrefix)) + 10 // inside the end marker
	c := newCollector(testID, 1<<20, nil)
	c.feed(out[:cut], 0)
	if c.done || !c.started {
		t.Fatalf("done %v started %v", c.done, c.started)
	}
	if got := string(c.output()); got != "partial" {
		t.Errorf("output so far %q (a partial marker must not show)", got)
	}
	c.feed(out[cut:], 0)
	if !c.done || c.status != 0 {
		t.Fatal("not done after the rest")
	}
}

func TestCollectorWindow(t *testing.T) {
	var body strings.Builder
	for i := 0; i < 10000; i++ {
		fmt.Fprintf(&body, "line %05d\r\n", i)
	}
	out := framed(body.String(), 9)
	c := newCollector(testID, 4096, nil)
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < len(out); {
		n := 1 + rng.Intn(3000)
		c.feed(out[i:min(i+n, len(out))], 0)
		i += n
		if len(c.body) > 4096+2048+3000 {
			t.Fatalf("body grew to %d bytes", len(c.body))
		}
	}
	if !c.done || c.status != 9 {
		t.Fatalf("done %v status %d", c.done, c.status)
	}
	got := string(c.output())
	if !strings.HasSuffix(got, "line 09999") || !strings.HasPrefix(got, "line ") {
		t.Fatalf("kept %q…%q", got[:20], got[len(got)-20:])
	}
	kept := strings.Count(got, "\n") + 1
	if c.cutLines+kept != 10000 {
		t.Errorf("cut %d + kept %d lines != 10000", c.cutLines, kept)
	}
	s := shape(c.output(), c.cutLines, 200, 1_000_000)
	if len(s.lines) != 200 || s.dropped != 9800 || s.lines[199] != "line 09999" {
		t.Errorf("shape: %d lines, dropped %d, last %q", len(s.lines), s.dropped, s.lines[len(s.lines)-1])
	}
}

func TestCollectorLostStart(t *testing.T) {
	out := framed("tail of a flood\r\n", 4)
	rest := out[bytes.Index(out, []byte("flood")):]
	c := newCollector(testID, 1<<20, nil)
	c.missed()
	c.feed(rest, 0)
	if !c.done || c.status != 4 || !c.lostStart || string(c.output()) != "flood" {
		t.Fatalf("done %v status %d lost %v output %q", c.done, c.status, c.lostStart, c.output())
	}
	// Missed bytes before a start marker that survived: nothing of the output is lost.
	c = newCollector(testID, 1<<20, nil)
	c.missed()
	c.feed(out[10:], 0)
	if !c.done || c.lostStart || string(c.output()) != "tail of a flood" {
		t.Fatalf("start survived: lost %v output %q", c.lostStart, c.output())
	}
}

func TestCollectorDiscard(t *testing.T) {
	out := framed(strings.Repeat("x", 100000)+"\r\n", 2)
	c := newCollector(testID, 1<<20, nil)
	c.discard = true
	for i := 0; i < len(out); i += 1000 {
		c.feed(out[i:min(i+1000, len(out))], 0)
		if len(c.body) > 1000+64 {
			t.Fatalf("discarding collector holds %d bytes", len(c.body))
		}
	}
	if !c.done || c.status != 2 {
		t.Fatal("end not found while discarding")
	}
}

func TestShape(t *testing.T) {
	cases := []struct {
		name                 string
		body                 string
		maxLines, maxBytes   int
		want                 []string
		dropped              int
		omitted              int64
		cutLines, wantCutAdd int
	}{
		{name: "plain", body: "a\r\nb", maxLines: 10, maxBytes: 100, want: []string{"a", "b"}},
		{name: "maxLines", body: "1\n2\n3\n4", maxLines: 2, maxBytes: 100, want: []string{"3", "4"}, dropped: 2},
		{name: "bytes", body: "aaaa\nbbbb\ncc", maxLines: 10, maxBytes: 8, want: []string{"bbbb", "cc"}, omitted: 5},
		{name: "one long line", body: "0123456789", maxLines: 10, maxBytes: 4, want: []string{"6789"}, omitted: 6},
		{name: "utf8 tail", body: "ééé", maxLines: 10, maxBytes: 3, want: []string{"é"}, omitted: 4},
		{name: "colours", body: "\x1b[31mred\x1b[0m", maxLines: 10, maxBytes: 100, want: []string{"red"}},
		{name: "progress", body: "10%\r50%\r100%\r\ndone", maxLines: 10, maxBytes: 100, want: []string{"100%", "done"}},
		{name: "other markers are invisible", body: "mine\n\x1b]6973;tmxfedcba987654;S\atheirs\x1b]6973;tmxfedcba987654;E;0\a\nmine too",
			maxLines: 10, maxBytes: 100, want: []string{"mine", "theirs", "mine too"}},
		{name: "blank lines at the end", body: "\r\nx\r\n", maxLines: 10, maxBytes: 100, want: []string{"", "x", ""}},
		{name: "cut lines count", body: "x\ny", maxLines: 1, maxBytes: 100, want: []string{"y"}, dropped: 1 + 5, cutLines: 5},
		{name: "empty", body: "", maxLines: 10, maxBytes: 100, want: nil},
	}
	for _, tc := range cases {
		s := shape([]byte(tc.body), tc.cutLines, tc.maxLines, tc.maxBytes)
		if fmt.Sprint(s.lines) != fmt.Sprint(tc.want) || s.dropped != tc.dropped || s.omitted != tc.omitted {
			t.Errorf("%s: lines %q dropped %d omitted %d; want %q %d %d",
				tc.name, s.lines, s.dropped, s.omitted, tc.want, tc.dropped, tc.omitted)
		}
		if n := len(join(s.lines)); n > tc.maxBytes {
			t.Errorf("%s: %d bytes returned, ceiling %d", tc.name, n, tc.maxBytes)
		}
	}
}

func TestValidateCommand(t *testing.T) {
	for cmd, want := range map[string]error{
		"true": nil, "": ErrEmpty, "  \n\r\t ": ErrEmpty, "echo \x00": ErrNUL, "echo\n": nil,
	} {
		if got := ValidateCommand(cmd); got != want {
			t.Errorf("%q: %v, want %v", cmd, got, want)
		}
	}
}

// FuzzCollector checks that feeding a pane's output in any chunks finds what shellrun.Parse
// finds in the whole.
func FuzzCollector(f *testing.F) {
	f.Add([]byte(framed("hello\r\n", 3)), uint64(7))
	f.Add([]byte(framed("", 0)), uint64(1))
	f.Add([]byte("junk"+startMark+"\n"+endPrefix+"12\a"), uint64(3))
	f.Fuzz(func(t *testing.T, out []byte, seed uint64) {
		rng := rand.New(rand.NewSource(int64(seed)))
		c := newCollector(testID, 1<<20, nil)
		for i := 0; i < len(out); {
			n := 1 + rng.Intn(64)
			c.feed(out[i:min(i+n, len(out))], 0)
			i += n
		}
		whole := shellrun.Parse(out, testID)
		if whole.Failed != "" {
			return
		}
		if c.done != whole.Done || (c.done && c.status != whole.Status) {
			t.Fatalf("chunks: done %v status %d; whole: done %v status %d", c.done, c.status, whole.Done, whole.Status)
		}
		if c.done && whole.Started && !bytes.Equal(c.output(), whole.Body) {
			t.Fatalf("chunks body %q, whole %q", c.output(), whole.Body)
		}
	})
}

func BenchmarkCollectorFlood(b *testing.B) {
	chunk := bytes.Repeat([]byte(strings.Repeat("x", 99)+"\r\n"), 2600) // ~256 KiB
	b.SetBytes(int64(len(chunk)))
	c := newCollector(testID, bodyWindow, nil)
	c.feed([]byte(startMark), 0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.feed(chunk, 0)
	}
}

// TestCollectorPlainTrim: a collector that keeps only the lines the result returns gives the
// result (lines, dropped and omitted counts) the window alone gives, for plain text, for text
// with escape sequences (which keeps the window), with lines whose last ones outgrow half the
// window, and with lines over the filter's cap, fed in any chunks.
func TestCollectorPlainTrim(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	line := func(i int) string {
		switch k := rng.Intn(2000); {
		case k < 50:
			return "\x1b[1mbold\x1b[0m " + fmt.Sprint(i)
		case k < 100:
			return "progress 10%\rprogress " + fmt.Sprint(i)
		case k < 102 && i < 5000:
			// Over the filter's line cap, before the collector has cut a plain body (see
			// trimPlain on a long line after that).
			return strings.Repeat("long", 70<<10)
		case k < 150:
			return ""
		case k < 160:
			// A full-screen program: the filter leaves its lines out.
			return fmt.Sprintf("\x1b[?1049hscreen %d\r\nof a pager\r\n\x1b[?1049lafter", i)
		}
		return fmt.Sprintf("line %d %s", i, strings.Repeat("x", rng.Intn(120)))
	}
	for trial := 0; trial < 40; trial++ {
		var body strings.Builder
		n := rng.Intn(30000)
		plain := trial%2 == 0
		// Wide lines, under the filter's cap: the last lines kept can outgrow the window.
		wide := trial%4 == 2
		if wide {
			n = 200 + rng.Intn(400)
		}
		for i := 0; i < n; i++ {
			l := line(i)
			if wide {
				l = fmt.Sprintf("wide %d %s", i, strings.Repeat("w", rng.Intn(40<<10)))
			}
			if plain && strings.Contains(l, "\x1b") {
				l = "plain"
			}
			body.WriteString(l + "\r\n")
		}
		if rng.Intn(2) == 0 {
			body.WriteString("no newline at the end")
		}
		out := framed(body.String(), 0)
		keep := []int{1, 10, 200, 10000}[rng.Intn(4)]
		if wide {
			keep = []int{10, 30, 200}[rng.Intn(3)]
		}
		whole, tail := newCollector(testID, bodyWindow, nil), newCollector(testID, bodyWindow, nil)
		tail.keepLines = keep
		for i := 0; i < len(out); {
			k := 1 + rng.Intn(96<<10)
			whole.feed(out[i:min(i+k, len(out))], int64(i))
			tail.feed(out[i:min(i+k, len(out))], int64(i))
			i += k
		}
		if !whole.done || !tail.done {
			t.Fatalf("trial %d: not done", trial)
		}
		w := shape(whole.output(), whole.cutLines, keep, 1_000_000)
		g := shape(tail.output(), tail.cutLines, keep, 1_000_000)
		if !slices.Equal(w.lines, g.lines) || w.dropped != g.dropped || w.omitted != g.omitted {
			t.Fatalf("trial %d (plain %v, %d lines, keep %d): %d lines, dropped %d, omitted %d; whole window: %d lines, dropped %d, omitted %d",
				trial, plain, n, keep, len(g.lines), g.dropped, g.omitted, len(w.lines), w.dropped, w.omitted)
		}
		if plain && !wide && cap(tail.body) > 4<<20 {
			t.Errorf("trial %d: a plain body kept %d bytes", trial, cap(tail.body))
		}
	}
}
