// Package shellinteg starts bash, zsh and fish with a small shell integration that marks each
// prompt, command line, output and exit status with OSC 133 and the directory with OSC 7 (what
// tmux/marks reads). It is loaded after the user's own startup files and changes nothing of
// them: the prompt's text, the history and the options stay as the user set them.
package shellinteg

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

//go:embed bash.rc
var bashRC string

//go:embed zshenv
var zshEnv string

//go:embed integration.fish
var fishInit string

// shells are the shells an integration exists for.
var shells = []string{"bash", "zsh", "fish"}

// Files holds the integration's files in a private directory (mode 0700), made on first use.
// The zero value is ready to use; Close removes the directory. A shell reads them only while
// it starts.
type Files struct {
	mu  sync.Mutex
	dir string
}

// Close removes the files.
func (f *Files) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dir != "" {
		os.RemoveAll(f.dir)
		f.dir = ""
	}
}

func (f *Files) ensure() (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dir != "" {
		return f.dir, nil
	}
	dir, err := os.MkdirTemp("", "tmux-mcp-shell-")
	if err != nil {
		return "", err
	}
	err = errors.Join(
		os.WriteFile(filepath.Join(dir, "bash.rc"), []byte(bashRC), 0o600),
		os.Mkdir(filepath.Join(dir, "zsh"), 0o700),
		os.WriteFile(filepath.Join(dir, "integration.fish"), []byte(fishInit), 0o600),
	)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "zsh", ".zshenv"), []byte(zshEnv), 0o600)
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("writing the shell integration: %w", err)
	}
	f.dir = dir
	return dir, nil
}

// Family returns the shell a program path or name is (bash, zsh or fish), or "".
func Family(program string) string {
	base := filepath.Base(strings.TrimPrefix(program, "-"))
	for _, s := range shells {
		if base == s {
			return s
		}
	}
	return ""
}

// Launch is how to start a shell with the integration: the argv and the environment to add.
type Launch struct {
	Shell string
	Argv  []string
	Env   map[string]string
}

// Command returns how to start program (a bash, zsh or fish path or name) with the
// integration; login starts it as a login shell, as tmux starts its default shell. zdotdir is
// the user's ZDOTDIR, if set, for zsh.
func (f *Files) Command(program string, login bool, zdotdir string) (Launch, error) {
	shell := Family(program)
	if shell == "" {
		return Launch{}, fmt.Errorf("%s is not bash, zsh or fish", program)
	}
	dir, err := f.ensure()
	if err != nil {
		return Launch{}, err
	}
	l := Launch{Shell: shell, Env: map[string]string{}}
	switch shell {
	case "bash":
		l.Argv = []string{program, "--rcfile", filepath.Join(dir, "bash.rc"), "-i"}
		if login {
			l.Env["__TMUX_MCP_LOGIN"] = "1"
		}
	case "zsh":
		l.Argv = []string{program, "-i"} // two words or more: tmux runs them without a shell
		if login {
			l.Argv = append(l.Argv, "-l")
		}
		l.Env["ZDOTDIR"] = filepath.Join(dir, "zsh")
		if zdotdir != "" {
			l.Env["__TMUX_MCP_ZDOTDIR"] = zdotdir
		}
	case "fish":
		l.Argv = []string{program}
		if login {
			l.Argv = append(l.Argv, "-l")
		}
		l.Argv = append(l.Argv, "-C", "source "+fishQuote(filepath.Join(dir, "integration.fish")))
	}
	return l, nil
}

// fishQuote quotes s as one fish word.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
