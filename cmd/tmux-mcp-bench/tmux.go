package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/control"
)

// benchTmux is the private tmux server the benchmark runs against.
type benchTmux struct {
	sock, conf, home string
	env              []string
	session, pane    string
	ctls             []*ctl // control clients to end before the server
}

// serverCmd is tmux-mcp's binary bin set to serve this tmux server, with extra environment.
func (t *benchTmux) serverCmd(bin string, env ...string) *exec.Cmd {
	cmd := exec.Command(bin)
	cmd.Env = append(append(append([]string{}, t.env...), "LIBTMUX_SOCKET_PATH="+t.sock), env...)
	return cmd
}

func newTmux(dir string) (*benchTmux, error) { return newTmuxAt(dir, filepath.Join(dir, "sock")) }

// newTmuxAt is newTmux with the socket at sock (its directory is made).
func newTmuxAt(dir, sock string) (*benchTmux, error) {
	t := &benchTmux{sock: sock, conf: filepath.Join(dir, "tmux.conf"), home: filepath.Join(dir, "home")}
	if err := os.MkdirAll(t.home, 0o700); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(t.conf, []byte("set -g default-command 'exec bash --noprofile --norc'\nset -g status off\nset -g history-limit 3000\n"), 0o600); err != nil {
		return nil, err
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "TMUX", "TMUX_PANE", "HOME", "TMUX_TMPDIR", "PS1", "HISTFILE":
			continue
		}
		if strings.HasPrefix(k, "LIBTMUX_") {
			continue
		}
		t.env = append(t.env, kv)
	}
	t.env = append(t.env, "HOME="+t.home, "TMUX_TMPDIR="+dir, "PS1=$ ", "HISTFILE=")
	out, err := t.tmux("new-session", "-d", "-s", "bench", "-x", "120", "-y", "40", "-P", "-F", "#{session_id} #{pane_id}", "-e", "PS1=$ ", "bash", "--noprofile", "--norc")
	if err != nil {
		return nil, err
	}
	t.session, t.pane, _ = strings.Cut(strings.TrimSpace(out), " ")
	time.Sleep(300 * time.Millisecond) // let the shell reach its prompt
	return t, nil
}

func (t *benchTmux) tmux(args ...string) (string, error) {
	cmd := exec.Command("tmux", append([]string{"-S", t.sock, "-f", t.conf}, args...)...)
	cmd.Env = t.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("tmux %s: %v: %s", strings.Join(args, " "), err, out.String())
	}
	return out.String(), nil
}

// kill ends the benchmark's own control clients, then its tmux server; a daemon that is still
// there a second later (tmux 3.3a can wait forever on a control client) is killed by pid.
func (t *benchTmux) kill() {
	for _, c := range t.ctls {
		c.close()
	}
	pid, _ := t.tmux("display-message", "-p", "#{pid}")
	t.tmux("kill-server")
	n, err := strconv.Atoi(strings.TrimSpace(pid))
	if err != nil || n <= 0 {
		return
	}
	for i := 0; i < 20; i++ {
		if syscall.Kill(n, 0) != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	syscall.Kill(n, syscall.SIGKILL)
}

// timeSpawned is the floor of a spawned tmux process per command.
func (t *benchTmux) timeSpawned(n int, args ...string) (samples, error) {
	var s samples
	for i := 0; i < n; i++ {
		start := time.Now()
		if _, err := t.tmux(args...); err != nil {
			return nil, err
		}
		s = append(s, time.Since(start))
	}
	return s, nil
}

// ctl is a control-mode client of the benchmark's own, for floors and for timestamps of output.
type ctl struct {
	conn *control.Conn
	cmd  *exec.Cmd
	once sync.Once

	mu      sync.Mutex
	out     bytes.Buffer
	waiters []waiter
}

type waiter struct {
	needle []byte
	ch     chan time.Time
}

func (t *benchTmux) control(ctx context.Context, session string) (*ctl, error) {
	cmd := exec.Command("tmux", "-S", t.sock, "-C", "attach-session", "-t", session)
	cmd.Env = t.env
	stdin, stdout, err := startPiped(cmd)
	if err != nil {
		return nil, err
	}
	c := &ctl{cmd: cmd}
	t.ctls = append(t.ctls, c)
	c.conn = control.NewConn(stdout, stdin, control.Options{OnOutput: c.onOutput})
	if _, err := c.conn.Do(ctx, []string{"display-message", "-p", "ok"}); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *ctl) onOutput(o control.Output) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.out.Write(o.Data)
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if bytes.Contains(c.out.Bytes(), w.needle) {
			w.ch <- now
			continue
		}
		kept = append(kept, w)
	}
	c.waiters = kept
	if c.out.Len() > 1<<20 {
		c.out.Next(c.out.Len() - 4096)
	}
}

