package server

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

func TestEchoModel(t *testing.T) {
	k := paneKey{Daemon: tmux.Identity{PID: 1}, Pane: "%1"}
	t0 := time.Unix(1000, 0)
	txt := func(s string) echoInput { return echoInput{text: s} }
	key := func(s string) echoInput { return echoInput{key: s} }
	cases := []struct {
		name string
		in   [][]echoInput // one slice per call
		want []string      // echoes, any order
	}{
		{"text only", [][]echoInput{{txt("echo MARKER")}}, []string{"echo MARKER"}},
		{"text and enter", [][]echoInput{{txt("echo MARKER"), key("Enter")}}, []string{"echo MARKER"}},
		{"fragments join", [][]echoInput{{txt("ech")}, {txt("o MARKER")}}, []string{"ech", "o MARKER", "echo MARKER"}},
		{"backspace", [][]echoInput{{txt("lsx"), key("BSpace"), txt(" -l")}}, []string{"lsx", "-l", "ls -l"}},
		{"DEL in text", [][]echoInput{{txt("lsx\x7f -l")}}, []string{"lsx\x7f -l", "ls -l"}},
		{"C-c", [][]echoInput{{txt("sleep 100")}, {key("C-c")}}, []string{"sleep 100", "sleep 100^C"}},
		{"C-u clears", [][]echoInput{{txt("rm -rf x"), key("C-u"), txt("ls")}}, []string{"rm -rf x", "ls"}},
		{"navigation clears", [][]echoInput{{txt("abc"), key("Left"), txt("d")}}, []string{"abc", "d"}},
		{"multi-line text", [][]echoInput{{txt("a=1\nb=2\nc")}}, []string{"a=1", "b=2", "c"}},
		{"space key", [][]echoInput{{txt("git"), key("Space"), txt("status")}}, []string{"git", "status", "git status"}},
		{"leading space", [][]echoInput{{txt(" echo hi"), key("Enter")}}, []string{"echo hi"}},
		{"tab completion clears", [][]echoInput{{txt("cd /us\tlocal")}}, []string{"cd /us", "local"}},
	}
	for _, tc := range cases {
		var e echoStore
		for i, call := range tc.in {
			e.typed(k, call, t0.Add(time.Duration(i)*time.Millisecond))
		}
		got := e.echoes(k, t0.Add(time.Second)).all
		slices.Sort(got)
		got = slices.Compact(got)
		want := slices.Clone(tc.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: echoes = %q, want %q", tc.name, got, want)
		}
	}
}

func TestEchoExpiry(t *testing.T) {
	var e echoStore
	k := paneKey{Pane: "%1"}
	t0 := time.Unix(1000, 0)
	e.typed(k, []echoInput{{text: "old"}, {key: "Enter"}}, t0)
	e.typed(k, []echoInput{{text: "new"}}, t0.Add(8*time.Second))
	got := e.echoes(k, t0.Add(12*time.Second))
	if !slices.Equal(got.all, []string{"new"}) || got.pending != "new" {
		t.Errorf("after 12 s: %+v, want only new, pending", got)
	}
	if got := e.echoes(k, t0.Add(30*time.Second)); !got.empty() {
		t.Errorf("after 30 s: %+v, want none", got)
	}
	if got := e.echoes(paneKey{Pane: "%2"}, t0); !got.empty() {
		t.Errorf("other pane: %+v", got)
	}
	// Another daemon's pane of the same id is another pane.
	if got := e.echoes(paneKey{Daemon: tmux.Identity{PID: 9}, Pane: "%1"}, t0.Add(9*time.Second)); !got.empty() {
		t.Errorf("other daemon: %+v", got)
	}
	// Submitted: no longer pending.
	var e2 echoStore
	e2.typed(k, []echoInput{{text: "new"}}, t0)
	e2.typed(k, []echoInput{{key: "Enter"}}, t0.Add(time.Second))
	if got := e2.echoes(k, t0.Add(2*time.Second)); got.pending != "" || !slices.Contains(got.all, "new") {
		t.Errorf("after Enter: %+v", got)
	}
}

