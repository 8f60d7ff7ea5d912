package keys

import (
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in      string
		literal bool
		keys    []string // nil: text
		mixed   []Part
		text    string
		refuse  string // substring of the refusal
	}{
		{in: "C-c", keys: []string{"C-c"}},
		{in: "c-c", keys: []string{"C-c"}},
		{in: "^C", keys: []string{"C-c"}},
		{in: "^[", keys: []string{"C-["}},
		{in: "Enter", keys: []string{"Enter"}},
		{in: "enter", keys: []string{"Enter"}},
		{in: "ESCAPE", keys: []string{"Escape"}},
		{in: "BTab", keys: []string{"BTab"}},
		{in: "F12", keys: []string{"F12"}},
		{in: "KPEnter", keys: []string{"KPEnter"}},
		{in: "PageDown", keys: []string{"PageDown"}},
		{in: "pgdn", keys: []string{"PgDn"}},
		{in: "C-M-x", keys: []string{"C-M-x"}},
		{in: "M-C-x", keys: []string{"C-M-x"}},
		{in: "S-Up", keys: []string{"S-Up"}},
		{in: "C-Space", keys: []string{"C-Space"}},
		{in: "Up Up Enter", keys: []string{"Up", "Up", "Enter"}},
		{in: "  C-c  ", keys: []string{"C-c"}},
		{in: "C-x C-s", keys: []string{"C-x", "C-s"}},
		{in: "q", text: "q"},
		{in: "a b", text: "a b"},
		{in: "ls -la", text: "ls -la"},
		{in: "echo enter", text: "echo enter"},
		{in: "docker compose up", text: "docker compose up"},
		{in: "echo Up to date", text: "echo Up to date"},
		{in: `git commit -m "Fix Escape"`, text: `git commit -m "Fix Escape"`},
		{in: "Escape :q! Enter", mixed: []Part{{Key: "Escape"}, {Text: ":q!"}, {Key: "Enter"}}},
		{in: "Escape :wq", mixed: []Part{{Key: "Escape"}, {Text: ":wq"}}},
		{in: "C-c echo  two  words", mixed: []Part{{Key: "C-c"}, {Text: "echo  two  words"}}},
		{in: "echo hi Enter", mixed: []Part{{Text: "echo hi"}, {Key: "Enter"}}},
		{in: "Escape i hello Escape", mixed: []Part{{Key: "Escape"}, {Text: "i hello"}, {Key: "Escape"}}},
		{in: "M-x save Tab Enter", mixed: []Part{{Key: "M-x"}, {Text: "save"}, {Key: "Tab"}, {Key: "Enter"}}},
		{in: "^C ls", mixed: []Part{{Key: "C-c"}, {Text: "ls"}}},
		{in: "Escape i hit return Escape", mixed: []Part{{Key: "Escape"}, {Text: "i hit return"}, {Key: "Escape"}}},
		{in: "Escape :wq Return", refuse: "Enter"},
		{in: "Esc :wq Enter", refuse: "Escape"},
		{in: "^foo", text: "^foo"},
		{in: "c-style", text: "c-style"},
		{in: "opt-in", text: "opt-in"},
		{in: "press Ctrl-C to stop", text: "press Ctrl-C to stop"},
		{in: "", text: ""},
		{in: "C-c", literal: true, text: "C-c"},
		{in: "Shift+Tab", literal: true, text: "Shift+Tab"},
		{in: "Shift+Tab", refuse: "BTab"},
		{in: "shift-tab", refuse: "BTab"},
		{in: "S-Tab", refuse: "BTab"},
		{in: "C-", refuse: `"C-"`},
		{in: "M-", refuse: `"M-"`},
		{in: "Ctrl-C", refuse: "C-c"},
		{in: "ctrl+c", refuse: "C-c"},
		{in: "Ctrl+Shift+Up", refuse: "C-S-Up"},
		{in: "Alt+F4", refuse: "M-F4"},
		{in: "C+c", refuse: "C-c"},
		{in: "<Enter>", refuse: "Enter"},
		{in: "<C-c>", refuse: "C-c"},
		{in: "[Esc]", refuse: "Escape"},
		{in: "Esc", refuse: "Escape"},
		{in: "Return", refuse: "Enter"},
		{in: "Backspace", refuse: "BSpace"},
		{in: "F13", refuse: "F1 to F12"},
		{in: "S-a", refuse: `"S-a"`},
		{in: "C-é", refuse: `"C-é"`},
		{in: "C-c Shift+Tab", refuse: "BTab"},
	}
	for _, tc := range cases {
		p, err := Parse(tc.in, tc.literal)
		if tc.refuse != "" {
			if err == nil {
				t.Errorf("Parse(%q): want a refusal, got %+v", tc.in, p)
				continue
			}
			if msg := err.Error(); !strings.Contains(msg, tc.refuse) || !strings.Contains(msg, "Valid key names") {
				t.Errorf("Parse(%q): refusal %q lacks %q or the valid forms", tc.in, msg, tc.refuse)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if tc.keys != nil {
			if !p.IsKeys() || !slices.Equal(p.Keys(), tc.keys) {
				t.Errorf("Parse(%q) keys = %q, want %q", tc.in, p.Keys(), tc.keys)
			}
			continue
		}
		if tc.mixed != nil {
			if !slices.Equal(p.Parts, tc.mixed) {
				t.Errorf("Parse(%q) = %+v, want %+v", tc.in, p.Parts, tc.mixed)
			}
			continue
		}
		if len(p.Parts) > 1 || p.IsKeys() || p.Text() != tc.text {
			t.Errorf("Parse(%q) = %+v, want text %q", tc.in, p, tc.text)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"C-c", "Shift+Tab", "<Enter>", "^C", "a b", "C-", "S-Tab", "ctrl+shift+x", "\x00", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s, false)
		if err == nil && len(p.Parts) == 1 && p.Parts[0].Text != "" && p.Parts[0].Text != s {
			t.Fatalf("text plan %q does not keep the input %q", p.Text(), s)
		}
		for _, pt := range p.Parts {
			if pt.Key == "" && pt.Text == "" {
				t.Fatalf("empty part in %+v of %q", p, s)
			}
			if pt.Text != "" && !strings.Contains(s, pt.Text) {
				t.Fatalf("text part %q is not in %q", pt.Text, s)
			}
		}
		for _, k := range p.Keys() {
			if ok, _ := IsName(k); !ok {
				t.Fatalf("planned key %q of %q is not a key name", k, s)
			}
		}
	})
}

func TestLiteral(t *testing.T) {
	got := Literal("%1", "a\nb\rc")
	want := [][]string{
		{"send-keys", "-t", "%1", "-l", "--", "a"}, {"send-keys", "-t", "%1", "C-j"},
		{"send-keys", "-t", "%1", "-l", "--", "b"}, {"send-keys", "-t", "%1", "C-m"},
		{"send-keys", "-t", "%1", "-l", "--", "c"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("Literal = %q, want %q", got, want)
	}
	if got := Literal("%1", "\n"); !slices.EqualFunc(got, [][]string{{"send-keys", "-t", "%1", "C-j"}}, slices.Equal) {
		t.Errorf("Literal(LF) = %q", got)
	}
	if got := Literal("%1", ""); got != nil {
		t.Errorf("Literal(\"\") = %q", got)
	}
}
