package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/control"
)

// retryAttachAfter spaces out attach attempts while the server has no session to attach to, so
// that every request does not pay for a failed attach. On another host, it is also how long a
// slow failure to reach it (slowHostFailure) is remembered: requests queued behind the attach
// get its error at once rather than each waiting out ssh's connect timeout again. The error
// says it was remembered (HostError.Age), and the first call after it asks the host again, so
// a host that comes back is reached within that second.
const retryAttachAfter = time.Second

// slowHostFailure is how long a failed attempt to reach a host must have taken to be
// remembered. A refused connection or key is known within milliseconds and never remembered.
const slowHostFailure = 500 * time.Millisecond

// quietFlags are the client flags of the control clients that never take pane output (the
// command client, topology watches). They are given to attach-session -f, never set later by
// refresh-client -f: in tmux 3.3a, turning no-output on frees the client's pane records but
// leaves their pending %output blocks queued, and every later line (replies, notifications)
// waits behind the first of them for good: a client attached to a session whose pane was
// printing would never answer again (create_session "did not answer in time").
const quietFlags = "no-output,ignore-size"

// client is one control-mode client process and its connection.
type client struct {
	cmd     *exec.Cmd
	conn    *control.Conn
	stderr  *tailBuffer
	ident   Identity
	quiet   bool // attached with quietFlags
	gate    *attachGate
	pid     atomic.Int64  // #{client_pid}; the process's pid until the attach says
	closing atomic.Bool   // we ended it: tmux is detaching it
	exited  chan struct{} // closed once the process is reaped
	waitErr error         // the process's exit, once exited is closed
	once    sync.Once
}

// dialSpec says which control client to attach.
type dialSpec struct {
	target string // session to attach to; "" means the oldest (lowest id) session
	quiet  bool   // attach with quietFlags
	opts   control.Options
}

// dial starts `tmux -u -N -C attach [-f flags] [-t target]` and wraps it in a control
// connection. -N keeps the attach from ever starting a server. The attach holds the socket's
// attachGate until tmux has attached the client and answered its first exchange, which proves
// the attach worked, names the daemon and the pid tmux knows the client by (a wrapper given as
// the binary may have forked it).
func (s *Server) dial(ctx context.Context, spec dialSpec) (*client, error) {
	if err := s.gate.lockExclusive(ctx); err != nil {
		return nil, fmt.Errorf("attaching a control client: %w", ErrTimeout)
	}
	if spec.target == "" {
		ids, err := s.settle(ctx, true)
		if err != nil {
			s.gate.unlockExclusive()
			return nil, err
		}
		spec.target = oldestSession(ids)
	} else if _, err := s.settle(ctx, false); err != nil {
		s.gate.unlockExclusive()
		return nil, err
	}
	c, err := s.start(spec)
	var out [][]string
	if err == nil {
		// Held until tmux has attached the client (see control.Conn.Do).
		out, err = c.conn.Do(ctx, []string{"display-message", "-p", identityFormat},
			[]string{"display-message", "-p", "#{client_pid}"})
	}
	s.gate.unlockExclusive()
	if c == nil {
		return nil, err
	}
	if err == nil {
		c.ident, err = s.parseIdentity(out[0])
	}
	if err != nil {
		c.close()
		return nil, s.attachError(ctx, c, err)
	}
	if pid, err := strconv.Atoi(strings.Join(out[1], "")); err == nil {
		c.pid.Store(int64(pid))
	}
	return c, nil
}

// attachError explains a failed attach: no server, the host or its tmux (processError), the
// deadline, or tmux's own message. c has exited.
func (s *Server) attachError(ctx context.Context, c *client, err error) error {
	stderr := c.stderr.String()
	switch {
	case isNoServer(stderr):
		return ErrServerNotRunning
	case ctx.Err() != nil && s.cfg.Host != nil:
		return fmt.Errorf("attaching a control client on host %q (%s): %w", s.cfg.Host.Name, s.cfg.Host.Destination, ErrTimeout)
	case ctx.Err() != nil:
		return fmt.Errorf("attaching a control client: %w", ErrTimeout)
	}
	if c.waitErr != nil {
		if perr := s.processError(c.waitErr, stderr); perr != nil {
			return perr
		}
	}
	return fmt.Errorf("attaching a control client: %w", err)
}

