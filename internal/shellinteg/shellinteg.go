// Package shellinteg starts bash, zsh and fish with a small shell integration that marks each
// prompt, command line, output and exit status with OSC 133 and the directory with OSC 7 (what
// tmux/marks reads). It is loaded after the user's own startup files and changes nothing of
// them: the prompt's text, the history and the options stay as the user set them.
package shellinteg

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
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

// Files holds the integration's files in a private directory (mode 0700), made on first use:
// under the user's cache directory, named by the files' content, so that they outlive this
// process. A pane's shell reads them whenever it starts, and that can be after the server that
// started the pane ended: tmux-mcp call, a client that restarts its server, respawn-pane
// (by a person or respawn_pane), which runs the pane's command again. Gone, they would take
// the user's own start-up files with them (bash --rcfile replaces ~/.bashrc; zsh would look
// for its files in a ZDOTDIR that is no more). Only without a cache directory (no HOME) are
// they made in a temporary directory, which Close removes. The zero value is ready to use.
type Files struct {
	mu   sync.Mutex
	dir  string
	temp bool // dir is a temporary directory, removed by Close
}

// Close removes the files when they are in a temporary directory; else they stay for the
// shells that start later.
func (f *Files) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dir != "" && f.temp {
		os.RemoveAll(f.dir)
		f.dir = ""
	}
}

// contents are the files, by their path in the directory.
var contents = map[string]string{"bash.rc": bashRC, "zsh/.zshenv": zshEnv, "integration.fish": fishInit}

func (f *Files) ensure() (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dir != "" {
		return f.dir, nil
	}
	if base, err := os.UserCacheDir(); err == nil {
		dir := filepath.Join(base, "tmux-mcp", "shell-"+contentID())
		if err := write(dir, false); err == nil {
			f.dir = dir
			return dir, nil
		}
	}
	dir, err := os.MkdirTemp("", "tmux-mcp-shell-")
	if err != nil {
		return "", fmt.Errorf("writing the shell integration: %w", err)
	}
	if err := write(dir, true); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("writing the shell integration: %w", err)
	}
	f.dir, f.temp = dir, true
	return dir, nil
}

// contentID names the files' version: a digest of their content.
func contentID() string {
	h := sha256.New()
	for _, name := range slices.Sorted(maps.Keys(contents)) {
		fmt.Fprintf(h, "%s\x00%d\x00%s", name, len(contents[name]), contents[name])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// write puts the files in dir (made, mode 0700, unless made is set). Each file is written
// whole and renamed into place: another server writing the same files at once, or a shell
// reading one, never sees it half written.
func write(dir string, made bool) error {
	if !made {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		if err := os.Chmod(dir, 0o700); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "zsh"), 0o700); err != nil {
		return err
	}
	for name, text := range contents {
		if err := writeFile(filepath.Join(dir, name), text); err != nil {
			return err
		}
	}
	return nil
}

// writeFile writes text to path (mode 0600) through a temporary file beside it.
func writeFile(path, text string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.WriteString(text)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
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