// expect returns a channel that receives the time the needle is first seen in pane output.
func (c *ctl) expect(needle string) chan time.Time {
	ch := make(chan time.Time, 1)
	c.mu.Lock()
	c.out.Reset()
	c.waiters = append(c.waiters, waiter{needle: []byte(needle), ch: ch})
	c.mu.Unlock()
	return ch
}

func (c *ctl) close() {
	c.once.Do(func() {
		c.conn.Close()
		c.cmd.Process.Kill()
		c.cmd.Wait()
	})
}

// ctlFloor is a bare control-mode client: one write, then lines read until the reply's %end,
// in one goroutine. Its round trip is what tmux and the pipes cost, with no client machinery;
// the reference floor refControl (0.03 ms) is this.
type ctlFloor struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	r     *bufio.Reader
}

func (t *benchTmux) controlFloor() (*ctlFloor, error) {
	cmd := exec.Command("tmux", "-S", t.sock, "-C", "attach-session", "-t", t.session)
	cmd.Env = t.env
	stdin, stdout, err := startPiped(cmd)
	if err != nil {
		return nil, err
	}
	c := &ctlFloor{cmd: cmd, stdin: stdin, r: bufio.NewReader(stdout)}
	// Skip what attaching prints: sync on a marker of our own, then its %end.
	if _, err := io.WriteString(stdin, "display-message -p bench-sync\n"); err == nil {
		if err = c.readUntil("bench-sync"); err == nil {
			err = c.readUntil("")
		}
	}
	if err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// readUntil reads lines up to one equal to want, or to the end of a reply block when want is "".
// Only blocks of this client's own commands count (their guard lines end in flags 1): tmux
// also writes, with flags 0, the blocks of commands it runs on the client's behalf (hooks),
// which would otherwise stand for a reply still to come and put every later timing one reply
// early.
func (c *ctlFloor) readUntil(want string) error {
	for {
		l, err := c.r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("control floor: %w", err)
		}
		l = strings.TrimSuffix(l, "\n")
		if want != "" && l == want || want == "" && (strings.HasPrefix(l, "%end ") || strings.HasPrefix(l, "%error ")) && strings.HasSuffix(l, " 1") {
			return nil
		}
	}
}

// listSessions runs list-sessions once.
func (c *ctlFloor) listSessions() error { return c.do([]string{"list-sessions"}) }

// do writes cmds as one command list and reads their replies.
func (c *ctlFloor) do(cmds ...[]string) error {
	line, err := control.Line(cmds...)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(c.stdin, line+"\n"); err != nil {
		return err
	}
	for range cmds {
		if err := c.readUntil(""); err != nil {
			return err
		}
	}
	return nil
}

func (c *ctlFloor) close() {
	c.stdin.Close()
	c.cmd.Process.Kill()
	c.cmd.Wait()
}

// timeEcho is the floor of a command run: send-keys of `echo` and its output seen back over
// control mode.
func (t *benchTmux) timeEcho(ctx context.Context, n int) (samples, error) {
	return t.timeTyped(ctx, n, "echo floor", func(c *ctl, i int) (time.Duration, error) {
		tok := fmt.Sprintf("e%dx", i)
		// The typed line quotes the last letter, so its echo never matches the output: a line
		// editor may put escapes (bracketed paste off) between the echo and the output.
		d, _, err := c.typed(ctx, t.pane, "echo "+tok[:len(tok)-1]+`"x"`, tok+"\r\n")
		return d, err
	})
}

func tmuxVersion() string {
	b, _ := exec.Command("tmux", "-V").Output()
	return strings.TrimSpace(string(b))
}

func numCPU() int { return runtime.NumCPU() }

// startPiped starts cmd with a pipe to its stdin and one from its stdout.
func startPiped(cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("starting %s: %w", cmd.Path, err)
	}
	return stdin, stdout, nil
}
