package tmux

import (
	"context"
	"strconv"
	"time"
)

// settleTimeout bounds how long an attach waits for our leaving clients to be gone; past it the
// attach goes ahead (a client that does not exit is not leaving after all).
const settleTimeout = 2 * time.Second

// settle runs with the gate held exclusively, before an attach: it waits until every control
// client of ours that is leaving has exited, then asks tmux which clients it still has (a
// request on any connection, answered after tmux processed the exits, whose %client-detached
// has then gone out), and forgets those. A client tmux no longer lists while its process runs
// was detached by tmux (its session was destroyed): its exit is waited for too. With
// wantSessions it also returns the session ids, for an attach that picks its session.
func (s *Server) settle(ctx context.Context, wantSessions bool) []string {
	ctx, cancel := context.WithTimeout(ctx, settleTimeout)
	defer cancel()
	var sessions []string
	for round := 0; round < 4; round++ {
		cs := s.gate.snapshot()
		if len(cs) == 0 && !wantSessions {
			return nil
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
		if err != nil {
			return sessions // tmux did not answer: the attach will find out why
		}
		s.gate.forget(gone)
		var silent []*client
		for _, c := range cs {
			if !exited[c] && !pids[c.cmd.Process.Pid] {
				silent = append(silent, c)
			}
		}
		if len(silent) == 0 {
			return sessions
		}
		for _, c := range silent {
			waitClosed(ctx, c.exited)
		}
	}
	return sessions
}

func waitClosed(ctx context.Context, ch <-chan struct{}) {
	select {
	case <-ch:
	case <-ctx.Done():
	}
}

// probe lists the pids of tmux's attached clients and the session ids, over a live quiet
// client of ours when there is one (a round trip of ~0.1 ms), else a spawned tmux.
func (s *Server) probe(ctx context.Context, cs []*client, exited map[*client]bool) (map[int]bool, []string, error) {
	cmds := [][]string{{"list-clients", "-F", "#{client_pid}"}, {"list-sessions", "-F", "#{session_id}"}}
	var out [][]string
	var err error
	var via *client
	for _, c := range cs {
		if c.quiet && !exited[c] && !c.leaving() {
			via = c
			break
		}
	}
	if via != nil {
		out, err = via.conn.Do(ctx, cmds...)
	}
	if via == nil || err != nil {
		out, err = s.spawnList(ctx, cmds)
	}
	if err != nil {
		return nil, nil, err
	}
	pids := make(map[int]bool, len(out[0]))
	for _, l := range out[0] {
		if n, err := strconv.Atoi(l); err == nil {
			pids[n] = true
		}
	}
	return pids, out[1], nil
}
