package server

import (
	"strings"
	"testing"
)

func TestTailLines(t *testing.T) {
	n := func(v int) *int { return &v }
	tests := []struct {
		in   string
		max  *int
		want string
		cut  int
	}{
		{"a\nb\nc\n", n(2), "b\nc\n", 1},
		{"a\nb\nc", n(2), "b\nc", 1},
		{"a\nb\nc\n", n(3), "a\nb\nc\n", 0},
		{"a\nb\nc\n", nil, "a\nb\nc\n", 0},
		{"", n(1), "", 0},
		{"\n\n\n", n(1), "\n", 2},
		{"only", n(1), "only", 0},
	}
	for _, tt := range tests {
		got, cut := tailText(tt.in, tt.max)
		if got != tt.want || cut != tt.cut {
			t.Errorf("tailText(%q, %v) = %q, %d; want %q, %d", tt.in, tt.max, got, cut, tt.want, tt.cut)
		}
	}
}

func FuzzTailLines(f *testing.F) {
	f.Add("a\nb\nc\n", 2)
	f.Add("", 1)
	f.Add("\n\n", 1)
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < 1 {
			max = 1
		}
		got, cut := tailText(s, &max)
		if !strings.HasSuffix(s, got) {
			t.Fatalf("not a tail: %q of %q", got, s)
		}
		if lines := strings.Count(strings.TrimSuffix(got, "\n"), "\n") + 1; got != "" && lines > max {
			t.Fatalf("%d lines kept, max %d", lines, max)
		}
		if cut != strings.Count(s[:len(s)-len(got)], "\n") {
			t.Fatalf("cut %d lines, but %d line ends were dropped", cut, strings.Count(s[:len(s)-len(got)], "\n"))
		}
	})
}

func TestBufferNames(t *testing.T) {
	for name, ok := range map[string]bool{
		"libtmux_mcp_0123456789abcdef0123456789abcdef_buf":     true,
		"libtmux_mcp_0123456789abcdef0123456789abcdef_a.b-c_d": true,
		"libtmux_mcp_0123456789abcdef0123456789abcdef_":        false,
		"libtmux_mcp_0123456789ABCDEF0123456789abcdef_buf":     false,
		"libtmux_mcp_0123456789abcdef0123456789abcde_buf":      false,
		"libtmux_mcp_0123456789abcdef0123456789abcdef_a b":     false,
		"libtmux_mcp_0123456789abcdef0123456789abcdef_x\n":     false,
		"buffer0": false, "": false,
	} {
		if got := checkBufferName(name) == nil; got != ok {
			t.Errorf("checkBufferName(%q) ok = %v, want %v", name, got, ok)
		}
	}
}
