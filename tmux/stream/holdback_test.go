package stream

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

func TestHoldback(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		want   []string // output of each Append
		held   int      // bytes held at the end
	}{
		{"ascii", []string{"ab", "cd"}, []string{"ab", "cd"}, 0},
		{"2-byte split", []string{"a\xc3", "\xa9b"}, []string{"a", "\xc3\xa9b"}, 0},
		{"3-byte split 1+2", []string{"\xe2", "\x82\xac"}, []string{"", "€"}, 0},
		{"3-byte split 2+1", []string{"x\xe2\x82", "\xac"}, []string{"x", "€"}, 0},
		{"4-byte split byte by byte", []string{"\xf0", "\x9f", "\x98", "\x80!"}, []string{"", "", "", "😀!"}, 0},
		{"trailing lead held", []string{"ok\xf0\x9f"}, []string{"ok"}, 2},
		{"latin-1 held one chunk only", []string{"caf\xe9", "!"}, []string{"caf", "\xe9!"}, 0},
		{"latin-1 mid chunk passes", []string{"caf\xe9!"}, []string{"caf\xe9!"}, 0},
		{"C0/C1 lead not held", []string{"\xc0", "\xc1", "\xf5", "\xff"}, []string{"\xc0", "\xc1", "\xf5", "\xff"}, 0},
		{"continuation only", []string{"\x80\x80\x80"}, []string{"\x80\x80\x80"}, 0},
		{"overlong E0 prefix not held", []string{"\xe0\x80"}, []string{"\xe0\x80"}, 0},
		{"surrogate ED prefix not held", []string{"\xed\xa0"}, []string{"\xed\xa0"}, 0},
		{"F4 above max not held", []string{"\xf4\x90"}, []string{"\xf4\x90"}, 0},
		{"held then invalid", []string{"\xe2", "A"}, []string{"", "\xe2A"}, 0},
		{"complete 4-byte at end", []string{"\xf0\x9f\x98\x80"}, []string{"😀"}, 0},
		{"empty chunk keeps held", []string{"\xe2", "", "\x82\xac"}, []string{"", "", "€"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h Holdback
			for i, c := range tt.chunks {
				got := h.Append(nil, []byte(c))
				if string(got) != tt.want[i] {
					t.Fatalf("chunk %d: got %q, want %q", i, got, tt.want[i])
				}
			}
			if h.Len() != tt.held {
				t.Fatalf("held %d, want %d", h.Len(), tt.held)
			}
		})
	}
}

func TestHoldbackFlush(t *testing.T) {
	var h Holdback
	h.Append(nil, []byte("a\xe2\x82"))
	if got := h.Flush(); string(got) != "\xe2\x82" {
		t.Fatalf("Flush = %q", got)
	}
	if h.Len() != 0 || h.Flush() != nil {
		t.Fatal("Flush did not clear")
	}
}

func FuzzHoldback(f *testing.F) {
	f.Add([]byte("héllo wörld €😀"), uint8(3), uint8(7))
	f.Add([]byte("\xe2\x82\xac\xf0\x9f\x98\x80"), uint8(1), uint8(2))
	f.Add([]byte("caf\xe9 \xff\xfe\xc0\xc1"), uint8(4), uint8(5))
	f.Fuzz(func(t *testing.T, data []byte, a, b uint8) {
		// Cut data into chunks of lengths cycling through a and b.
		var h Holdback
		var out bytes.Buffer
		valid := utf8.Valid(data)
		rest := data
		for i := 0; len(rest) > 0; i++ {
			n := int(a)
			if i%2 == 1 {
				n = int(b)
			}
			n = min(max(n%8, 1), len(rest))
			piece := h.Append(nil, rest[:n])
			rest = rest[n:]
			if h.Len() > 3 {
				t.Fatalf("held %d bytes", h.Len())
			}
			if valid && !utf8.Valid(piece) {
				t.Fatalf("valid input produced invalid piece %q", piece)
			}
			out.Write(piece)
		}
		out.Write(h.Flush())
		if !bytes.Equal(out.Bytes(), data) {
			t.Fatalf("bytes changed: %q -> %q", data, out.Bytes())
		}
	})
}
