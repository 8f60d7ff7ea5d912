package tmux

import (
	"strings"
	"testing"
)

func TestParseRow(t *testing.T) {
	fields := []field{{name: "a"}, {name: "t", text: true}, {name: "b"}}
	tests := []struct {
		line string
		want row
		bad  bool
	}{
		{line: "1" + sep + "3" + sep + "abc" + sep + "2", want: row{"a": "1", "t": "abc", "b": "2"}},
		{line: "1" + sep + "3" + sep + sep + sep + "2", want: row{"a": "1", "t": sep, "b": "2"}},
		{line: "1" + sep + "0" + sep + sep + "2", want: row{"a": "1", "t": "", "b": "2"}},
		// The value changed between its length and its printing ("bash" then "sleep"):
		// no value holds a separator, so the line splits on them.
		{line: "1" + sep + "4" + sep + "sleep" + sep + "2", want: row{"a": "1", "t": "sleep", "b": "2"}},
		{line: "1" + sep + "9" + sep + "abc" + sep + "2", want: row{"a": "1", "t": "abc", "b": "2"}},
		// A wrong length and a value holding a separator: nothing to go by.
		{line: "1" + sep + "9" + sep + "a" + sep + "c" + sep + "2", bad: true},
		{line: "1", bad: true},
		{line: "1" + sep + "abc" + sep + "2", bad: true},
	}
	for _, tt := range tests {
		got, err := parseRow(fields, tt.line)
		if tt.bad {
			if err == nil {
				t.Errorf("parseRow(%q) = %v, want error", tt.line, got)
			}
			continue
		}
		if err != nil {
			t.Fatalf("parseRow(%q): %v", tt.line, err)
		}
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("parseRow(%q)[%s] = %q, want %q", tt.line, k, got[k], v)
			}
		}
	}
}

func TestFormat(t *testing.T) {
	f := format([]field{{name: "a"}, {name: "t", text: true}})
	if want := "#{a}" + sep + "#{n:t}" + sep + "#{t}"; f != want {
		t.Fatalf("format = %q, want %q", f, want)
	}
}

func FuzzParseRow(f *testing.F) {
	fields := []field{{name: "a"}, {name: "t", text: true}, {name: "b"}, {name: "u", text: true}}
	f.Add("1" + sep + "3" + sep + "abc" + sep + "2" + sep + "0" + sep)
	f.Add(strings.Repeat(sep, 5))
	f.Fuzz(func(t *testing.T, line string) {
		r, err := parseRow(fields, line)
		if err == nil && len(r) != len(fields) {
			t.Fatalf("parsed %d fields", len(r))
		}
	})
}
