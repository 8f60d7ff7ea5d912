package stream

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"plain", "a\nb\n", []string{"a", "b"}},
		{"partial", "a\nb", []string{"a", "b"}},
		{"empty lines kept", "a\n\nb\n", []string{"a", "", "b"}},
		{"crlf", "a\r\nb\r\n", []string{"a", "b"}},
		{"cr cr lf", "a\r\r\nb", []string{"a", "b"}},
		{"progress bar", "10%\r50%\r100%\ndone\n", []string{"100%", "done"}},
		{"cr at end keeps text", "abc\r", []string{"abc"}},
		{"cr then shorter", "abcdef\rXY\n", []string{"XY"}},
		{"backspace", "abc\b\bX\n", []string{"aX"}},
		{"backspace utf8", "aé\bb\n", []string{"ab"}},
		{"backspace at start", "\b\bab\n", []string{"ab"}},
		{"backspace erase idiom", "ab\b \b\n", []string{"a"}},
		{"csi colour", "\x1b[1;31mred\x1b[0m\n", []string{"red"}},
		{"csi private", "\x1b[?25lhidden\x1b[?25h\n", []string{"hidden"}},
		{"osc bel", "\x1b]0;title\x07text\n", []string{"text"}},
		{"osc st", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n", []string{"link"}},
		{"dcs", "\x1bPq#0;2;0;0;0\x1b\\after\n", []string{"after"}},
		{"apc pm sos", "\x1b_apc\x1b\\a\x1b^pm\x1b\\b\x1bXsos\x1b\\c\n", []string{"abc"}},
		{"tmux title", "\x1bkwin\x1b\\x\n", []string{"x"}},
		{"esc charset", "\x1b(Bok\x1b=\x1b>\n", []string{"ok"}},
		{"esc 7 8", "\x1b7a\x1b8b\n", []string{"ab"}},
		{"c0 stripped", "a\x00b\x07c\x01d\x7fe\n", []string{"abcde"}},
		{"tab kept", "a\tb\n", []string{"a\tb"}},
		{"lf inside csi executes", "a\x1b[1\n2mb\n", []string{"a", "b"}},
		{"can aborts", "\x1b[12\x18x\n", []string{"x"}},
		{"osc can aborts", "\x1b]0;t\x18x\n", []string{"x"}},
		{"esc in osc starts esc", "\x1b]0;t\x1b[31mx\n", []string{"x"}},
		{"bel in dcs ignored", "\x1bPa\x07b\x1b\\c\n", []string{"c"}},
		{"erase line", "abc\x1b[2Kdef\n", []string{"def"}},
		{"cr erase lf", "spinner\r\x1b[K\n", []string{""}},
		{"erase to end keeps", "abc\x1b[K\n", []string{"abc"}},
		{"cursor right at line start", "\x1b[3Cab\x1b[2Cc\n\x1b[Cd\n", []string{"   abc", " d"}},
		{"cursor right after cr", "xy\r\x1b[3Cz\n", []string{"z"}},
		// zsh-syntax-highlighting recolours the typed words: back to the line's start, a word,
		// right over what stays, the next word, right to the end.
		{"redrawn in colour", "s\bsleep 1; echo zz\x1b[16D\x1b[32ms\x1b[32ml\x1b[32me\x1b[32me\x1b[32mp\x1b[39m\x1b[4C\x1b[32me\x1b[32mc\x1b[32mh\x1b[32mo\x1b[39m\x1b[3C\r\n", []string{"sleep 1; echo zz"}},
		{"cursor left, overwrite", "abcdef\x1b[3DXY\n", []string{"abcXYf"}},
		{"cursor left past the start", "ab\x1b[9DX\n", []string{"Xb"}},
		{"cursor left, then past the end", "ab\x1b[DX\x1b[2Ccd\n", []string{"aXcd"}},
		{"cursor left, erase to the end", "abcdef\x1b[4D\x1b[Kx\n", []string{"abx"}},
		{"cursor left, backspace moves", "abc\x1b[1D\bX\n", []string{"aXc"}},
		{"cursor left over multibyte", "a€b\x1b[2D¢\n", []string{"a¢b"}},
		{"cursor left, cr restarts", "abc\x1b[2D\rxy\n", []string{"xy"}},
		{"invalid utf8", "a\xffb\xe2\x82\n", []string{"a\uFFFDb\uFFFD\uFFFD"}},
		{"utf8 kept", "héllo €😀\n", []string{"héllo €😀"}},
		{"high byte after esc", "\x1b\xc3\xa9\n", []string{"é"}},
		{"only escapes", "\x1b[H\x1b[2J", nil},
		{"unterminated osc swallows", "\x1b]0;abc\ndef", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Clean([]byte(tt.in))
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
			}
			// Byte-by-byte feeding gives the same result.
			var f Filter
			for i := 0; i < len(tt.in); i++ {
				f.Write([]byte{tt.in[i]})
			}
			f.Flush()
			got2 := f.Lines()
			if p := f.Partial(); p != "" {
				got2 = append(got2, p)
			}
			if !reflect.DeepEqual(got2, tt.want) {
				t.Fatalf("byte by byte %q = %q, want %q", tt.in, got2, tt.want)
			}
		})
	}
}

