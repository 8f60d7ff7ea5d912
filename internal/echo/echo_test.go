package echo

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// key is a pane key as the server's (a pane on one tmux daemon).
type paneKey struct {
	daemon int
	pane   string
}

func TestEchoModel(t *testing.T) {
	k := paneKey{daemon: 1, pane: "%1"}
	t0 := time.Unix(1000, 0)
	txt := func(s string) Input { return Input{Text: s} }
	key := func(s string) Input { return Input{Key: s} }
	cases := []struct {
		name string
		in   [][]Input // one slice per call
		want []string  // echoes, any order
	}{
		{"text only", [][]Input{{txt("echo MARKER")}}, []string{"echo MARKER"}},
		{"text and enter", [][]Input{{txt("echo MARKER"), key("Enter")}}, []string{"echo MARKER"}},
		{"fragments join", [][]Input{{txt("ech")}, {txt("o MARKER")}}, []string{"ech", "o MARKER", "echo MARKER"}},
		{"backspace", [][]Input{{txt("lsx"), key("BSpace"), txt(" -l")}}, []string{"lsx", "-l", "ls -l"}},
		{"DEL in text", [][]Input{{txt("lsx\x7f -l")}}, []string{"lsx\x7f -l", "ls -l"}},
		{"C-c", [][]Input{{txt("sleep 100")}, {key("C-c")}}, []string{"sleep 100", "sleep 100^C"}},
		{"C-u clears", [][]Input{{txt("rm -rf x"), key("C-u"), txt("ls")}}, []string{"rm -rf x", "ls"}},
		{"navigation clears", [][]Input{{txt("abc"), key("Left"), txt("d")}}, []string{"abc", "d"}},
		{"multi-line text", [][]Input{{txt("a=1\nb=2\nc")}}, []string{"a=1", "b=2", "c"}},
		{"space key", [][]Input{{txt("git"), key("Space"), txt("status")}}, []string{"git", "status", "git status"}},
		{"leading space", [][]Input{{txt(" echo hi"), key("Enter")}}, []string{"echo hi"}},
		{"tab completion clears", [][]Input{{txt("cd /us\tlocal")}}, []string{"cd /us", "local"}},
	}
	for _, tc := range cases {
		var e Store[paneKey]
		for i, call := range tc.in {
			e.Typed(k, call, t0.Add(time.Duration(i)*time.Millisecond))
		}
		got := e.Echoes(k, t0.Add(time.Second)).All
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
	var e Store[paneKey]
	k := paneKey{pane: "%1"}
	t0 := time.Unix(1000, 0)
	e.Typed(k, []Input{{Text: "old"}, {Key: "Enter"}}, t0)
	e.Typed(k, []Input{{Text: "new"}}, t0.Add(8*time.Second))
	got := e.Echoes(k, t0.Add(12*time.Second))
	if !slices.Equal(got.All, []string{"new"}) || got.Pending != "new" {
		t.Errorf("after 12 s: %+v, want only new, pending", got)
	}
	if got := e.Echoes(k, t0.Add(30*time.Second)); !got.Empty() {
		t.Errorf("after 30 s: %+v, want none", got)
	}
	if got := e.Echoes(paneKey{pane: "%2"}, t0); !got.Empty() {
		t.Errorf("other pane: %+v", got)
	}
	// Another daemon's pane of the same id is another pane.
	if got := e.Echoes(paneKey{daemon: 9, pane: "%1"}, t0.Add(9*time.Second)); !got.Empty() {
		t.Errorf("other daemon: %+v", got)
	}
	// Submitted: no longer pending.
	var e2 Store[paneKey]
	e2.Typed(k, []Input{{Text: "new"}}, t0)
	e2.Typed(k, []Input{{Key: "Enter"}}, t0.Add(time.Second))
	if got := e2.Echoes(k, t0.Add(2*time.Second)); got.Pending != "" || !slices.Contains(got.All, "new") {
		t.Errorf("after Enter: %+v", got)
	}
}

func TestEchoBounded(t *testing.T) {
	var e Store[paneKey]
	k := paneKey{pane: "%1"}
	t0 := time.Unix(1000, 0)
	for i := range 50 {
		e.Typed(k, []Input{{Text: strings.Repeat("x", i+1)}, {Key: "Enter"}}, t0)
	}
	e.Typed(k, []Input{{Text: strings.Repeat("y", 10000)}}, t0)
	got := e.Echoes(k, t0).All
	if len(got) > maxStrs+1 {
		t.Errorf("%d echoes kept", len(got))
	}
	for _, s := range got {
		if len(s) > maxLen {
			t.Errorf("echo of %d bytes kept", len(s))
		}
	}
	for i := range maxPanes + 10 {
		e.Typed(paneKey{pane: "%" + strings.Repeat("9", i%5) + string(rune('a'+i%26)) + strings.Repeat("z", i/26)}, []Input{{Text: "x"}}, t0)
	}
	if n := len(e.panes); n > maxPanes {
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
		// A row of it fish redrew from a column of its own (a cursor moved right: blanks
		// first), though the line was already entered; at the margin it is output.
		{"                                          LONGMARK", []string{long}, "", false, ""},
		{"LONGMARK", []string{long}, "", false, "LONGMARK"},
		{"   ijabcdefghij LONGMARK", []string{long}, "", false, "   ijabcdefghij LONGMARK"},
		// While pending, any piece of the line is echo (fish draws rows of its own).
		{"abcdefghijabcdefghij ", []string{long}, long, false, ""},
		{"LONGMARK", []string{long}, long, false, ""},
		{"LONGMARK", []string{long}, "", false, "LONGMARK"},
		{"other output", []string{long}, long, false, "other output"},
	}
	for _, tc := range cases {
		es := Set{All: slices.Clone(tc.echoes), Pending: tc.pending}
		sortByLenDesc(es.All)
		if got := Strip(tc.line, es, tc.partial); got != tc.want {
			t.Errorf("Strip(%q, %q, pending %q, %v) = %q, want %q", tc.line, tc.echoes, tc.pending, tc.partial, got, tc.want)
		}
	}
}

func FuzzStripEcho(f *testing.F) {
	f.Add("$ echo MARKER", "echo MARKER", true)
	f.Add("ééé", "é", false)
	f.Fuzz(func(t *testing.T, line, echo string, partial bool) {
		got := Strip(line, Set{All: []string{echo}, Pending: echo}, partial)
		if !strings.HasPrefix(line, got) {
			t.Fatalf("Strip(%q, %q) = %q: not a prefix of the line", line, echo, got)
		}
	})
}
