package server

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// The logger names of tmux-mcp's notifications/message, by what they are about.
const (
	logTmux = "tmux" // a tmux server
	logRun  = "run"  // a run of run_command/run_command_async
	logHost = "host" // a configured remote host
)

// log sends a notifications/message to the client of the call, at level, when the client asked
// for that level: by logging/setLevel, or, on 2026-07-28, by this request's own logLevel (the
// go-sdk reads it from ctx; a request that carried none gets none).
func (c *Call) log(ctx context.Context, level mcp.LoggingLevel, logger, msg string) {
	if c.req == nil || c.req.Session == nil {
		return
	}
	c.req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: level, Logger: logger, Data: msg})
}

// notify tells the caller (as log does) and every other client (as broadcast does) of news that
// concerns more than the call: a run another client may be waiting on.
func (c *Call) notify(ctx context.Context, level mcp.LoggingLevel, logger, msg string) {
	var self *mcp.ServerSession
	if c.req != nil {
		self = c.req.Session
	}
	c.log(ctx, level, logger, msg)
	c.srv.broadcastExcept(self, level, logger, msg)
}

// broadcast sends a notifications/message to every client whose session asked for level by
// logging/setLevel: news that is no request's (a tmux server went away, a run another call
// waits on ended). A 2026-07-28 client gets none: it sets its level per request, and this
// answers none. It never waits: the messages go out in the background, to every client at
// once, so that one client's full pipe holds up neither the caller nor the others.
func (s *Server) broadcast(level mcp.LoggingLevel, logger, msg string) {
	s.broadcastExcept(nil, level, logger, msg)
}

// broadcastExcept is broadcast to every client but the session skip's.
func (s *Server) broadcastExcept(skip *mcp.ServerSession, level mcp.LoggingLevel, logger, msg string) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var wg sync.WaitGroup
		for ss := range s.mcp.Sessions() {
			if ss == skip {
				continue
			}
			wg.Go(func() { ss.Log(ctx, &mcp.LoggingMessageParams{Level: level, Logger: logger, Data: msg}) })
		}
		wg.Wait()
	}()
}

// serverGoneNote says that the tmux server of ts, which had panes, no longer runs.
func serverGoneNote(ts *tmux.Server) string {
	where := "socket " + ts.SocketPath()
	if h := ts.HostName(); h != "" {
		where = "host " + h + ", " + where
		if ts.SocketPath() == "" {
			where = "host " + h
		}
	}
	return "The tmux server (" + where + ") is no longer running: its last session ended, or it was killed. Its sessions, panes, runs and subscriptions are gone; list_servers shows the servers that run."
}

// runEndedNote says that the run holding a pane ended unfinished because the pane went.
func runEndedNote(pane, how string) string {
	return "The run in pane " + pane + " ended unfinished: the pane was " + how + ". wait_for_run reports it as pane_died; the command's end was never seen."
}

// hostSeen notes whether a configured host answered, and tells clients when that changed: a
// host that stopped answering, or answers again (its connection was made anew).
func (s *Server) hostSeen(name string, err error) {
	s.mu.Lock()
	if s.hostDown == nil {
		s.hostDown = map[string]bool{}
	}
	was, known := s.hostDown[name]
	s.hostDown[name] = err != nil
	s.mu.Unlock()
	switch {
	case err != nil && !was:
		s.broadcast("warning", logHost, "Host "+name+" does not answer: "+err.Error())
	case err == nil && was && known:
		s.broadcast("notice", logHost, "Host "+name+" answers again: its connection was made anew.")
	}
}
