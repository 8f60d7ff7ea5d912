package tmux

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

func TestParseRow(t *testing.T) {
	fields := []field{{name: "a"}, {name: "t", text: true}, {name: "b"}}
	tests := []struct {
		line string
		want map[string]string
		bad  bool
	}{
		{line: "1" + sep + "3" + sep + "abc" + sep + "2", want: map[string]string{"a": "1", "t": "abc", "b": "2"}},
		{line: "1" + sep + "3" + sep + sep + sep + "2", want: map[string]string{"a": "1", "t": sep, "b": "2"}},
		{line: "1" + sep + "0" + sep + sep + "2", want: map[string]string{"a": "1", "t": "", "b": "2"}},
		// The value changed between its length and its printing ("bash" then "sleep"):
		// no value holds a separator, so the line splits on them.
		{line: "1" + sep + "4" + sep + "sleep" + sep + "2", want: map[string]string{"a": "1", "t": "sleep", "b": "2"}},
		{line: "1" + sep + "9" + sep + "abc" + sep + "2", want: map[string]string{"a": "1", "t": "abc", "b": "2"}},
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
			if got.str(k) != v {
				t.Errorf("parseRow(%q)[%s] = %q, want %q", tt.line, k, got.str(k), v)
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
		if err == nil && len(r.vals) != len(fields) {
			t.Fatalf("parsed %d fields", len(r.vals))
		}
	})
}

// listing is what list-panes -a prints for n panes in the listing format.
func listing(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		v := map[string]string{
			"pane_id": fmt.Sprintf("%%%d", i), "pane_tty": fmt.Sprintf("/dev/pts/%d", i),
			"pane_current_command": "bash", "pane_current_path": "/home/someone/src/project",
			"pane_title": "host.example.org", "window_id": fmt.Sprintf("@%d", i), "session_id": "$0",
			"session_name": "work",
		}
		var b strings.Builder
		for j, f := range paneListFields {
			if j > 0 {
				b.WriteString(sep)
			}
			val, ok := v[f.name]
			if !ok {
				val = "1"
			}
			if f.text {
				b.WriteString(strconv.Itoa(len(val)) + sep)
			}
			b.WriteString(val)
		}
		lines[i] = b.String()
	}
	return lines
}

// BenchmarkParsePanes1000 parses a listing of 1,000 panes (list_panes' records).
func BenchmarkParsePanes1000(b *testing.B) {
	out := [][]string{listing(1000)}
	for b.Loop() {
		snap, err := parseSnapshot(WithPanes, out, paneListFields)
		if err != nil || len(snap.Panes) != 1000 {
			b.Fatal(err)
		}
	}
}

func TestParseListing(t *testing.T) {
	snap, err := parseSnapshot(WithPanes, [][]string{listing(3)}, paneListFields)
	if err != nil {
		t.Fatal(err)
	}
	if p := snap.Panes[2]; p.PaneID != "%2" || p.PaneCurrentCommand != "bash" || p.PaneCurrentPath != "/home/someone/src/project" || p.SessionName != "work" || p.PaneWidth != 1 {
		t.Fatalf("parsed %+v", p)
	}
	// A path holding the separator cannot be split: Snapshot reads it again length-prefixed.
	line := strings.Replace(listing(1)[0], "/home/someone", "/home/some"+sep+"one", 1)
	if _, err := parseRow(paneListFields, line); err == nil {
		t.Fatal("a once field holding the separator was split")
	}
}
