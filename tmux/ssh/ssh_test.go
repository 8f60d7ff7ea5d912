package ssh

import (
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// loginShells are the shells a remote sshd may run the command line with.
var loginShells = [][]string{{"sh", "-c"}, {"dash", "-c"}, {"bash", "--noprofile", "--norc", "-c"}, {"zsh", "-f", "-c"}, {"mksh", "-c"}, {"ksh", "-c"}, {"fish", "--no-config", "-c"}}

var trickyWords = []string{
	"", "plain", "two words", "it's", `back\slash`, `\\`, `\'`, `'\''`, `\`, `'`, "$HOME", "${HOME}", "$(id)", "`id`",
	"*", "~", "~root", "a;b", "a|b", "a&b", "{a,b}", "#comment", "!!", "%1", "tab\there", "line\nbreak", "trailing\n",
	"héllo ␞ 日本", "\x01\x7f", "-u", "--", "a\"b", "(x)", "<in", ">out", "$", "\\n", "fish (echo x)",
}

// TestQuoteInShells runs a command line of tricky words through every installed shell, as the
// remote sshd does, and checks that the program gets each word back exactly.
func TestQuoteInShells(t *testing.T) {
	for _, sh := range loginShells {
		if _, err := exec.LookPath(sh[0]); err != nil {
			t.Logf("%s is not installed", sh[0])
			continue
		}
		t.Run(sh[0], func(t *testing.T) {
			checkWords(t, sh, trickyWords)
		})
	}
}

func checkWords(t *testing.T, sh []string, words []string) {
	t.Helper()
	printf, err := exec.LookPath("printf")
	if err != nil {
		t.Skip("no printf executable")
	}
	line := CommandLine(append([]string{printf, `%s\0`}, words...))
	cmd := exec.Command(sh[0], append(sh[1:], line)...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent"}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v: %s\nline: %s", sh[0], err, errb.String(), line)
	}
	got := strings.Split(out.String(), "\x00")
	got = got[:len(got)-1]
	if len(words) == 0 {
		// printf with no arguments still prints its format once.
		got = nil
	}
	if !slices.Equal(got, words) {
		t.Errorf("%s: got %q\nwant %q\nline: %s", sh[0], got, words, line)
	}
}

// FuzzQuote checks any word (NUL aside: no argv can hold one) against sh and fish.
func FuzzQuote(f *testing.F) {
	for _, w := range trickyWords {
		f.Add(w)
	}
	var shells [][]string
	for _, sh := range [][]string{{"sh", "-c"}, {"fish", "--no-config", "-c"}} {
		if _, err := exec.LookPath(sh[0]); err == nil {
			shells = append(shells, sh)
		}
	}
	f.Fuzz(func(t *testing.T, w string) {
		if strings.IndexByte(w, 0) >= 0 || len(w) > 4096 {
			return
		}
		for _, sh := range shells {
			checkWords(t, sh, []string{w})
		}
	})
}

func TestArgs(t *testing.T) {
	h := &Host{Name: "b", Destination: "me@build", ConfigFile: "/x/config", ConnectTimeout: 1500 * time.Millisecond}
	defer h.Close()
	args, err := h.Args("tmux", "-L", "it's")
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(args, " ")
	for _, want := range []string{"-F /x/config", "-T", "BatchMode=yes", "ConnectTimeout=2", "ControlMaster=auto", "ControlPath=" + h.ControlPath(), "-- me@build"} {
		if !strings.Contains(joined, want) {
			t.Errorf("args %q lack %q", joined, want)
		}
	}
	if last := args[len(args)-1]; last != `exec 'tmux' '-L' 'it'\''s'` {
		t.Errorf("command line %q", last)
	}
	for _, dest := range []string{"", "-oProxyCommand=x", "a b", "a\nb"} {
		if _, err := (&Host{Destination: dest}).Args("true"); err == nil {
			t.Errorf("destination %q accepted", dest)
		}
	}
	for name, ok := range map[string]bool{"build": true, "gpu-2.lab_x": true, "": false, "a b": false, "a=b": false, "a,b": false, strings.Repeat("x", 65): false} {
		if got := CheckName(name) == nil; got != ok {
			t.Errorf("CheckName(%q) ok=%v, want %v", name, got, ok)
		}
	}
}
