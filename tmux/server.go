// Package tmux is a client for tmux servers: requests over a long-lived control-mode client with a
// spawned-process fallback, typed records, and live pane streams. It knows nothing of MCP.
package tmux

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/control"
	"github.com/tmux-mcp/tmux-mcp/tmux/ssh"
	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// DefaultTimeout bounds a request whose context has no deadline.
const DefaultTimeout = 5 * time.Second

// Config says how to reach one tmux server.
type Config struct {
	Bin        string        // tmux executable (on Host, when set); "tmux" from PATH when empty
	SocketName string        // tmux -L
	SocketPath string        // tmux -S; wins over SocketName
	Env        []string      // environment of spawned tmux processes (on Host: of the ssh processes); nil means this process's (or Host.Env)
	Timeout    time.Duration // deadline of a request whose context has none; DefaultTimeout when 0
	// Host, when set, is the machine tmux runs on, reached over OpenSSH: every tmux process
	// (control clients and spawned commands alike) runs there through the host's shared
	// connection. nil means this machine. A Host outlives the Servers on it: its owner closes it.
	Host *ssh.Host
}

// Identity is a tmux daemon's identity: a restart gives a new one.
type Identity struct {
	PID        int
	StartTime  int64
	SocketPath string // as the daemon reports it
	Host       string // the Host's name; "" on this machine (pids and paths are per machine)
}

// identityFormat asks the daemon who it is; the socket path goes last because it may hold spaces.
const identityFormat = "#{pid} #{start_time} #{socket_path}"

// Server is a handle on one tmux server. It is safe for concurrent use.
type Server struct {
	cfg  Config
	gate *attachGate // shared by every handle on the socket

	mu          sync.Mutex
	cc          *client // the command connection, nil until needed
	noConnUntil time.Time
	connErr     *HostError // why the host could not be reached, until noConnUntil
	connAt      time.Time  // when connErr was found
	ident       Identity
	closed      bool

	hub *stream.Hub // live pane streams, made on first use
	// hubIdent is the daemon the hub's newest stream connection reached: the hub is void only
	// when the command connection finds a daemon other than that one.
	hubIdent Identity

	// procs are the control clients this handle started and has not reaped yet (start records them): Close ends and
	// reaps each one before it returns (see Close). Its own lock, because dial runs under mu.
	procsMu     sync.Mutex
	procs       map[*client]struct{}
	procsClosed bool
}

// NewServer returns a handle on the server cfg names. It starts nothing.
func NewServer(cfg Config) *Server {
	if cfg.Bin == "" {
		cfg.Bin = "tmux"
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
		if cfg.Host != nil {
			// The first request may have to connect first.
			cfg.Timeout += cmp.Or(cfg.Host.ConnectTimeout, ssh.DefaultConnectTimeout)
		}
	}
	if cfg.SocketPath != "" {
		cfg.SocketName = ""
	}
	if cfg.SocketName == "" && cfg.SocketPath == "" && cfg.Host == nil {
		// Inside tmux, tmux's default is the server in $TMUX; name it explicitly so that every
		// process we start, whatever its environment, reaches the same server.
		if p := callerSocket(cfg.env()); p != "" {
			cfg.SocketPath = p
		}
	}
	return &Server{cfg: cfg, gate: gateFor(cfg)}
}

// Config returns the configuration the server was made with (with defaults filled in).
func (s *Server) Config() Config { return s.cfg }

// Local reports whether the tmux server runs on this machine. On another host, pane pids and
// paths are that host's: nothing of /proc or of this file system applies to its panes (see
// WriteFile for files there).
func (s *Server) Local() bool { return s.cfg.Host == nil }

// HostName returns the name of the host tmux runs on, "" for this machine.
func (s *Server) HostName() string {
	if s.cfg.Host == nil {
		return ""
	}
	return s.cfg.Host.Name
}

func (c Config) env() []string {
	if c.Env != nil {
		return c.Env
	}
	return os.Environ()
}

func callerSocket(env []string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "TMUX="); ok && v != "" {
			// socket_path,server_pid,session_id: the path may hold commas, so cut from the right.
			if i := strings.LastIndex(v, ","); i > 0 {
				v = v[:i]
				if j := strings.LastIndex(v, ","); j > 0 {
					return v[:j]
				}
			}
		}
	}
	return ""
}

