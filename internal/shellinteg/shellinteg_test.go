package shellinteg

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCommand(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", "")
	var f Files
	defer f.Close()
	for _, tc := range []struct {
		program string
		login   bool
		argv    []string // with DIR for the files' directory
		env     map[string]string
	}{
		{"bash", true, []string{"bash", "--rcfile", "DIR/bash.rc", "-i"}, map[string]string{"__TMUX_MCP_LOGIN": "1"}},
		{"/usr/bin/bash", false, []string{"/usr/bin/bash", "--rcfile", "DIR/bash.rc", "-i"}, map[string]string{}},
		{"-zsh", true, []string{"-zsh", "-i", "-l"}, map[string]string{"ZDOTDIR": "DIR/zsh", "__TMUX_MCP_ZDOTDIR": "/z"}},
		{"fish", false, []string{"fish", "-C", "source 'DIR/integration.fish'"}, map[string]string{}},
	} {
		l, err := f.Command(tc.program, tc.login, "/z")
		if err != nil {
			t.Fatal(err)
		}
		dir := f.dir
		want := make([]string, len(tc.argv))
		for i, a := range tc.argv {
			want[i] = strings.ReplaceAll(a, "DIR", dir)
		}
		if !slices.Equal(l.Argv, want) {
			t.Errorf("%s: argv %q, want %q", tc.program, l.Argv, want)
		}
		if tc.program == "bash" || tc.program == "fish" || tc.program == "/usr/bin/bash" {
			delete(tc.env, "__TMUX_MCP_ZDOTDIR")
		}
		for k, v := range tc.env {
			if l.Env[k] != strings.ReplaceAll(v, "DIR", dir) {
				t.Errorf("%s: env %s=%q, want %q", tc.program, k, l.Env[k], v)
			}
		}
	}
	if _, err := f.Command("dash", false, ""); err == nil {
		t.Error("dash has no integration")
	}
	st, err := os.Stat(f.dir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v (%v)", st.Mode(), err)
	}
	for _, name := range []string{"bash.rc", "zsh/.zshenv", "integration.fish"} {
		if st, err := os.Stat(filepath.Join(f.dir, name)); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The files outlive Close (a pane's shell may start again after this process ended), and
	// another Files (another server) uses them.
	dir := f.dir
	f.Close()
	for name, text := range contents {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != text {
			t.Errorf("after Close, %s: %v", name, err)
		}
	}
	var g Files
	defer g.Close()
	if l, err := g.Command("bash", false, ""); err != nil || g.dir != dir || g.temp {
		t.Errorf("another Files: %+v %v in %s, want %s", l, err, g.dir, dir)
	}
}

// TestFilesWithoutHome: with no cache directory the files go to a temporary directory, which
// Close removes.
func TestFilesWithoutHome(t *testing.T) {
	t.Setenv("HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	var f Files
	if _, err := f.Command("fish", false, ""); err != nil {
		t.Fatal(err)
	}
	dir := f.dir
	if !f.temp {
		t.Fatalf("files in %s, not a temporary directory", dir)
	}
	f.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Close left %s", dir)
	}
}

func TestFishQuote(t *testing.T) {
	if got := fishQuote(`/tmp/a b'c\d`); got != `'/tmp/a b\'c\\d'` {
		t.Errorf("got %s", got)
	}
}
