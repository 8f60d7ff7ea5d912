package tmux

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	tmuxformat "github.com/tmux-mcp/tmux-mcp/tmux/format"
)

// ServerStatus describes one tmux server: whether it runs, and what it holds.
type ServerStatus struct {
	Alive      bool
	SocketName string // tmux -L name ("default" for the default socket, the file's name in a listing)
	SocketPath string // as the daemon reports it, else where the handle looks for it ("" on another host without -S)
	Version    string // the daemon's, else (on this machine) the binary's
	PID        int
	Sessions   int
	Windows    int
	Panes      int
	// AttachedClients counts terminal clients; control-mode clients (this one's too) never count.
	AttachedClients int
}

// statusFormat asks the daemon its pid, version and socket; the socket goes last because it
// may hold spaces.
const statusFormat = "#{pid} #{version} #{socket_path}"

// Status describes the server, never starting one: a server that does not answer on this
// machine is simply not alive. It fails only when its host cannot be reached (a *HostError).
func (s *Server) Status(ctx context.Context) (ServerStatus, error) {
	st := ServerStatus{SocketName: s.cfg.SocketName, SocketPath: s.SocketPath()}
	if st.SocketName == "" && s.cfg.SocketPath == "" {
		st.SocketName = "default"
	}
	out, err := s.Query(ctx, []string{"display-message", "-p", statusFormat})
	if he := (*HostError)(nil); errors.As(err, &he) {
		return st, err
	}
	if err != nil || len(out[0]) == 0 {
		if s.Local() {
			st.Version, _ = BinaryVersion(ctx, s.cfg.Bin, s.cfg.env())
		}
		return st, nil
	}
	if f := strings.SplitN(out[0][0], " ", 3); len(f) == 3 {
		st.PID, _ = strconv.Atoi(f[0])
		st.Version, st.SocketPath = f[1], f[2]
	}
	snap, err := s.Snapshot(ctx, WithAll)
	if err != nil {
		return st, nil
	}
	st.Alive = true
	st.Sessions, st.Windows, st.Panes = len(snap.Sessions), len(snap.Windows), len(snap.Panes)
	for _, cl := range snap.Clients {
		if cl.Person() {
			st.AttachedClients++
		}
	}
	return st, nil
}

// BinaryVersion runs bin -V in env (nil: this process's): the version of the tmux binary, or
// the error (with what tmux printed) of a binary that cannot run there, e.g. one that finds
// no UTF-8 locale.
func BinaryVersion(ctx context.Context, bin string, env []string) (string, error) {
	cmd := exec.CommandContext(ctx, cmdName(bin, "tmux"), "-u", "-V")
	cmd.Env = env
	b, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%v: %s", err, strings.TrimSpace(string(b)))
	}
	return strings.TrimPrefix(strings.TrimSpace(string(b)), "tmux "), nil
}

// Servers lists the live tmux servers on the handle's machine: those whose sockets are in its
// user's socket directory (see SocketNames) by name, then, on this machine, those at extra
// socket paths. Each is asked for its Status with its own handle (timeout: a second on this
// machine); a stale socket is left out. On another host the servers listed before it failed
// are returned with the error.
func (s *Server) Servers(ctx context.Context, extra ...string) ([]ServerStatus, error) {
	names, err := s.SocketNames(ctx)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	cfgs := make([]Config, 0, len(names)+len(extra))
	for _, name := range names {
		cfg := s.cfg
		cfg.SocketName, cfg.SocketPath = name, ""
		if s.Local() {
			cfg.SocketName, cfg.SocketPath = "", filepath.Join(s.socketDir(), name)
		}
		cfgs = append(cfgs, cfg)
	}
	for _, p := range extra {
		cfg := s.cfg
		cfg.SocketName, cfg.SocketPath = "", p
		cfgs = append(cfgs, cfg)
	}
	var out []ServerStatus
	for _, cfg := range cfgs {
		if s.Local() {
			if !answers(cfg.SocketPath) {
				continue
			}
			cfg.Timeout = time.Second
		}
		ts := NewServer(cfg)
		st, err := ts.Status(ctx)
		ts.Close()
		if err != nil {
			return out, err
		}
		if cfg.SocketPath != "" {
			st.SocketName = filepath.Base(cfg.SocketPath)
		}
		if st.Alive {
			out = append(out, st)
		}
	}
	return out, nil
}

// socketDir is the directory of this machine's sockets of the configured environment.
func (s *Server) socketDir() string {
	cfg := s.cfg
	cfg.SocketPath, cfg.SocketName = "", "default"
	return filepath.Dir(cfg.socketPath())
}

// answers reports whether something listens on the socket at path (a stale socket file does
// not), without asking tmux.
func answers(path string) bool {
	conn, err := net.DialTimeout("unix", path, 100*time.Millisecond)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// Echo has tmux print text back (display-message -p), over the command connection: what
// comes back is what every name, title and pane text goes through.
func (s *Server) Echo(ctx context.Context, text string) ([]string, error) {
	out, err := s.Query(ctx, []string{"display-message", "-p", tmuxformat.Escape(text)})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// EchoSpawned is Echo through a tmux process of its own (the path a command takes when
// control mode cannot carry it).
func (s *Server) EchoSpawned(ctx context.Context, text string) ([]string, error) {
	return s.Spawn(ctx, nil, "display-message", "-p", tmuxformat.Escape(text))
}