func TestFilterLinesPartial(t *testing.T) {
	var f Filter
	f.Write([]byte("one\ntw"))
	if l := f.Lines(); !reflect.DeepEqual(l, []string{"one"}) {
		t.Fatalf("Lines = %q", l)
	}
	if p := f.Partial(); p != "tw" {
		t.Fatalf("Partial = %q", p)
	}
	f.Write([]byte("o\xe2\x82"))
	if p := f.Partial(); p != "two" {
		t.Fatalf("Partial with held bytes = %q", p)
	}
	f.Write([]byte("\xac\n"))
	if l := f.Lines(); !reflect.DeepEqual(l, []string{"two€"}) {
		t.Fatalf("Lines = %q", l)
	}
	if l := f.Lines(); l != nil {
		t.Fatalf("Lines again = %q", l)
	}
}

func TestFilterMaxLine(t *testing.T) {
	f := Filter{MaxLine: 10}
	f.Write([]byte(strings.Repeat("a", 25) + "0123456789\n"))
	if l := f.Lines(); !reflect.DeepEqual(l, []string{"0123456789"}) {
		t.Fatalf("Lines = %q", l)
	}
	if f.Truncated() != 25 {
		t.Fatalf("Truncated = %d", f.Truncated())
	}
	// The cut lands on a character boundary.
	f = Filter{MaxLine: 4}
	f.Write([]byte("xx€€\n"))
	l := f.Lines()
	if len(l) != 1 || l[0] != "€" {
		t.Fatalf("Lines = %q", l)
	}
	// Long lines written in many small pieces stay bounded in memory.
	f = Filter{MaxLine: 100}
	for i := 0; i < 10000; i++ {
		f.Write([]byte("abcdefgh"))
	}
	if len(f.cur) > 200 {
		t.Fatalf("current line grew to %d bytes", len(f.cur))
	}
	if p := f.Partial(); len(p) != 100 {
		t.Fatalf("Partial length %d", len(p))
	}
}

// checkLine reports what is wrong with a filtered line, or "".
func checkLine(line string, maxLine int) string {
	if !utf8.ValidString(line) {
		return "invalid UTF-8"
	}
	if len(line) > maxLine {
		return "longer than MaxLine"
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		if (c < 0x20 && c != '\t') || c == 0x7f {
			return "control byte"
		}
	}
	return ""
}

