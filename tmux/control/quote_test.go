package control

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "''"},
		{"abc", "'abc'"},
		{"it's", `'it'\''s'`},
		{"'", `''\'''`},
		{"''", `''\'''\'''`},
		{"a b;c", "'a b;c'"},
		{`#{pane_id} $HOME ~ \ {`, `'#{pane_id} $HOME ~ \ {'`},
		{"ünï", "'ünï'"},
		{"a\rb", "'a\rb'"},
	}
	for _, tt := range tests {
		if got := Quote(tt.in); got != tt.want {
			t.Errorf("Quote(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLine(t *testing.T) {
	tests := []struct {
		name    string
		cmds    [][]string
		want    string
		wantErr error
	}{
		{"one", [][]string{{"display-message", "-p", "x"}}, "'display-message' '-p' 'x'", nil},
		{"list", [][]string{{"a"}, {"b", ";"}, {"c", ""}}, "'a' ; 'b' ';' ; 'c' ''", nil},
		{"cr is fine", [][]string{{"set-buffer", "a\rb"}}, "'set-buffer' 'a\rb'", nil},
		{"no commands", nil, "", ErrUnsendable},
		{"empty argv", [][]string{{"a"}, {}}, "", ErrUnsendable},
		{"lf", [][]string{{"set-buffer", "a\nb$\"\\\x01"}}, `'set-buffer' "a\nb\$\"\\\001"`, nil},
		{"nul", [][]string{{"set-buffer", "a\x00b"}}, "", ErrUnsendable},
		{"0xff", [][]string{{"set-buffer", "a\xffb"}}, "", ErrUnsendable},
		{"other invalid utf-8 is fine", [][]string{{"x", "\xfe\xc3"}}, "'x' '\xfe\xc3'", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Line(tt.cmds...)
			if !errors.Is(err, tt.wantErr) || (err != nil) != (tt.wantErr != nil) {
				t.Fatalf("Line() error = %v, want %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Fatalf("Line() = %q, want %q", got, tt.want)
			}
			if err == nil {
				back, ok := splitLine(got)
				if !ok || !slices.EqualFunc(back, tt.cmds, slices.Equal) {
					t.Fatalf("model parse of %q = %q, want %q", got, back, tt.cmds)
				}
			}
		})
	}
}

func TestCheckSupported(t *testing.T) {
	tests := []struct {
		argv []string
		ok   bool
	}{
		{[]string{"display-message", "-p", "x"}, true},
		{[]string{"display", "-p", "x"}, true}, // alias wins over prefix
		{[]string{"if-shell", "true", "x"}, false},
		{[]string{"if", "-F", "1", "x"}, false},
		{[]string{"if-sh", "true", "x"}, false}, // unique prefix
		{[]string{"source", "/dev/null"}, false},
		{[]string{"source-f", "/dev/null"}, false},
		{[]string{"confirm", "x"}, false},
		{[]string{"command-prompt"}, false},
		{[]string{"command-prompt", "-b", "-p", "", ""}, true}, // -b: nothing waits for it
		{[]string{"command-prompt", "-1b", "x"}, true},
		{[]string{"command-prompt", "-p", "-b", "x"}, false}, // -b is the prompt
		{[]string{"command-prompt", "-pb", "x"}, false},
		{[]string{"menu"}, false},
		{[]string{"popup"}, false},
		{[]string{"display-p", "x"}, true}, // ambiguous (display-panes, display-popup): tmux refuses
		{[]string{"display-po", "x"}, false},
		{[]string{"run-shell", "echo"}, true},
		{[]string{"run", "-b", "echo"}, true},
		{[]string{"run", "-C", "display x"}, false},
		{[]string{"run", "-bC", "display x"}, false},
		{[]string{"run", "-t", "%1", "-C", "x"}, false},
		{[]string{"run", "-t%1", "-C", "x"}, false},
		{[]string{"run", "-d", "-C", "x"}, true}, // -C is the value of -d
		{[]string{"run", "--", "-C"}, true},
		{[]string{"run", "echo", "-C"}, true},
		{[]string{""}, true},
		{[]string{"new-command-from-the-future"}, true},
	}
	for _, tt := range tests {
		err := checkSupported([][]string{{"display", "ok"}, tt.argv})
		if (err == nil) != tt.ok {
			t.Errorf("checkSupported(%q) = %v, want ok=%v", tt.argv, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrUnsupported) {
			t.Errorf("checkSupported(%q) = %v, not ErrUnsupported", tt.argv, err)
		}
	}
}

func FuzzLine(f *testing.F) {
	f.Add("display-message", "it's", "; $HOME #{x} ~")
	f.Add("", "'", "\\'")
	f.Add("set-buffer", "a\nb \"$HOME\" \\ \x01", "\n")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		cmds := [][]string{{a, b}, {c}}
		line, err := Line(cmds...)
		if err != nil {
			if !errors.Is(err, ErrUnsendable) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if strings.IndexByte(line, '\n') >= 0 {
			t.Fatalf("Line(%q) = %q holds LF", cmds, line)
		}
		back, ok := splitLine(line)
		if !ok || !slices.EqualFunc(back, cmds, slices.Equal) {
			t.Fatalf("model parse of %q = %q, want %q", line, back, cmds)
		}
	})
}