// SocketArgs returns the tmux flags that select this server's socket.
func (s *Server) SocketArgs() []string {
	switch {
	case s.cfg.SocketPath != "":
		return []string{"-S", s.cfg.SocketPath}
	case s.cfg.SocketName != "":
		return []string{"-L", s.cfg.SocketName}
	}
	return nil
}

// SocketPath returns the socket file this handle reaches: the -S path, or where tmux puts a
// -L name (or the default socket) for the configured environment's TMUX_TMPDIR. On another
// host it is the -S path as given, or "" (only the daemon knows; see Identity).
func (s *Server) SocketPath() string {
	if s.cfg.Host != nil {
		return s.cfg.SocketPath
	}
	return s.cfg.socketPath()
}

// socketPath resolves the socket the way tmux does: -S as given (made absolute), a -L name (or
// "default") in tmux-<uid> under $TMUX_TMPDIR of the configured environment, else /tmp.
func (c Config) socketPath() string {
	p := c.SocketPath
	if p == "" {
		name := c.SocketName
		if name == "" {
			name = "default"
		}
		p = filepath.Join(c.tmuxTmpdir(), "tmux-"+strconv.Itoa(os.Getuid()), name)
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return p
}

// tmuxTmpdir is where tmux keeps its sockets: $TMUX_TMPDIR of the configured environment,
// else /tmp.
func (c Config) tmuxTmpdir() string {
	dir := "/tmp"
	for _, kv := range c.env() {
		if v, ok := strings.CutPrefix(kv, "TMUX_TMPDIR="); ok && v != "" {
			dir = v
		}
	}
	return dir
}

// argv is the argument list of every tmux process we start: -u, the socket flags, then args.
// -u makes tmux treat the client as UTF-8 whatever the caller's locale. Without it tmux
// decides from LC_ALL, LC_CTYPE and LANG, and under the bare environment MCP clients give
// their servers (env -i, LANG=C, LC_ALL=POSIX) it printed every non-ASCII byte of names,
// titles and formats as "_", our U+241E field separator included. The tmux
// server picks a UTF-8 locale of its own (C.UTF-8 or en_US.UTF-8) whatever its environment.
func (s *Server) argv(args ...string) []string {
	return append(append([]string{"-u"}, s.SocketArgs()...), args...)
}

// Query runs a read-only command list (several commands see one instant) and returns each
// command's output lines. A read interrupted by a lost connection is retried once.
func (s *Server) Query(ctx context.Context, cmds ...[]string) ([][]string, error) {
	return s.run(ctx, cmds, false)
}

// Exec runs a command list that changes something. It is never replayed.
func (s *Server) Exec(ctx context.Context, cmds ...[]string) ([][]string, error) {
	out, err := s.run(ctx, cmds, true)
	if err == nil {
		s.mutated()
	}
	return out, err
}

// mutated follows a mutation that succeeded: it may have created the first session, so
// control mode is tried again at once.
func (s *Server) mutated() {
	s.mu.Lock()
	s.noConnUntil = time.Time{}
	s.mu.Unlock()
}

// Command runs one command and returns its output lines.
func (s *Server) Command(ctx context.Context, args ...string) ([]string, error) {
	out, err := s.Exec(ctx, args)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

func (s *Server) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, s.cfg.Timeout)
}

// run sends cmds over the command connection, or spawns them. A read interrupted by a lost
// connection is retried once; a mutation never is, and holds the attach gate shared while it
// runs (see attachGate).
func (s *Server) run(ctx context.Context, cmds [][]string, mutation bool) ([][]string, error) {
	if len(cmds) == 0 {
		return nil, errors.New("tmux: no command")
	}
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	for attempt := 0; ; attempt++ {
		cc, err := s.commandClient(ctx)
		if err != nil {
			return nil, err
		}
		sent := time.Now()
		out, err := s.send(ctx, cc, cmds, mutation)
		if err == nil {
			return out, nil
		}
		var ce *control.CommandError
		switch {
		case cc == nil:
			return out, err
		case errors.As(err, &ce):
			return out, &CommandError{Command: ce.Command, Message: ce.Message}
		case errors.Is(err, control.ErrUnsendable), errors.Is(err, control.ErrUnsupported):
			// Words control mode cannot carry, or commands that would desynchronise it.
			return s.locked(ctx, mutation, cmds, func() ([][]string, error) { return s.spawnList(ctx, cmds) })
		case errors.Is(err, control.ErrClosed):
			s.dropClient(cc)
			if !mutation && attempt == 0 {
				continue
			}
			return nil, fmt.Errorf("tmux connection lost during %s (it may or may not have run): %w", cmds[0][0], err)
		case ctx.Err() != nil:
			if time.Since(sent) >= s.cfg.Timeout {
				// Silent a whole timeout: tmux is stopped, or this client's queue is held (a
				// key binding's prompt, see holdPrompt). A new client is not held by it.
				s.dropClient(cc)
			}
			return nil, s.timeoutError(ctx, cmds)
		default:
			return nil, err
		}
	}
}

