package tmux

import (
	"cmp"
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/ssh"
)

// settleTimeout bounds how long an attach waits for our leaving clients to be gone; past it the
// attach goes ahead (a client that does not exit is not leaving after all).
const settleTimeout = 2 * time.Second

// settle runs with the gate held exclusively, before an attach: it waits until every control
// client of ours that is leaving has exited, then asks tmux which clients it still has (a
// request on any connection, answered after tmux processed the exits, whose %client-detached
// has then gone out), and forgets those. A client tmux no longer lists while its process runs
// was detached by tmux (its session was destroyed): its exit is waited for too. With
// wantSessions it also returns the session ids, for an attach that picks its session. It fails
// only when the host cannot be reached (a HostError): the attach would fail the same way.
func (s *Server) settle(ctx context.Context, wantSessions bool) ([]string, error) {
	timeout := settleTimeout
	if s.cfg.Host != nil {
		// The probe may be what connects to the host.
		timeout += cmp.Or(s.cfg.Host.ConnectTimeout, ssh.DefaultConnectTimeout)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var sessions []string
	for round := 0; round < 4; round++ {
		cs := s.gate.snapshot()
		if len(cs) == 0 && !wantSessions {
			return nil, nil
		}
		for _, c := range cs {
			if c.leaving() {
				waitClosed(ctx, c.exited)
			}
		}
		exited := make(map[*client]bool, len(cs))
		var gone []*client
		for _, c := range cs {
			if c.hasExited() {
				exited[c] = true
				gone = append(gone, c)
			}
		}
		pids, ids, err := s.probe(ctx, cs, exited)
		sessions = ids
		if he := (*HostError)(nil); errors.As(err, &he) {
			return nil, err
		}
		if err != nil {
			return sessions, nil // tmux did not answer: the attach will find out why
		}
		s.gate.forget(gone)
		var silent []*client
		for _, c := range cs {
			if !exited[c] && !pids[int(c.pid.Load())] {
				silent = append(silent, c)
			}
		}
		if len(silent) == 0 {
			return sessions, nil
		}
		for _, c := range silent {
			waitClosed(ctx, c.exited)
		}
	}
	return sessions, nil
}

func waitClosed(ctx context.Context, ch <-chan struct{}) {
	select {
	case <-ch:
	case <-ctx.Done():
	}
}

// probe lists the pids of tmux's attached clients (when we have clients) and the session ids,
// in one round trip over a live quiet client of ours when there is one (~0.1 ms), else through
// spawned tmux processes.
func (s *Server) probe(ctx context.Context, cs []*client, exited map[*client]bool) (map[int]bool, []string, error) {
	cmds := [][]string{{"list-sessions", "-F", "#{session_id}"}}
	if len(cs) > 0 {
		cmds = append(cmds, []string{"list-clients", "-F", "#{client_pid}"})
	}
	var out [][]string
	err := errNoProbe
	for _, c := range cs {
		if c.quiet && !exited[c] && !c.leaving() {
			out, err = c.conn.Do(ctx, cmds...)
			break
		}
	}
	if err != nil {
		out, err = s.spawnList(ctx, cmds)
	}
	if err != nil {
		return nil, nil, err
	}
	pids := map[int]bool{}
	if len(out) > 1 {
		for _, l := range out[1] {
			if n, err := strconv.Atoi(l); err == nil {
				pids[n] = true
			}
		}
	}
	return pids, out[0], nil
}

var errNoProbe = errors.New("no connection to probe with")