func FuzzFilter(f *testing.F) {
	seeds := []string{
		"plain\n", "a\r\nb\rc\bd\n", "\x1b[1;31mred\x1b[0m", "\x1b]0;t\x07x", "\x1bPq\x1b\\y",
		"\xe2\x82\xac\xf0\x9f\x98", "\x1b[2K\r\x1b[K", "caf\xe9\xff", "\x1b(B\x1b7\x1b8", "\x1b[60C", "\x1b[999999C",
	}
	for _, s := range seeds {
		f.Add([]byte(s), uint16(3), uint8(8))
	}
	f.Fuzz(func(t *testing.T, data []byte, split uint16, maxLine uint8) {
		ml := int(maxLine)%64 + 4
		whole := Filter{MaxLine: ml}
		whole.Write(data)
		whole.Flush()
		wl, wp := whole.Lines(), whole.Partial()
		for _, l := range append(wl, wp) {
			if why := checkLine(l, ml); why != "" {
				t.Fatalf("line %q: %s", l, why)
			}
		}
		// Feeding in two pieces gives the same lines (the cap may cut at
		// different moments when backspaces follow a cut, so skip then).
		cut := int(split) % (len(data) + 1)
		parts := Filter{MaxLine: ml}
		parts.Write(data[:cut])
		pl := parts.Lines()
		parts.Write(data[cut:])
		parts.Flush()
		pl = append(pl, parts.Lines()...)
		pp := parts.Partial()
		if whole.Truncated() == 0 && parts.Truncated() == 0 {
			if !reflect.DeepEqual(pl, wl) || pp != wp {
				t.Fatalf("split at %d: %q + %q, whole %q + %q", cut, pl, pp, wl, wp)
			}
		}
		for _, l := range Clean(data) {
			if strings.ContainsAny(l, "\x1b\r\n") {
				t.Fatalf("Clean line %q has ESC, CR or LF", l)
			}
		}
		// KeepLast returns the tail of the same lines, and counts the rest.
		keep := int(split)%5 + 1
		tail := Filter{MaxLine: ml, KeepLast: keep}
		tail.Write(data)
		tail.Flush()
		tl := tail.Lines()
		if want := wl[max(0, len(wl)-keep):]; !reflect.DeepEqual(tl, want) && len(want) > 0 || tail.Dropped()+len(tl) != len(wl) || tail.Partial() != wp {
			t.Fatalf("KeepLast %d: %q (dropped %d), want %q of %d", keep, tl, tail.Dropped(), want, len(wl))
		}
	})
}

// TestFilterKeepLast: with KeepLast, a long output holds only its newest lines, and the lines
// returned are those a whole filter returns last.
func TestFilterKeepLast(t *testing.T) {
	var in bytes.Buffer
	for i := 1; i <= 100000; i++ {
		fmt.Fprintf(&in, "%d\r\n", i)
	}
	f := Filter{KeepLast: 200}
	for b := in.Bytes(); len(b) > 0; {
		n := min(len(b), 4093)
		f.Write(b[:n])
		b = b[n:]
		if len(f.ends) > 2*200+64 {
			t.Fatalf("%d lines held", len(f.ends))
		}
	}
	lines := f.Lines()
	if len(lines) != 200 || lines[0] != "99801" || lines[199] != "100000" || f.Dropped() != 99800 {
		t.Fatalf("%d lines %q..%q, dropped %d", len(lines), lines[0], lines[len(lines)-1], f.Dropped())
	}
}

func benchInput() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 1<<20; i++ {
		b.WriteString("\x1b[32mok\x1b[0m   build step ")
		b.WriteString(strings.Repeat("x", i%60))
		b.WriteString(" héllo €\r\n")
		if i%10 == 0 {
			b.WriteString("progress 10%\rprogress 90%\r\n")
		}
	}
	return b.Bytes()
}

func BenchmarkFilter(b *testing.B) {
	in := benchInput()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	var f Filter
	for b.Loop() {
		for off := 0; off < len(in); off += 4096 {
			f.Write(in[off:min(off+4096, len(in))])
			f.Lines()
		}
	}
}

func BenchmarkFilterPlain(b *testing.B) {
	in := bytes.Repeat([]byte("plain ascii output line of moderate length\n"), 1<<14)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	var f Filter
	for b.Loop() {
		for off := 0; off < len(in); off += 4096 {
			f.Write(in[off:min(off+4096, len(in))])
			f.Lines()
		}
	}
}

func TestTailBytes(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"abcdef", 3, "def"},
		{"aé", 1, ""},    // the last byte alone is half a character
		{"xéy", 3, "éy"}, // cut on a character boundary
		{"", 0, ""},
	} {
		if got := TailBytes(tt.in, tt.n); got != tt.want {
			t.Errorf("TailBytes(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestFilterSkipAlternate(t *testing.T) {
	in := "before\r\n\x1b[?1049h\x1b[H\x1b[2Jfull screen\r\ntext\x1b[?1049lafter\r\n"
	f := Filter{SkipAlternate: true}
	f.Write([]byte(in))
	if got := fmt.Sprint(f.Lines()); got != "[before after]" {
		t.Errorf("SkipAlternate: %s", got)
	}
	if got := fmt.Sprint(Clean([]byte(in))); !strings.Contains(got, "full screen") {
		t.Errorf("without it the alternate screen's text stays: %s", got)
	}
}
