package testtmux

import (
	"embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The start-up files of the realistic set-ups, copied into a pane's HOME (see
// testdata/shells/README.md).
//
//go:embed all:testdata/shells
var shellFiles embed.FS

// Setup is a shell as a user configures it: the program, its start-up files, its history,
// and what tells that it is ready at its prompt.
type Setup struct {
	Shell  string   // bash, zsh, dash, mksh, ksh (ksh93), fish or ash (busybox ash)
	Config string   // clean, rc, vi, strict, or how it was started (sh-c, env, ...)
	Argv   []string // the pane's command
	Fish   bool     // fish syntax; otherwise POSIX
	// Vi says the line editor starts in vi (insert) mode.
	Vi bool
	// Errexit says the interactive shell runs with set -e (and set -u).
	Errexit bool
	// LineEditor is false for a shell that leaves line editing to the terminal (dash).
	LineEditor bool
	// ViIndicator, when set, matches the screen once the vi line editor is in command mode.
	ViIndicator *regexp.Regexp
	// Prompt matches the text of the cursor's line, up to the cursor, when the shell waits
	// for input at its prompt.
	Prompt *regexp.Regexp
	// HistoryCmd lists the interactive shell's history ("" for a shell that keeps none).
	HistoryCmd string
	// HistoryFile is where the shell saves its history, relative to HOME ("" when none).
	HistoryFile string

	files map[string]string // HOME-relative destination -> fixture under testdata/shells
	rc    string            // HOME-relative start-up file the config's extra lines go to
	extra []string          // lines appended to rc
	env   []string          // KEY=VALUE for the pane; $HOME is replaced by the pane's HOME
	needs []string          // files (absolute) and commands the set-up needs besides the shell
}

// With returns s named config, with lines added to its start-up file (an rc set-up's).
func (s Setup) With(config string, lines ...string) Setup {
	s.Config, s.extra = config, append(append([]string{}, s.extra...), lines...)
	return s
}

// WithRC returns s named config, started by argv, with a start-up file rc (HOME-relative)
// that holds only lines, in place of its fixtures.
func (s Setup) WithRC(config string, argv []string, rc string, lines ...string) Setup {
	s.Config, s.Argv, s.rc = config, argv, rc
	s.files, s.extra = map[string]string{rc: ""}, append([]string{}, lines...)
	return s
}

// Require skips t when the pane's program or the shell itself is not installed (a shell
// started through sh -c needs both).
func (s Setup) Require(t testing.TB) {
	t.Helper()
	RequireShell(t, s.Argv)
	if b, ok := base[s.Shell]; ok {
		RequireShell(t, b.Argv)
	}
	requireNeeds(t, s.needs)
}

// Name is "shell/config", for subtest names.
func (s Setup) Name() string { return s.Shell + "/" + s.Config }

var (
	dollarPrompt = regexp.MustCompile(`[$#] $`)
	richPrompt   = regexp.MustCompile(`❯ $`)
	fishDefault  = regexp.MustCompile(`[#>] $`)
)

// base holds each shell's clean set-up: no start-up files, PS1 '$ ' from the environment,
// history on with its file in the pane's HOME.
var base = map[string]Setup{
	"bash": {Argv: []string{"bash", "--noprofile", "--norc"}, HistoryCmd: "history", HistoryFile: ".bash_history",
		env: []string{"HISTFILE=$HOME/.bash_history"}},
	"zsh": {Argv: []string{"zsh", "-f"}, HistoryCmd: "fc -l 1",
		env: []string{"HISTFILE=$HOME/.zsh_history"}},
	"dash": {Argv: []string{"dash"}},
	"mksh": {Argv: []string{"mksh"}, HistoryCmd: "fc -l 1", HistoryFile: ".mksh_history",
		env: []string{"HISTFILE=$HOME/.mksh_history"}},
	"ksh": {Argv: []string{"ksh"}, HistoryCmd: "hist -l 1", HistoryFile: ".sh_history",
		env: []string{"HISTFILE=$HOME/.sh_history"}},
	"fish": {Argv: []string{"fish"}, Fish: true, HistoryCmd: "history", HistoryFile: ".local/share/fish/fish_history"},
	"ash": {Argv: []string{"busybox", "ash"}, HistoryCmd: "history", HistoryFile: ".ash_history",
		env: []string{"HISTFILE=$HOME/.ash_history"}},
}

// rcFiles are the realistic start-up files of each shell, and the file extra lines go to.
var rcFiles = map[string]struct {
	files map[string]string
	rc    string
	argv  []string
	env   []string
}{
	"bash": {map[string]string{".bashrc": "bashrc"}, ".bashrc", []string{"bash"}, nil},
	"zsh":  {map[string]string{".zshrc": "zshrc"}, ".zshrc", []string{"zsh"}, nil},
	"dash": {map[string]string{".shrc": "shrc"}, ".shrc", []string{"dash"}, []string{"ENV=$HOME/.shrc"}},
	"mksh": {map[string]string{".shrc": "shrc", ".mkshrc": "mkshrc"}, ".mkshrc", []string{"mksh"}, []string{"HISTFILE=$HOME/.mksh_history"}},
	"ksh":  {map[string]string{".shrc": "shrc", ".kshrc": "kshrc"}, ".kshrc", []string{"ksh"}, nil},
	"fish": {map[string]string{".config/fish/config.fish": "config.fish"}, ".config/fish/config.fish", []string{"fish"}, nil},
	"ash":  {map[string]string{".shrc": "shrc"}, ".shrc", []string{"busybox", "ash"}, []string{"ENV=$HOME/.shrc"}},
}

// viLines put each shell's line editor in vi mode, with a mode indicator where users
// commonly have one, and the pane's environment where it matters.
var viLines = map[string]struct {
	lines     []string
	indicator *regexp.Regexp
	env       []string
}{
	"bash": {[]string{"set -o vi", "bind 'set show-mode-in-prompt on'"}, regexp.MustCompile(`\(cmd\)`), nil},
	"zsh": {[]string{"bindkey -v", "KEYTIMEOUT=10",
		"zle-keymap-select() { RPROMPT=\"${${KEYMAP/vicmd/NORMAL}/(main|viins)/INSERT}\"; zle reset-prompt; }",
		"zle-line-init() { RPROMPT=INSERT; zle reset-prompt; }",
		"zle -N zle-keymap-select; zle -N zle-line-init"}, regexp.MustCompile(`NORMAL`), nil},
	"mksh": {[]string{"set -o vi"}, nil, nil},
	"ksh":  {[]string{"set -o vi"}, nil, nil},
	"ash":  {[]string{"set -o vi"}, nil, nil},
	// TERM as a tmux.conf with default-terminal xterm-256color sets it: fish binds the End
	// key of that terminfo (ESC O F), not the ESC [ 4 ~ tmux types, whose ESC alone leaves vi
	// insert mode.
	"fish": {[]string{"fish_vi_key_bindings"}, regexp.MustCompile(`\[N\]`), []string{"TERM=xterm-256color"}},
}

// rpromptLines make the rprompt set-up: the right prompt's text (the time) is drawn right of
// the command line on its row; what is typed must be read left of the cursor.
var rpromptLines = map[string]struct {
	lines []string
	vi    bool
}{
	"fish": {[]string{"fish_vi_key_bindings",
		`function fish_prompt; printf '\e]0;fish %s\a\e]133;A\a%s ❯ \e]133;B\a' $PWD (prompt_pwd); end`,
		`function fish_right_prompt; set_color brblack; date +%H:%M:%S; set_color normal; end`}, true},
	"zsh": {append(append([]string{}, viLines["zsh"].lines...),
		`precmd_functions+=(__rp_title); __rp_title() { print -n $'\e]0;zsh\a'; }`,
		`PROMPT=$'%{\e]133;A\a%}%F{blue}%~%f ❯ %{\e]133;B\a%}'`,
		// zle-line-init and zle-keymap-select above set RPROMPT to the mode: the time
		// goes with it, as a themed prompt shows both.
		`zle-line-init() { RPROMPT="INSERT %D{%H:%M:%S}"; zle reset-prompt; }`), true},
	// bash has no right prompt: the usual trick prints the time right-aligned, then a
	// carriage return, before the prompt proper.
	"bash": {[]string{`PS1='\[\e]0;bash\a$(printf "%*s\r" $COLUMNS "$(date +%H:%M:%S)")\e]133;A\a\]\w ❯ '`}, false},
}

// ShellNames lists the shells of the matrix.
func ShellNames() []string { return []string{"bash", "zsh", "dash", "mksh", "ksh", "fish", "ash"} }

// Configs lists the set-ups of one shell: clean; rc (the realistic start-up files); vi (rc
// with the line editor in vi mode, where the shell has one); strict (rc plus set -eu, POSIX
// shells only).
func Configs(shell string) []Setup {
	b, ok := base[shell]
	if !ok {
		panic("testtmux: unknown shell " + shell)
	}
	clean := b
	clean.Shell, clean.Config, clean.LineEditor = shell, "clean", shell != "dash"
	clean.Prompt = dollarPrompt
	if shell == "fish" {
		clean.Prompt = fishDefault
		clean.files = map[string]string{} // the default fish: its greeting, its prompt
	}
	out := []Setup{clean}

	f := rcFiles[shell]
	rc := clean
	rc.Config, rc.Argv, rc.files, rc.rc, rc.Prompt = "rc", f.argv, f.files, f.rc, richPrompt
	// A person with a prompt like this one runs a UTF-8 terminal, and the tmux server started
	// from it passes the locale on; the clean set-up keeps the bare environment of a tmux
	// server an MCP client's environment started (no locale at all). A multibyte prompt in a
	// C locale is misdrawn by the line editors themselves (they measure it in bytes).
	rc.env = append(append([]string{"LANG=C.UTF-8"}, clean.env...), f.env...)
	out = append(out, rc)
	if v, ok := viLines[shell]; ok {
		vi := rc
		vi.Config, vi.Vi, vi.extra, vi.ViIndicator = "vi", true, v.lines, v.indicator
		vi.env = append(append([]string{}, rc.env...), v.env...)
		out = append(out, vi)
	}
	if r, ok := rpromptLines[shell]; ok {
		// A single-line prompt with a right prompt printing the time, as tide, starship and
		// powerlevel10k draw it, OSC 0 and OSC 133 in the prompt, and vi key bindings where
		// users commonly have them with it.
		rp := rc
		rp.Config, rp.extra, rp.Vi = "rprompt", r.lines, r.vi
		if r.vi {
			rp.ViIndicator = viLines[shell].indicator
		}
		out = append(out, rp)
	}
	if shell != "fish" {
		strict := rc
		strict.Config, strict.Errexit, strict.extra = "strict", true, []string{"set -eu"}
		out = append(out, strict)
	}
	return out
}

// zshPluginFiles are what the plugins set-ups source, from Debian's packages fzf,
// zsh-autosuggestions and zsh-syntax-highlighting (.ci/run installs them).
var zshPluginFiles = []string{
	"/usr/share/doc/fzf/examples/key-bindings.zsh",
	"/usr/share/doc/fzf/examples/completion.zsh",
	"/usr/share/zsh-autosuggestions/zsh-autosuggestions.zsh",
	"/usr/share/zsh-syntax-highlighting/zsh-syntax-highlighting.zsh",
}

// ZshPlugins lists zsh as most of its users run it: an oh-my-zsh-like .zshrc (compinit, shared
// history, auto_cd, correct, a two-line prompt with vcs_info and a right prompt) sourcing fzf's
// key bindings and completion, zsh-autosuggestions and zsh-syntax-highlighting, with a history
// for the suggestions to come from: "plugins", and "plugins-vi" with bindkey -v. Their Require
// skips a test when a plugin is not installed.
func ZshPlugins() []Setup {
	p := Config("zsh", "rc")
	p.Config, p.needs = "plugins", zshPluginFiles
	p.files = map[string]string{".zshrc": "zshrc-plugins", ".zsh_history": "zsh_history-plugins"}
	p.HistoryFile = ".zsh_history"
	vi := p
	vi.Config, vi.Vi, vi.extra = "plugins-vi", true, []string{"bindkey -v", "KEYTIMEOUT=10"}
	return []Setup{p, vi}
}

// ZshTransient is zsh's rc set-up with a transient prompt, as powerlevel10k (its
// POWERLEVEL9K_TRANSIENT_PROMPT) and starship draw it: once a line is accepted, its two-line
// prompt is redrawn as a short one ("❯ "), which moves the accepted line up a row and left.
// The widget is the one p10k's author gives for zsh without p10k.
func ZshTransient() Setup {
	return Config("zsh", "rc").With("transient",
		"zle-line-init() {",
		"  emulate -L zsh",
		"  [[ $CONTEXT == start ]] || return 0",
		"  while true; do",
		"    zle .recursive-edit",
		"    local -i ret=$?",
		`    [[ $ret == 0 && $KEYS == $'\4' ]] || break`,
		"    [[ -o ignore_eof ]] || exit 0",
		"  done",
		"  local saved_prompt=$PROMPT saved_rprompt=$RPROMPT",
		"  PROMPT='%F{magenta}❯%f ' RPROMPT=''",
		"  zle .reset-prompt",
		"  PROMPT=$saved_prompt RPROMPT=$saved_rprompt",
		"  if (( ret )); then zle .send-break; else zle .accept-line; fi",
		"  return ret",
		"}",
		"zle -N zle-line-init")
}

// Config returns one set-up of a shell by its config name.
func Config(shell, config string) Setup {
	for _, s := range Configs(shell) {
		if s.Config == config {
			return s
		}
	}
	panic(fmt.Sprintf("testtmux: %s has no config %q", shell, config))
}

// Started returns shell's clean set-up started through argv instead (e.g. sh -c fish, env
// PS1='$ ' ksh), named config. The prompt may then be the system's default.
func Started(shell, config string, argv ...string) Setup {
	s := Config(shell, "clean")
	s.Config, s.Argv = config, argv
	if !s.Fish {
		s.Prompt = dollarPrompt
	}
	if shell == "zsh" {
		// A zsh without -f in an empty HOME would start zsh-newuser-install's menu.
		s.files = map[string]string{".zshrc": ""}
	}
	return s
}

// SlowStart is shell's clean set-up (bash, zsh or fish) whose start-up file sleeps for secs
// seconds before its prompt, as one that loads nvm, conda or a prompt framework does for
// seconds on a loaded machine. zsh runs the sleep in the foreground, where tmux names it.
func SlowStart(shell, secs string) Setup {
	rc := map[string]struct {
		file string
		argv []string
	}{
		"bash": {".bashrc", []string{"bash"}},
		"zsh":  {".zshrc", []string{"zsh"}},
		"fish": {".config/fish/config.fish", []string{"fish"}},
	}[shell]
	return Config(shell, "clean").WithRC("slow-"+secs, rc.argv, rc.file, "sleep "+secs)
}

// CLocaleZsh is zsh started as an MCP client's environment starts it, without a locale (the C
// locale, where zsh measures a multibyte character in bytes), named config, with a start-up
// file of lines that set a prompt ending in "❯ ".
func CLocaleZsh(config string, lines ...string) Setup {
	s := Config("zsh", "clean").WithRC(config, []string{"zsh"}, ".zshrc", lines...)
	s.Prompt = richPrompt
	return s
}

// ShellPane is a pane running a Setup, with a HOME of its own.
type ShellPane struct {
	S     *Server
	ID    string
	Home  string
	Setup Setup
}

var homeSeq atomic.Int64

// StartShell starts su in a new window of the session "sh", in a HOME of its own holding
// su's start-up files, and waits until the shell shows its prompt. The pane's helpers fail t.
func (s *Server) StartShell(t testing.TB, su Setup) *ShellPane {
	t.Helper()
	p := s.StartShellNoWait(t, su)
	p.WaitPrompt()
	return p
}

// StartShellNoWait is StartShell without the wait: the shell may still be starting.
func (s *Server) StartShellNoWait(t testing.TB, su Setup) *ShellPane {
	t.Helper()
	s = s.For(t)
	RequireShell(t, su.Argv)
	home := filepath.Join(s.Dir, "h"+strconv.FormatInt(homeSeq.Add(1), 10))
	if err := writeHome(home, su); err != nil {
		t.Fatal(err)
	}
	s.shellSession()
	args := []string{"new-window", "-d", "-t", "=sh:", "-P", "-F", "#{pane_id}", "-c", home}
	for _, kv := range su.Environ(home) {
		args = append(args, "-e", kv)
	}
	id := s.Tmux(append(args, su.Argv...)...)
	return &ShellPane{S: s, ID: id, Home: home, Setup: su}
}

// Environ is the environment (KEY=VALUE) of su's shell with its HOME at home.
func (su Setup) Environ(home string) []string {
	env := []string{"HOME=" + home, "PS1=$ ", "XDG_CONFIG_HOME=" + home + "/.config", "XDG_DATA_HOME=" + home + "/.local/share"}
	for _, kv := range su.env {
		env = append(env, strings.ReplaceAll(kv, "$HOME", home))
	}
	return env
}

// WriteHome makes home, holding su's start-up files, for su's shell started otherwise than
// by StartShell (by the server under test), with Environ(home).
func (su Setup) WriteHome(home string) error { return writeHome(home, su) }

// shellSession makes the session "sh" that holds the set-ups' windows, once, with a first
// window that only holds the session open (cat waits on its terminal, costing nothing), so
// killing a test's last pane never ends the session under another test starting one.
func (s *Server) shellSession() {
	s.t.Helper()
	s.shell.mu.Lock()
	defer s.shell.mu.Unlock()
	if s.shell.ready {
		return
	}
	s.Tmux("new-session", "-d", "-s", "sh", "-n", "hold", "-x", "80", "-y", "24", "-c", s.Home, "cat")
	s.shell.ready = true
}

// writeHome makes home and copies su's start-up files into it, with su's extra lines
// appended to its rc file. fish's generated completions directory is made up front: without
// it a first fish runs fish_update_completions (a Python scan of every man page) in the
// background, which would load the machine for the rest of the run.
func writeHome(home string, su Setup) error {
	if err := os.MkdirAll(filepath.Join(home, ".local/share/fish/generated_completions"), 0o700); err != nil {
		return err
	}
	files := map[string]string{}
	for dest, src := range su.files {
		text := ""
		if src != "" {
			b, err := shellFiles.ReadFile("testdata/shells/" + src)
			if err != nil {
				return err
			}
			text = string(b)
		}
		files[dest] = text
	}
	if len(su.extra) > 0 {
		files[su.rc] += "\n# Added by the test configuration " + su.Config + ".\n" + strings.Join(su.extra, "\n") + "\n"
	}
	for dest, text := range files {
		path := filepath.Join(home, dest)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// PromptWait bounds how long a shell may take to show its prompt: fish with a realistic
// config on a loaded machine can take seconds.
const PromptWait = 30 * time.Second

// WaitPrompt waits until the shell waits for input at its prompt: the text of the cursor's
// line up to the cursor matches the set-up's prompt.
func (p *ShellPane) WaitPrompt() {
	p.S.t.Helper()
	p.WaitState("its prompt", func(screen string, before string) bool { return p.Setup.Prompt.MatchString(before) })
}

// WaitState waits until cond holds for the pane's screen and the text of the cursor's line up
// to the cursor, at most PromptWait; what names the state in the failure message. It fails
// the test at once when the pane died.
func (p *ShellPane) WaitState(what string, cond func(screen, beforeCursor string) bool) string {
	p.S.t.Helper()
	screen, err := p.Poll(PromptWait, cond)
	if err != nil {
		p.S.t.Fatalf("%s pane %s: %s not seen: %v; screen:\n%s", p.Setup.Name(), p.ID, what, err, screen)
	}
	return screen
}

// Poll is WaitState that returns an error instead of failing the test.
func (p *ShellPane) Poll(d time.Duration, cond func(screen, beforeCursor string) bool) (string, error) {
	deadline := time.Now().Add(d)
	for {
		screen, before, dead, err := p.state()
		switch {
		case err == nil && !dead && cond(screen, before):
			return screen, nil
		case dead:
			return screen, errors.New("the pane died")
		case time.Now().After(deadline):
			return screen, fmt.Errorf("not within %v (last error %v)", d, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// state reads the screen and the cursor in one tmux command list (one instant).
func (p *ShellPane) state() (screen, beforeCursor string, dead bool, err error) {
	out, err := p.S.TryTmux("display-message", "-p", "-t", p.ID, "#{cursor_x} #{cursor_y} #{pane_dead}", ";", "capture-pane", "-p", "-t", p.ID)
	if err != nil {
		return out, "", false, err
	}
	head, screen, _ := strings.Cut(out, "\n")
	f := strings.Fields(head)
	if len(f) != 3 {
		return screen, "", false, fmt.Errorf("display-message: %q", head)
	}
	x, _ := strconv.Atoi(f[0])
	y, _ := strconv.Atoi(f[1])
	lines := strings.Split(screen, "\n")
	line := ""
	if y < len(lines) {
		line = lines[y]
	}
	r := []rune(line)
	for len(r) < x {
		r = append(r, ' ')
	}
	return screen, string(r[:x]), f[2] == "1", nil
}

// For returns the pane as seen by subtest t: its helpers fail t.
func (p *ShellPane) For(t testing.TB) *ShellPane {
	c := *p
	c.S = p.S.For(t)
	return &c
}

// Type types line into the pane as a person would, then Enter.
func (p *ShellPane) Type(line string) {
	p.S.t.Helper()
	p.S.Tmux("send-keys", "-t", p.ID, "-l", line)
	p.S.Tmux("send-keys", "-t", p.ID, "Enter")
}

// Keys sends tmux key names (C-c, Escape, Left) to the pane.
func (p *ShellPane) Keys(keys ...string) {
	p.S.t.Helper()
	p.S.Tmux(append([]string{"send-keys", "-t", p.ID}, keys...)...)
}

// Alive reports whether the pane still exists and is not dead.
func (p *ShellPane) Alive() bool {
	out, err := p.S.TryTmux("display-message", "-p", "-t", p.ID, "#{pane_id} #{pane_dead}")
	return err == nil && out == p.ID+" 0"
}

// Kill kills the pane's window (the test is done with it).
func (p *ShellPane) Kill() { p.S.TryTmux("kill-pane", "-t", p.ID) }