// start runs the attach process and registers it with the gate.
func (s *Server) start(spec dialSpec) (*client, error) {
	args := []string{"-N", "-C", "attach-session"}
	if spec.quiet {
		args = append(args, "-f", quietFlags)
	}
	if spec.target != "" {
		args = append(args, "-t", spec.target)
	}
	cmd, err := s.command(nil, args...)
	if err != nil {
		return nil, err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c := &client{cmd: cmd, stderr: &tailBuffer{max: 64 << 10}, quiet: spec.quiet, gate: s.gate, exited: make(chan struct{})}
	cmd.Stderr = c.stderr
	// Started and recorded under procsMu, so that Close, which reaps what it finds recorded,
	// either finds it or is seen to have run.
	s.procsMu.Lock()
	if s.procsClosed {
		s.procsMu.Unlock()
		stdin.Close()
		stdout.Close()
		return nil, ErrClosed
	}
	if err := cmd.Start(); err != nil {
		s.procsMu.Unlock()
		return nil, s.processError(err, "")
	}
	c.pid.Store(int64(cmd.Process.Pid))
	c.conn = control.NewConn(stdout, &clientStdin{WriteCloser: stdin, c: c}, spec.opts)
	if s.procs == nil {
		s.procs = map[*client]struct{}{}
	}
	s.procs[c] = struct{}{}
	s.procsMu.Unlock()
	s.gate.add(c)
	go func() {
		<-c.conn.Done()
		c.close()
		s.untrack(c)
	}()
	return c, nil
}

// oldestSession returns the session with the lowest id, or "" for tmux's choice. The command
// client attaches there rather than to the most recent session (tmux's default), which is the
// one an agent is most likely to kill next: every kill of it would detach the client and the
// next request would attach a new one.
func oldestSession(ids []string) string {
	best, bestN := "", -1
	for _, id := range ids {
		if !ValidSessionID(id) {
			continue
		}
		if n, err := strconv.Atoi(id[1:]); err == nil && (bestN < 0 || n < bestN) {
			best, bestN = id, n
		}
	}
	return best
}

// clientStdin is a control client's stdin. Closing it makes tmux detach the client, which
// sends %client-detached to every control client: it waits for the gate, unless the client is
// already leaving on its own (its output ended).
type clientStdin struct {
	io.WriteCloser
	c *client
}

// closeGateWait bounds how long a close waits for an attach to finish identifying.
const closeGateWait = 5 * time.Second

func (w *clientStdin) Close() error {
	select {
	case <-w.c.conn.Done():
		return w.WriteCloser.Close()
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeGateWait)
	defer cancel()
	err := w.c.gate.lockShared(ctx)
	w.c.closing.Store(true)
	cerr := w.WriteCloser.Close()
	if err == nil {
		w.c.gate.unlockShared()
	}
	return cerr
}

func (c *client) close() {
	c.once.Do(func() {
		c.conn.Close()
		done := make(chan struct{})
		go func() { c.waitErr = c.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(500 * time.Millisecond):
			c.cmd.Process.Kill()
			<-done
		}
		close(c.exited)
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

// leaving reports whether the client is on its way out: closed by us or its output ended.
func (c *client) leaving() bool { return c.closing.Load() || !c.alive() }

func (c *client) hasExited() bool {
	select {
	case <-c.exited:
		return true
	default:
		return false
	}
}

// commandClient returns the live command connection, opening one when possible, or nil when
// the request must be spawned (no server, no session yet). It fails only when the host cannot
// be reached (a HostError): spawning would only try again, and take as long.
func (s *Server) commandClient(ctx context.Context) (*client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil
	}
	if s.cc != nil && s.cc.alive() {
		return s.cc, nil
	}
	s.cc = nil
	if now := time.Now(); now.Before(s.noConnUntil) {
		if s.connErr != nil {
			return nil, s.connErr.remembered(now.Sub(s.connAt), s.noConnUntil.Sub(now))
		}
		return nil, nil
	}
	// The attach holds s.mu, so it is bounded whatever the caller's context says: a stopped
	// tmux must not hold every other request behind it.
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	// The command client never receives pane output and never sizes windows.
	began := time.Now()
	cc, err := s.dial(ctx, dialSpec{quiet: true})
	if err != nil {
		s.connErr = nil
		s.noConnUntil = time.Now().Add(retryAttachAfter)
		var he *HostError
		if !errors.As(err, &he) {
			return nil, nil // no session to attach to yet: requests are spawned meanwhile
		}
		if time.Since(began) < slowHostFailure {
			// Quick to find out (refused, key refused): the next call asks the host again, so
			// a host that is back is reached at once.
			s.noConnUntil = time.Time{}
			return nil, err
		}
		s.connErr, s.connAt = he, time.Now()
		return nil, err
	}
	s.connErr = nil
	holdPrompt(ctx, cc)
	if s.ident != (Identity{}) && s.ident != cc.ident && s.hub != nil && s.hubIdent != cc.ident {
		// A new daemon: every stream of the old one is void. (Streams the hub already opened
		// on the new daemon, while commands went through spawned processes, stay.)
		s.hub.Close()
		s.hub = nil
	}
	s.ident = cc.ident
	s.cc = cc
	return cc, nil
}

// holdPrompt opens a prompt on the command client that nothing ever answers. Keys sent to a
// pane in copy mode run the mode's key bindings on behalf of the client that sent them, and
// several default ones (copy mode's g, /, ?, :, f, t) run command-prompt, which since tmux 3.3
// holds the client's command queue until its prompt is answered: no control client can answer
// one, so every later request on the connection would wait for good. command-prompt returns at
// once on a client that already shows a prompt. Best effort: tmux before 3.3 has no -b (and no
// wait); a binding that replaces the prompt (confirm-before) is what Server.run's drop of a
// client silent for a whole timeout is for.
func holdPrompt(ctx context.Context, cc *client) {
	cc.conn.Do(ctx, []string{"command-prompt", "-b", "-p", "", ""})
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
