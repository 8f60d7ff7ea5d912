package runner

import (
	"context"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// A run on another host leaves its files there; removing them costs an ssh session, a process
// of its own on each side, which would cost more than a short run itself. A sweeper gathers them per host and removes them in
// one session once runs pause for sweepDelay, or once sweepMax are waiting; Close removes
// whatever is left with the host's script directory.
type sweeper struct {
	mu    sync.Mutex
	hosts map[string]*sweep
}

type sweep struct {
	ts    *tmux.Server
	paths []string
	timer *time.Timer
}

var (
	sweepDelay = 2 * time.Second
	sweepMax   = 256
)

// later queues paths on ts's host for removal.
func (s *sweeper) later(ts *tmux.Server, paths ...string) {
	host := ts.HostName()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hosts == nil {
		s.hosts = map[string]*sweep{}
	}
	w := s.hosts[host]
	if w == nil {
		w = &sweep{ts: ts}
		w.timer = time.AfterFunc(sweepDelay, func() { s.flush(host) })
		s.hosts[host] = w
	}
	w.paths = append(w.paths, paths...)
	if len(w.paths) >= sweepMax {
		w.timer.Stop()
		go s.flush(host)
		return
	}
	w.timer.Reset(sweepDelay)
}

// flush removes what waits on host, in one ssh session.
func (s *sweeper) flush(host string) {
	s.mu.Lock()
	w := s.hosts[host]
	delete(s.hosts, host)
	s.mu.Unlock()
	if w == nil || len(w.paths) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w.ts.RemoveAll(ctx, w.paths...)
}

// stop drops what waits: the script directories it is in are removed whole.
func (s *sweeper) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range s.hosts {
		w.timer.Stop()
	}
	s.hosts = nil
}
