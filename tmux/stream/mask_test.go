package stream

import "testing"

func TestMaskText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{ \\. 'x'; }\r\n", "           \r\n"},
		{"ab\x1b[1Acd\x1b[Jef", "  \x1b[1A  \x1b[J  "},
		{"a\x1b]6973;id;S\ab", " \x1b]6973;id;S\a "},
		{"\x1b7x\x1b8", "\x1b7 \x1b8"},
		{"é!", "  \x00"},
	} {
		b := []byte(tc.in)
		maskText(b)
		if string(b) != tc.want {
			t.Errorf("maskText(%q) = %q, want %q", tc.in, b, tc.want)
		}
	}
}
