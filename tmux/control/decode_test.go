package control

import (
	"bytes"
	"fmt"
	"testing"
)

func TestDecodeOutput(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain text", "plain text"},
		{`a\015\012b`, "a\r\nb"},
		{`\134`, `\`},
		{`\134\134`, `\\`},
		{`\000\001\037`, "\x00\x01\x1f"},
		{`\377`, "\xff"},
		{"é日本\xff\xfe", "é日本\xff\xfe"}, // raw high bytes pass
		{`\033[1mbold`, "\x1b[1mbold"},
		{`\8`, `\8`},
		{`\800`, `\800`},
		{`\400`, `\400`}, // does not fit a byte: literal
		{`\01`, `\01`},   // too short at the end
		{`\0`, `\0`},
		{`\`, `\`},
		{`x\`, `x\`},
		{`\\012`, "\\\n"},
		{`\0123`, "\n3"},
		{`\01a`, `\01a`},
		{`\\\\`, `\\\\`},
	}
	for _, tt := range tests {
		got := DecodeOutput(nil, []byte(tt.in))
		if string(got) != tt.want {
			t.Errorf("DecodeOutput(%q) = %q, want %q", tt.in, got, tt.want)
		}
		// Appends after existing content.
		got = DecodeOutput([]byte("pre"), []byte(tt.in))
		if string(got) != "pre"+tt.want {
			t.Errorf("DecodeOutput(pre, %q) = %q", tt.in, got)
		}
	}
}

// encodeOutput is tmux's encoder (control.c): bytes < 0x20 and \ as \ooo.
func encodeOutput(b []byte) []byte {
	var out []byte
	for _, c := range b {
		if c < ' ' || c == '\\' {
			out = fmt.Appendf(out, "\\%03o", c)
		} else {
			out = append(out, c)
		}
	}
	return out
}

func TestDecodeOutputAllBytes(t *testing.T) {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	if got := DecodeOutput(nil, encodeOutput(all)); !bytes.Equal(got, all) {
		t.Fatalf("round trip of all bytes = %q", got)
	}
}

func FuzzDecodeOutput(f *testing.F) {
	f.Add([]byte(`a\015\012\134b`))
	f.Add([]byte(`\8\01\`))
	f.Add([]byte("\xff\\377"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got := DecodeOutput(nil, data)
		if len(got) > len(data) {
			t.Fatalf("decoded %d bytes from %d", len(got), len(data))
		}
		// What tmux encodes decodes back exactly.
		if back := DecodeOutput(nil, encodeOutput(data)); !bytes.Equal(back, data) {
			t.Fatalf("round trip %q -> %q", data, back)
		}
		// Input with no backslash is unchanged.
		if bytes.IndexByte(data, '\\') < 0 && !bytes.Equal(got, data) {
			t.Fatalf("changed %q -> %q", data, got)
		}
	})
}

func BenchmarkDecodeOutput(b *testing.B) {
	// Typical terminal output: mostly text, CR LF and some escape sequences.
	line := []byte("drwxr-xr-x  2 user group  4096 Nov 30 02:21 \033[01;34mdirectory-name\033[0m  ünïcödé\r\n")
	var raw []byte
	for len(raw) < 64<<10 {
		raw = append(raw, line...)
	}
	enc := encodeOutput(raw)
	for _, bc := range []struct {
		name string
		data []byte
	}{
		{"text", enc},
		{"binary", encodeOutput(bytes.Repeat([]byte{0, 1, '\\', 'a'}, 16<<10))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.data)))
			dst := make([]byte, 0, len(bc.data))
			for b.Loop() {
				dst = DecodeOutput(dst[:0], bc.data)
			}
		})
	}
}
