package tmux

import (
	"reflect"
	"strings"
	"testing"
)

func TestOptionFlags(t *testing.T) {
	for _, tc := range []struct {
		scope  string
		global bool
		want   string
	}{
		{"", false, ""}, {"session", false, ""}, {"server", false, "-s"}, {"window", false, "-w"}, {"pane", false, "-p"},
		{"", true, "-g"}, {"session", true, "-g"}, {"server", true, "-g -s"}, {"window", true, "-g -w"}, {"pane", true, "-g -w"},
	} {
		if got := strings.Join(optionFlags(tc.scope, tc.global), " "); got != tc.want {
			t.Errorf("optionFlags(%q, %v) = %q, want %q", tc.scope, tc.global, got, tc.want)
		}
	}
}

func TestValidEnvName(t *testing.T) {
	for name, want := range map[string]bool{"PATH": true, "_x1": true, "a": true, "": false, "1A": false, "A-B": false, "É": false, "A B": false, "A\n": false} {
		if got := ValidEnvName(name); got != want {
			t.Errorf("ValidEnvName(%q) = %v", name, got)
		}
	}
}

func TestParseEnvironment(t *testing.T) {
	// A line that is no variable ("lines", "", "=x") continues the value before it.
	got := parseEnvironment([]string{"A=1", "-GONE", "B=two", "lines", "", "C=", "=x"})
	want := map[string]any{"A": "1", "GONE": true, "B": "two\nlines\n", "C": "\n=x"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseEnvironment = %#v, want %#v", got, want)
	}
}

func TestParseHooks(t *testing.T) {
	hooks := parseHooks([][]string{{"pane-died[1] run b", "after-new-window", "pane-died[0] run a"}, {"client-attached x"}})
	var got []string
	for _, h := range hooks {
		idx := "-"
		if h.Index != nil {
			idx = string(rune('0' + *h.Index))
		}
		got = append(got, h.HookName+"/"+idx+"/"+h.Command)
	}
	if want := "client-attached/-/x pane-died/0/run a pane-died/1/run b"; strings.Join(got, " ") != want {
		t.Errorf("parseHooks = %q, want %q", got, want)
	}
	names := hookNames([][]string{{"pane-died[0] run a", "after-new-window"}, {"window-linked"}})
	if !reflect.DeepEqual(names, map[string]bool{"pane-died": true, "after-new-window": true, "window-linked": true}) {
		t.Errorf("HookNames = %v", names)
	}
}