// send runs cmds over cc, or spawned when cc is nil.
func (s *Server) send(ctx context.Context, cc *client, cmds [][]string, mutation bool) ([][]string, error) {
	return s.locked(ctx, mutation, cmds, func() ([][]string, error) {
		if cc == nil {
			return s.spawnList(ctx, cmds)
		}
		return cc.conn.Do(ctx, cmds...)
	})
}

// locked runs fn, holding the attach gate shared when it is a mutation that may notify.
func (s *Server) locked(ctx context.Context, mutation bool, cmds [][]string, fn func() ([][]string, error)) ([][]string, error) {
	if !mutation || !notifies(cmds...) {
		return fn()
	}
	if err := s.gate.lockShared(ctx); err != nil {
		return nil, s.timeoutError(ctx, cmds)
	}
	defer s.gate.unlockShared()
	return fn()
}

func (s *Server) timeoutError(ctx context.Context, cmds [][]string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		if s.cfg.Host != nil {
			return fmt.Errorf("%s on host %q (%s): %w", cmds[0][0], s.cfg.Host.Name, s.cfg.Host.Destination, ErrTimeout)
		}
		return fmt.Errorf("%s: %w", cmds[0][0], ErrTimeout)
	}
	return ctx.Err()
}

// Identity returns the daemon's identity, asking tmux when no connection knows it.
func (s *Server) Identity(ctx context.Context) (Identity, error) {
	cc, err := s.commandClient(ctx)
	if err != nil {
		return Identity{}, err
	}
	if cc != nil {
		return cc.ident, nil
	}
	out, err := s.Query(ctx, []string{"display-message", "-p", identityFormat})
	if err != nil {
		return Identity{}, err
	}
	return s.parseIdentity(out[0])
}

func (s *Server) parseIdentity(lines []string) (Identity, error) {
	id := Identity{Host: s.HostName()}
	if len(lines) == 0 {
		return id, errors.New("tmux gave no identity")
	}
	f := strings.SplitN(lines[0], " ", 3)
	if len(f) != 3 {
		return id, fmt.Errorf("tmux identity %q: want pid, start time and socket", lines[0])
	}
	var err1, err2 error
	id.PID, err1 = strconv.Atoi(f[0])
	id.StartTime, err2 = strconv.ParseInt(f[1], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return id, fmt.Errorf("tmux identity %q: %w", lines[0], err)
	}
	id.SocketPath = f[2]
	return id, nil
}

// Close ends the server's connections and streams, and returns once every control client
// this handle started has been detached, has ended and has been reaped (killed if it did not
// end in time), whoever held it: the command client, pane streams, topology watches. A client
// left running when the process exits (its reaping was a goroutine's, which the exit cut
// short) could stay attached, following a pane that printed; tmux then never finished
// kill-server and refused new clients until it was killed by hand. Clients that an attach in
// flight starts after Close are ended at once. The tmux server itself keeps running.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	cc, hub := s.cc, s.hub
	s.cc, s.hub = nil, nil
	s.mu.Unlock()
	if cc != nil {
		cc.close()
	}
	if hub != nil {
		hub.Close()
	}
	s.procsMu.Lock()
	s.procsClosed = true
	left := make([]*client, 0, len(s.procs))
	for c := range s.procs {
		left = append(left, c)
	}
	s.procsMu.Unlock()
	var wg sync.WaitGroup
	for _, c := range left {
		wg.Go(c.close)
	}
	wg.Wait()
}

func (s *Server) untrack(c *client) {
	s.procsMu.Lock()
	delete(s.procs, c)
	s.procsMu.Unlock()
}
