package shellrun

import (
	"bytes"
	"regexp"
	"testing"
)

const tid = "tmx0123456789ab"

var placeholder = regexp.MustCompile(`<S>|<E:(\d+)>|<X:([a-z ]+)>|<F:([SE0-9;]+)>|<ID>`)

// mk builds output from parts: <S> is the start marker of tid, <E:n> its end marker with
// status n, <X:reason> its failure marker, <F:rest> a marker of another id, <ID> the id.
func mk(s string) []byte {
	return []byte(placeholder.ReplaceAllStringFunc(s, func(m string) string {
		sub := placeholder.FindStringSubmatch(m)
		switch {
		case m == "<S>":
			return oscPrefix + tid + ";S\a"
		case m == "<ID>":
			return tid
		case sub[1] != "":
			return oscPrefix + tid + ";E;" + sub[1] + "\a"
		case sub[2] != "":
			return oscPrefix + tid + ";X;" + sub[2] + "\a"
		}
		return oscPrefix + "tmxffffffffffff;" + sub[3] + "\a"
	}))
}

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		done    bool
		status  int
		started bool
		body    string
	}{
		{"crlf", "$  { . '/x/y'; }\r\n<S>hello\r\nworld\r\n<E:0>$ ", true, 0, true, "hello\r\nworld"},
		{"lf", "<S>hi\n<E:7>", true, 7, true, "hi"},
		{"no trailing newline", "<S>abc<E:0>$ ", true, 0, true, "abc"},
		{"empty body", "<S><E:1>", true, 1, true, ""},
		{"trailing blank lines kept", "<S>\r\nx\r\n\r\n<E:0>", true, 0, true, "\r\nx\r\n"},
		{"cr cr lf kept", "<S>a\r\r\n<E:0>", true, 0, true, "a\r"},
		{"status 255", "<S><E:255>", true, 255, true, ""},
		{"status 256 is output", "<S>x<E:256><E:2>", true, 2, true, "x" + string(mk("<E:256>"))},
		{"leading zero is output", "<S><E:07><E:0>", true, 0, true, string(mk("<E:07>"))},
		{"unterminated", "<S>x\x1b]6973;<ID>;E;0", false, 0, true, "x"},
		{"lookalike text is output", "<S><ID>_E 0 <ID>_D\n<E:0>", true, 0, true, "<ID>_E 0 <ID>_D"},
		{"other id", "<F:S><S>A<F:E;0><E:9>", true, 9, true, "A" + string(mk("<F:E;0>"))},
		{"no start", "typed\r\nout\r\n<E:2>", true, 2, false, "typed\r\nout"},
		{"end first: the start was lost", "<E:2><S>x", true, 2, false, ""},
		{"start twice", "<S>q<S>out<E:0>", true, 0, true, "q" + string(mk("<S>")) + "out"},
		{"not done", "<S>partial output.", false, 0, true, "partial output."},
		{"not done holds break", "<S>line\r\n", false, 0, true, "line"},
		{"not done holds cr", "<S>line\r", false, 0, true, "line"},
		{"not done holds marker prefix", "<S>line\r\n\x1b]69", false, 0, true, "line"},
		{"not done holds esc", "<S>abc\x1b", false, 0, true, "abc"},
		{"not done keeps other escapes", "<S>abc\x1b[0m", false, 0, true, "abc\x1b[0m"},
		{"empty", "", false, 0, false, ""},
		{"failure", "<X:function builtin>$ ", false, 0, false, ""},
		{"unicode and escapes in body", "<S>\x1b[31mrøt\x1b[0m ✓\r\n<E:0>", true, 0, true, "\x1b[31mrøt\x1b[0m ✓"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Parse(mk(tt.out), tid)
			if p.Done != tt.done || p.Status != tt.status || p.Started != tt.started || string(p.Body) != string(mk(tt.body)) {
				t.Errorf("Parse(%q) = {Done:%v Status:%d Started:%v Body:%q}, want {%v %d %v %q}",
					tt.out, p.Done, p.Status, p.Started, p.Body, tt.done, tt.status, tt.started, mk(tt.body))
			}
			if !p.Done && p.Failed == "" && p.End != 0 {
				t.Errorf("End = %d when not done", p.End)
			}
		})
	}
}

func TestParseFailedAndForeign(t *testing.T) {
	p := Parse(mk("<X:function builtin>$ "), tid)
	if p.Failed != "function builtin" || p.End == 0 || p.Done {
		t.Errorf("failure marker: %+v", p)
	}
	p = Parse(mk("<S>a<F:S>b<F:E;0><E:0>"), tid)
	if len(p.Foreign) != 1 || p.Foreign[0] != "tmxffffffffffff" {
		t.Errorf("Foreign = %q", p.Foreign)
	}
	if p = Parse(mk("<S>a<E:0>"), tid); len(p.Foreign) != 0 {
		t.Errorf("Foreign = %q for a clean body", p.Foreign)
	}
}

func TestParseEnd(t *testing.T) {
	out := mk("<S>x\r\n<E:12>\r\n$ ")
	p := Parse(out, tid)
	if !p.Done || string(out[p.End:]) != "\r\n$ " {
		t.Fatalf("End = %d, rest %q", p.End, out[p.End:])
	}
}

func TestParseBadID(t *testing.T) {
	out := mk("<S>\n<E:0>\n")
	for _, id := range []string{"", "tmx", "tmx0123456789AB", "tmx0123456789a", "abc0123456789ab", tid + "0"} {
		if p := Parse(out, id); p.Done || p.Started || p.Body != nil {
			t.Errorf("Parse with id %q = %+v", id, p)
		}
	}
}

func TestParseDoesNotAlias(t *testing.T) {
	out := mk("<S>abc\n<E:0>")
	p := Parse(out, tid)
	for i := range out {
		out[i] = 'z'
	}
	if string(p.Body) != "abc" {
		t.Fatalf("Body changed with its input: %q", p.Body)
	}
}

// TestParseSplit feeds every prefix of a complete output: the marker is only accepted once
// complete, and every partial body is a prefix of the final one.
func TestParseSplit(t *testing.T) {
	full := mk("$  { . '/p'; }\r\n\x1b[0m<S>line one\r\nline two, no newline<E:255>$ ")
	final := Parse(full, tid)
	if !final.Done || final.Status != 255 || string(final.Body) != "line one\r\nline two, no newline" {
		t.Fatalf("full parse = %+v", final)
	}
	endAt := final.End
	for n := 0; n <= len(full); n++ {
		p := Parse(full[:n], tid)
		if p.Done != (n >= endAt) {
			t.Fatalf("prefix %d: Done=%v", n, p.Done)
		}
		if p.Done && p.Status != 255 {
			t.Fatalf("prefix %d: Status=%d", n, p.Status)
		}
		if p.Started && !bytes.HasPrefix(final.Body, p.Body) {
			t.Fatalf("prefix %d: partial body %q is not a prefix of %q", n, p.Body, final.Body)
		}
	}
}
