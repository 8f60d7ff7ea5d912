package tmux

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/control"
)

// retryAttachAfter spaces out attach attempts while the server has no session to attach to, so
// that every request does not pay for a failed attach.
const retryAttachAfter = time.Second

// client is one control-mode client process and its connection.
type client struct {
	cmd    *exec.Cmd
	conn   *control.Conn
	stderr *tailBuffer
	ident  Identity
	once   sync.Once
}

// dial starts `tmux -N -C attach [-t target]` and wraps it in a control connection. -N keeps
// the attach from ever starting a server.
func (s *Server) dial(ctx context.Context, target string, opts control.Options) (*client, error) {
	args := append(s.SocketArgs(), "-N", "-C", "attach-session")
	if target != "" {
		args = append(args, "-t", target)
	}
	cmd := exec.Command(s.cfg.Bin, args...)
	cmd.Env = s.cfg.env()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr := &tailBuffer{max: 64 << 10}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoTmux, err)
	}
	c := &client{cmd: cmd, stderr: stderr}
	c.conn = control.NewConn(stdout, stdin, opts)
	go func() {
		<-c.conn.Done()
		c.close()
	}()
	// The first exchange proves the attach worked and names the daemon.
	out, err := c.conn.Do(ctx, []string{"display-message", "-p", identityFormat})
	if err != nil {
		c.close()
		if msg := stderr.String(); isNoServer(msg) {
			return nil, ErrServerNotRunning
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("attaching a control client: %w", ErrTimeout)
		}
		return nil, fmt.Errorf("attaching a control client: %w", err)
	}
	if c.ident, err = parseIdentity(out[0]); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

func (c *client) close() {
	c.once.Do(func() {
		c.conn.Close()
		done := make(chan struct{})
		go func() { c.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(500 * time.Millisecond):
			c.cmd.Process.Kill()
			<-done
		}
	})
}

func (c *client) alive() bool {
	select {
	case <-c.conn.Done():
		return false
	default:
		return true
	}
}

// commandClient returns the live command connection, opening one when possible, or nil when
// the request must be spawned (no server, no session yet).
func (s *Server) commandClient(ctx context.Context) *client {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	if s.cc != nil && s.cc.alive() {
		return s.cc
	}
	s.cc = nil
	if time.Now().Before(s.noConnUntil) {
		return nil
	}
	// The attach holds s.mu, so it is bounded whatever the caller's context says: a stopped
	// tmux must not hold every other request behind it.
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	cc, err := s.dial(ctx, "", control.Options{})
	if err != nil {
		s.noConnUntil = time.Now().Add(retryAttachAfter)
		return nil
	}
	// The command client never receives pane output and never sizes windows.
	if _, err := cc.conn.Do(ctx, []string{"refresh-client", "-f", "no-output,ignore-size"}); err != nil {
		cc.close()
		s.noConnUntil = time.Now().Add(retryAttachAfter)
		return nil
	}
	if s.ident != (Identity{}) && s.ident != cc.ident && s.hub != nil && s.hubIdent != cc.ident {
		// A new daemon: every stream of the old one is void. (Streams the hub already opened
		// on the new daemon, while commands went through spawned processes, stay.)
		s.hub.Close()
		s.hub = nil
	}
	s.ident = cc.ident
	s.cc = cc
	return cc
}

func (s *Server) dropClient(cc *client) {
	s.mu.Lock()
	if s.cc == cc {
		s.cc = nil
	}
	s.mu.Unlock()
	cc.close()
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if over := t.buf.Len() - t.max; over > 0 {
		t.buf.Next(over)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}

var _ io.Writer = (*tailBuffer)(nil)
