package shellrun

import (
	"bytes"
	"strings"
	"testing"
)

const tid = "tmx0123456789ab"

// mk builds output from parts, replacing S, E(n) and D placeholders.
func mk(s string) []byte {
	r := strings.NewReplacer("<S>", tid+"_S", "<E>", tid+"_E", "<D>", tid+"_D", "<ID>", tid)
	return []byte(r.Replace(s))
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
		{"crlf", " . '/x/y'\r\n<S>\r\nhello\r\nworld\r\n<E> 0 <D>\r\n$ ", true, 0, true, "hello\r\nworld"},
		{"lf", "<S>\nhi\n<E> 7 <D>\n", true, 7, true, "hi"},
		{"no trailing newline", "<S>\r\nabc<E> 0 <D>\r\n", true, 0, true, "abc"},
		{"empty body", "<S>\r\n<E> 1 <D>\r\n", true, 1, true, ""},
		{"only one break stripped", "<S>\r\na\r\n\r\n<E> 0 <D>\r\n", true, 0, true, "a\r\n"},
		{"cr cr lf kept", "<S>\r\na\r\r\n<E> 0 <D>\r\n", true, 0, true, "a\r"},
		{"status 255", "<S>\n<E> 255 <D>", true, 255, true, ""},
		{"end of input", "<S>\nx\n<E> 3 <D>", true, 3, true, "x"},
		{"space after D", "<S>\nx\n<E> 3 <D>   ", true, 3, true, "x"},
		{"tab after D", "<S>\nx\n<E> 3 <D>\tq", true, 3, true, "x"},
		{"esc after D", "<S>\nx\n<E> 3 <D>\x1b[0m", true, 3, true, "x"},
		{"status 256 skipped", "<S>\nx\n<E> 256 <D>\n<E> 2 <D>\n", true, 2, true, "x\n<ID>_E 256 <ID>_D"},
		{"leading zero skipped", "<S>\n<E> 07 <D>\n<E> 00 <D>\n<E> 0 <D>\n", true, 0, true, "<ID>_E 07 <ID>_D\n<ID>_E 00 <ID>_D"},
		{"four digits skipped", "<S>\n<E> 1000 <D>\n", false, 0, true, "<ID>_E 1000 <ID>_D"},
		{"negative skipped", "<S>\n<E> -1 <D>\n", false, 0, true, "<ID>_E -1 <ID>_D"},
		{"D followed by junk", "<S>\n<E> 0 <D>x\n<E> 4 <D>\n", true, 4, true, "<ID>_E 0 <ID>_Dx"},
		{"lone E", "<S>\n<E>\n<E> \n<E> 5\n<E> 5 \n", false, 0, true, "<ID>_E\n<ID>_E \n<ID>_E 5\n<ID>_E 5 "},
		{"other id", "tmxffffffffffff_S\n<S>\nA\ntmxffffffffffff_E 0 tmxffffffffffff_D\n<E> 9 <D>", true, 9, true,
			"A\ntmxffffffffffff_E 0 tmxffffffffffff_D"},
		{"mixed ids", "<S>\n<E> 0 tmxffffffffffff_D\n<E> 6 <D>\n", true, 6, true, "<ID>_E 0 tmxffffffffffff_D"},
		{"no start", "typed line\r\nout\r\n<E> 2 <D>\r\n", true, 2, false, "typed line\r\nout"},
		{"end before start ignored", "<E> 2 <D>\r\n<S>\r\nx", false, 0, true, "x"},
		{"start not alone", "x<S>y\r\nz\r\n<E> 0 <D>", true, 0, false, "x<ID>_Sy\r\nz"},
		{"start with escapes", "\x1b[?2004l\r\r\n\x1b[0m<S>\x1b[0m\x1b]0;title\x07 \r\nout\r\n<E> 0 <D>\r\n", true, 0, true, "out"},
		{"start twice", "<S>\r\nq<S>\r\nout\r\n<E> 0 <D>", true, 0, true, "q<ID>_S\r\nout"},
		{"not done", "<S>\r\npartial output.", false, 0, true, "partial output."},
		{"not done holds a t", "<S>\r\npartial out", false, 0, true, "partial ou"},
		{"not done holds break", "<S>\r\nline\r\n", false, 0, true, "line"},
		{"not done holds cr", "<S>\r\nline\r", false, 0, true, "line"},
		{"not done holds marker prefix", "<S>\r\nline\r\n<ID>_E 1", false, 0, true, "line"},
		{"not done holds short prefix", "<S>\r\nabc" + tid[:5], false, 0, true, "abc"},
		{"not done keeps non-prefix", "<S>\r\nabc<ID>_E 1x", false, 0, true, "abc<ID>_E 1x"},
		{"not done start at end", "<S>\r", false, 0, true, ""},
		{"empty", "", false, 0, false, ""},
		{"unicode and escapes in body", "<S>\r\n\x1b[31mrøt\x1b[0m ✓\r\n<E> 0 <D>\r\n", true, 0, true, "\x1b[31mrøt\x1b[0m ✓"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Parse(mk(tt.out), tid)
			if p.Done != tt.done || p.Status != tt.status || p.Started != tt.started || string(p.Body) != string(mk(tt.body)) {
				t.Errorf("Parse(%q) = {Done:%v Status:%d Started:%v Body:%q}, want {%v %d %v %q}",
					tt.out, p.Done, p.Status, p.Started, p.Body, tt.done, tt.status, tt.started, mk(tt.body))
			}
			if !p.Done && p.End != 0 {
				t.Errorf("End = %d when not done", p.End)
			}
		})
	}
}

func TestParseEnd(t *testing.T) {
	out := mk("<S>\r\nx\r\n<E> 12 <D>\r\n$ ")
	p := Parse(out, tid)
	if !p.Done || string(out[p.End:]) != "\r\n$ " {
		t.Fatalf("End = %d, rest %q", p.End, out[p.End:])
	}
}

func TestParseBadID(t *testing.T) {
	out := mk("<S>\n<E> 0 <D>\n")
	for _, id := range []string{"", "tmx", "tmx0123456789AB", "tmx0123456789a", "abc0123456789ab", tid + "0"} {
		if p := Parse(out, id); p.Done || p.Started || p.Body != nil {
			t.Errorf("Parse with id %q = %+v", id, p)
		}
	}
}

func TestParseDoesNotAlias(t *testing.T) {
	out := mk("<S>\nabc\n<E> 0 <D>\n")
	p := Parse(out, tid)
	for i := range out {
		out[i] = 'z'
	}
	if string(p.Body) != "abc" {
		t.Fatalf("Body changed with its input: %q", p.Body)
	}
}

// TestParseSplit feeds every prefix of a complete output: the marker is only
// accepted once complete, and every partial body is a prefix of the final one.
func TestParseSplit(t *testing.T) {
	full := mk(" . '/p'\r\n\x1b[0m<S>\r\nline one\r\nline two, no newline<E> 255 <D>\r\n$ ")
	final := Parse(full, tid)
	if !final.Done || final.Status != 255 || string(final.Body) != "line one\r\nline two, no newline" {
		t.Fatalf("full parse = %+v", final)
	}
	endAt := bytes.Index(full, []byte(tid+"_D")) + IDLen + 2
	for n := 0; n <= len(full); n++ {
		p := parse(full[:n], tid)
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
