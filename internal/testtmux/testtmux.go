// Package testtmux starts private tmux servers for tests: a socket in a temp dir, a minimal
// config, a temp HOME and clean shells. Cleanup kills only the server it started.
package testtmux

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/inherit"
	"github.com/tmux-mcp/tmux-mcp/internal/procfs"
)

// Clean shells: no rc files, so a pane reaches its prompt at once.
var (
	Bash = []string{"bash", "--noprofile", "--norc"}
	Sh   = []string{"sh"}
	Dash = []string{"dash"}
	Zsh  = []string{"zsh", "-f"}
	Mksh = []string{"mksh"}
	Ksh  = []string{"ksh"}
	Fish = []string{"fish", "--no-config"}
)

// Server is a private tmux server for one test.
type Server struct {
	t      testing.TB
	Dir    string // temp dir holding the socket, config and HOME
	Socket string // tmux -S path
	Conf   string // tmux -f path
	Home   string
	Env    []string // environment for tmux and for the server under test

	shell *shellState // shared by the copies For makes
}

// shellState says whether the session "sh" of StartShell exists.
type shellState struct {
	mu    sync.Mutex
	ready bool
}

// For returns the server as seen by test t (a subtest): its helpers fail t, not the test
// that created the server. Calling Fatal on another test's T from a subtest is an error.
func (s *Server) For(t testing.TB) *Server {
	c := *s
	c.t = t
	return &c
}

// Require skips the test when tmux is not installed.
func Require(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	// A tmux server outlives the test process; it must not keep what that process inherited
	// (a fuzz worker's pipes to its coordinator).
	inherit.OnlyStdio()
}

// RequireShell skips the test when shell's program is not installed.
func RequireShell(t testing.TB, shell []string) {
	t.Helper()
	if _, err := exec.LookPath(shell[0]); err != nil {
		t.Skipf("%s is not installed", shell[0])
	}
}

// New prepares a private server; the tmux server itself starts with the first session.
func New(t testing.TB) *Server { return NewAt(t, "") }