func TestEchoBounded(t *testing.T) {
	var e echoStore
	k := paneKey{Pane: "%1"}
	t0 := time.Unix(1000, 0)
	for i := range 50 {
		e.typed(k, []echoInput{{text: strings.Repeat("x", i+1)}, {key: "Enter"}}, t0)
	}
	e.typed(k, []echoInput{{text: strings.Repeat("y", 10000)}}, t0)
	got := e.echoes(k, t0).all
	if len(got) > echoMax+1 {
		t.Errorf("%d echoes kept", len(got))
	}
	for _, s := range got {
		if len(s) > echoMaxLen {
			t.Errorf("echo of %d bytes kept", len(s))
		}
	}
	for i := range echoPanes + 10 {
		e.typed(paneKey{Pane: "%" + strings.Repeat("9", i%5) + string(rune('a'+i%26)) + strings.Repeat("z", i/26)}, []echoInput{{text: "x"}}, t0)
	}
	if n := len(e.panes); n > echoPanes {
		t.Errorf("%d panes kept", n)
	}
}

func TestStripEcho(t *testing.T) {
	const long = "echo abcdefghijabcdefghijabcdefghij LONGMARK"
	cases := []struct {
		line    string
		echoes  []string
		pending string
		partial bool
		want    string
	}{
		{"$ echo MARKER", []string{"echo MARKER"}, "", false, "$ "},
		{"$ echo MARKER   ", []string{"echo MARKER"}, "", false, "$ "},
		{"MARKER", []string{"echo MARKER"}, "", false, "MARKER"},
		{"echo MARKER", []string{"echo MARKER"}, "", false, ""},
		{"o MARKER", []string{"echo MARKER", "o MARKER"}, "", true, ""},
		{"make: Nothing to be done", []string{"make"}, "", false, "make: Nothing to be done"},
		{"xecho MARKER", []string{"echo MARKER"}, "", false, "xecho MARKER"},
		{"$ echo MAR", []string{"echo MARKER"}, "", true, "$ "},
		{"$ echo MAR", []string{"echo MARKER"}, "", false, "$ echo MAR"},
		{"$ echo MAR", []string{"echo MARKER"}, "echo MARKER", false, "$ "},
		{"$ sleep 100^C", []string{"sleep 100", "sleep 100^C"}, "", false, "$ "},
		{"$ a; echo b", []string{"echo b", "a; echo b"}, "", false, "$ "},
		{"", []string{"x"}, "", false, ""},
		{"result DONE", nil, "", false, "result DONE"},
		{"$ é", []string{"é"}, "", false, "$ "},
		// The last row of a wrapped (zsh) or scrolled (mksh) long line: cut inside a word.
		{"defghijabcdefghij LONGMARK", []string{long}, "", false, ""},
		// The output of that echo is cut at a word boundary: it stays.
		{"abcdefghijabcdefghijabcdefghij LONGMARK", []string{long}, "", false, "abcdefghijabcdefghijabcdefghij LONGMARK"},
		// While pending, any piece of the line is echo (fish draws rows of its own).
		{"abcdefghijabcdefghij ", []string{long}, long, false, ""},
		{"LONGMARK", []string{long}, long, false, ""},
		{"LONGMARK", []string{long}, "", false, "LONGMARK"},
		{"other output", []string{long}, long, false, "other output"},
	}
	for _, tc := range cases {
		es := echoSet{all: slices.Clone(tc.echoes), pending: tc.pending}
		sortByLenDesc(es.all)
		if got := stripEcho(tc.line, es, tc.partial); got != tc.want {
			t.Errorf("stripEcho(%q, %q, pending %q, %v) = %q, want %q", tc.line, tc.echoes, tc.pending, tc.partial, got, tc.want)
		}
	}
}

func FuzzStripEcho(f *testing.F) {
	f.Add("$ echo MARKER", "echo MARKER", true)
	f.Add("ééé", "é", false)
	f.Fuzz(func(t *testing.T, line, echo string, partial bool) {
		got := stripEcho(line, echoSet{all: []string{echo}, pending: echo}, partial)
		if !strings.HasPrefix(line, got) {
			t.Fatalf("stripEcho(%q, %q) = %q: not a prefix of the line", line, echo, got)
		}
	})
}