// NewWithConf is New with lines appended to the minimal tmux.conf, as a user's ~/.tmux.conf
// would set them (see UserConfs). The same lines are the temp HOME's ~/.tmux.conf, so a tmux
// server the product starts itself reads them too.
func NewWithConf(t testing.TB, lines ...string) *Server {
	t.Helper()
	s := NewAt(t, "")
	extra := strings.Join(lines, "\n") + "\n"
	f, err := os.OpenFile(s.Conf, os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString(extra)
		f.Close()
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(s.Home, ".tmux.conf"), []byte(extra), 0o600)
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// NewAt is New with the socket at socket (its directory is made, mode 0700), e.g. where
// `tmux -L name` reaches under another TMUX_TMPDIR; "" puts it in the server's temp dir.
func NewAt(t testing.TB, socket string) *Server {
	t.Helper()
	Require(t)
	dir, err := os.MkdirTemp("", "tm") // short: a socket path must stay under ~100 bytes
	if err != nil {
		t.Fatal(err)
	}
	if socket == "" {
		socket = filepath.Join(dir, "sock")
	} else if err := os.MkdirAll(filepath.Dir(socket), 0o700); err != nil {
		t.Fatal(err)
	}
	s := &Server{t: t, Dir: dir, Socket: socket, Conf: filepath.Join(dir, "tmux.conf"), Home: filepath.Join(dir, "home"), shell: &shellState{}}
	if err := os.Mkdir(s.Home, 0o700); err != nil {
		t.Fatal(err)
	}
	conf := strings.Join([]string{
		"set -g default-command 'exec bash --noprofile --norc'",
		"set -g history-limit 5000",
		"set -g status off",
		"",
	}, "\n")
	if err := os.WriteFile(s.Conf, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	s.Env = Env(s.Home, dir)
	t.Cleanup(func() {
		s.Kill()
		os.RemoveAll(dir)
	})
	return s
}

// Env is a clean environment: HOME and TMUX_TMPDIR in temp dirs, no TMUX or TMUX_PANE, a fixed
// prompt, and no locale at all (no LANG, LC_ALL or LC_*), as MCP clients start servers (env -i
// with PATH and HOME): the engine must work without one, and so must the tmux server and the
// shells it starts. The test helpers' own tmux commands pass -u to read non-ASCII exactly.
func Env(home, tmpdir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "LANG" || k == "LANGUAGE" || strings.HasPrefix(k, "LC_") {
			continue
		}
		switch k {
		case "TMUX", "TMUX_PANE", "HOME", "TMUX_TMPDIR", "PS1", "HISTFILE", "ENV", "BASH_ENV", "LIBTMUX_SOCKET", "LIBTMUX_SOCKET_PATH", "LIBTMUX_SAFETY", "LIBTMUX_MCP_TOOLS", "LIBTMUX_MCP_AUDIT":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "TMUX_TMPDIR="+tmpdir, "PS1=$ ", "HISTFILE=")
}

// Args prefixes args with -u (UTF-8 whatever the locale), the socket and the config flags.
func (s *Server) Args(args ...string) []string {
	return append([]string{"-u", "-S", s.Socket, "-f", s.Conf}, args...)
}

// Tmux runs a tmux command against the server and returns its output, failing the test on error.
func (s *Server) Tmux(args ...string) string {
	s.t.Helper()
	out, err := s.TryTmux(args...)
	if err != nil {
		s.t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return out
}

// TryTmux runs a tmux command and returns its output and error.
func (s *Server) TryTmux(args ...string) (string, error) {
	cmd := exec.Command("tmux", s.Args(args...)...)
	cmd.Env = s.Env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return strings.TrimRight(out.String(), "\n"), err
}

// NewSession creates a detached 80x24 session running shell (bash without rc files when
// empty) in the temp HOME, and returns its session id and first pane id once the shell prompts.
func (s *Server) NewSession(name string, shell ...string) (sessionID, paneID string) {
	s.t.Helper()
	if len(shell) == 0 {
		shell = Bash
	}
	args := []string{"new-session", "-d", "-P", "-F", "#{session_id} #{pane_id}", "-x", "80", "-y", "24", "-c", s.Home}
	if name != "" {
		args = append(args, "-s", name)
	}
	args = append(args, "-e", "PS1=$ ", "-e", "HOME="+s.Home)
	args = append(args, shell...)
	out := s.Tmux(args...)
	sessionID, paneID, _ = strings.Cut(out, " ")
	s.WaitPrompt(paneID)
	return sessionID, paneID
}

// SplitWindow adds a pane running shell to the window of target and returns its id once it prompts.
func (s *Server) SplitWindow(target string, shell ...string) string {
	s.t.Helper()
	if len(shell) == 0 {
		shell = Bash
	}
	args := append([]string{"split-window", "-d", "-P", "-F", "#{pane_id}", "-t", target, "-c", s.Home, "-e", "PS1=$ ", "-e", "HOME=" + s.Home}, shell...)
	id := s.Tmux(args...)
	s.WaitPrompt(id)
	return id
}

// NewWindow adds a window running shell to session and returns its pane id once it prompts.
func (s *Server) NewWindow(session string, shell ...string) string {
	s.t.Helper()
	if len(shell) == 0 {
		shell = Bash
	}
	args := append([]string{"new-window", "-d", "-P", "-F", "#{pane_id}", "-t", session + ":", "-c", s.Home, "-e", "PS1=$ ", "-e", "HOME=" + s.Home}, shell...)
	id := s.Tmux(args...)
	s.WaitPrompt(id)
	return id
}

// WaitPrompt waits until the pane shows something (its shell prompted), at most 10 s.
func (s *Server) WaitPrompt(paneID string) {
	s.t.Helper()
	s.WaitFor(paneID, func(screen string) bool { return strings.TrimSpace(screen) != "" })
}

// WaitNames waits until every window's name is the one automatic-rename gives it (a new
// window is named after its program only once tmux's next check, up to half a second after
// the shell started, later on a busy machine), at most 10 s: tests that compare tmux's state
// before and after call it first.
func (s *Server) WaitNames() {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, err := s.TryTmux("list-windows", "-a", "-F", "#{automatic-rename}|#{window_name}|#{E:automatic-rename-format}")
		settled := err == nil
		for _, l := range strings.Split(out, "\n") {
			if on, rest, _ := strings.Cut(l, "|"); on == "1" {
				name, want, _ := strings.Cut(rest, "|")
				settled = settled && name == want
			}
		}
		if settled {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("window names did not settle in 10s:\n%s (err %v)", out, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WaitFor waits until cond holds for the pane's visible text, at most 10 s. Tests only: the
// product never polls.
func (s *Server) WaitFor(paneID string, cond func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		screen, err := s.TryTmux("capture-pane", "-p", "-t", paneID)
		if err == nil && cond(screen) {
			return screen
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("pane %s: condition not met in 10s; screen:\n%s (err %v)", paneID, screen, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Kill kills this test's tmux server (only it, by its own socket), then what is left of it (see
// killLeftovers).
func (s *Server) Kill() {
	list := exec.Command("tmux", "-S", s.Socket, "list-panes", "-a", "-F", "#{pane_pid}")
	list.Env = s.Env
	out, _ := list.Output()
	cmd := exec.Command("tmux", "-S", s.Socket, "kill-server")
	cmd.Env = s.Env
	cmd.Run()
	sids := map[int]bool{}
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 1 {
			sids[pid] = true
		}
	}
	killLeftovers(s.Socket, sids)
}

// killLeftovers SIGKILLs, in one pass over the processes, what can outlive kill-server:
//   - every process in the panes' terminal sessions (sids: a pane's shell leads its own
//     session, so this reaches everything started in the pane and nothing else): a shell busy
//     in a builtin loop that traps signals outlives the SIGHUP and would burn a CPU for the
//     rest of the run;
//   - every tmux process whose arguments name socket: a server whose kill-server failed (a
//     loaded machine) would outlive the test unreachable, its socket gone with the test's
//     directory, keeping its terminals for good; and control clients with it.
func killLeftovers(socket string, sids map[int]bool) {
	for _, pid := range procfs.PIDs() {
		if st, ok := procfs.ReadStat(pid); ok && sids[st.Session] {
			syscall.Kill(pid, syscall.SIGKILL)
			continue
		}
		argv := procfs.Cmdline(pid)
		if len(argv) > 0 && filepath.Base(argv[0]) == "tmux" && slices.Contains(argv, socket) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
