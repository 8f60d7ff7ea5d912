package tmux

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/tmux/control"
)

// attachGate keeps tmux 3.3a alive while one of our control clients attaches.
//
// tmux 3.3a crashes (SIGSEGV at address 0x20 in control_write) when it sends a control-mode
// notification to a control client that is still identifying itself. A new client's identify
// messages arrive in several reads (each message carrying a file descriptor ends a sendmsg),
// and the first one, MSG_IDENTIFY_FLAGS, already sets CLIENT_CONTROL; control_state is only
// allocated at MSG_IDENTIFY_DONE. The notifications that do not skip session-less clients
// (%session-renamed, %sessions-changed, %session-window-changed, %window-pane-changed,
// %pane-mode-changed, %client-detached) then dereference the NULL control_state. They fire on
// rename-session, new-session, kill-session, selecting windows and panes, copy mode, and when
// any attached client leaves, our own control clients included (tmux/tmux#4980 fixes it in
// tmux; 3.3a stays as it is). Cycles of create, list, rename, read and kill, with our command
// client and per-session topology watches attaching in between, crashed 3.3a within a few
// cycles.
//
// So, per tmux socket and across every Server handle of this process: an attach holds the
// gate exclusively from just before its process starts until tmux has attached it and
// answered (the client is identified by then), and first waits until every control client of
// ours that is leaving has gone and tmux has forgotten it (settle). Every request that may
// change state (Exec, Spawn, SpawnRaw, unless all its commands are silentCommands) and every
// close of one of our control clients holds the gate shared. Waiting attaches go first, so a
// stream of mutations cannot starve them. Events nobody here caused (a shell exiting, another
// tmux client) can still meet an attach; the window is the few microseconds of one identify.
type attachGate struct {
	mu       sync.Mutex
	shared   int           // mutations and closes in flight
	excl     bool          // an attach is identifying
	queued   int           // attaches waiting for the gate
	released chan struct{} // closed (and replaced) whenever the state changes
	clients  map[*client]bool
}

// silentCommands never make tmux 3.3a send a notification to every control client. They need
// not hold the gate, and some of them wait for long (wait-for, run-shell): holding it would
// hold every attach behind them.
var silentCommands = map[string]bool{
	"wait-for": true, "run-shell": true, "has-session": true, "display-message": true,
	"capture-pane": true, "load-buffer": true, "save-buffer": true, "set-buffer": true,
	"show-buffer": true, "delete-buffer": true, "list-buffers": true, "list-clients": true,
	"list-sessions": true, "list-windows": true, "list-panes": true, "show-options": true,
	"show-window-options": true, "show-environment": true, "set-environment": true,
}

// notifies reports whether cmds may make tmux notify every control client: they must hold the
// gate shared.
func notifies(cmds ...[]string) bool {
	for _, c := range cmds {
		if len(c) == 0 || !silentCommands[control.CommandName(c[0])] {
			return true
		}
	}
	return false
}

var (
	gatesMu sync.Mutex
	gates   = map[string]*attachGate{}
)

// gateFor returns the gate of the socket cfg reaches, shared by every Server handle on it.
func gateFor(cfg Config) *attachGate {
	key := cfg.socketKey()
	gatesMu.Lock()
	defer gatesMu.Unlock()
	g := gates[key]
	if g == nil {
		g = &attachGate{released: make(chan struct{}), clients: map[*client]bool{}}
		gates[key] = g
	}
	return g
}

// socketKey names the socket for gateFor: its path with symbolic links resolved, or on another
// host the host and the socket flags. (Two host names for one machine get two gates: the gate
// only orders this process's own clients, and an operator names each machine once.)
func (c Config) socketKey() string {
	if c.Host != nil {
		return "ssh\x00" + c.Host.Name + "\x00" + c.Host.Destination + "\x00" + c.SocketName + "\x00" + c.SocketPath
	}
	p := c.socketPath()
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return p
}

// wait blocks until the state changes or ctx is done; g.mu is held on entry and on return.
func (g *attachGate) wait(ctx context.Context) error {
	ch := g.released
	g.mu.Unlock()
	var err error
	select {
	case <-ch:
	case <-ctx.Done():
		err = ctx.Err()
	}
	g.mu.Lock()
	return err
}

func (g *attachGate) changedLocked() {
	close(g.released)
	g.released = make(chan struct{})
}

// lockShared admits a mutation or a close once no attach identifies or waits.
func (g *attachGate) lockShared(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.excl || g.queued > 0 {
		if err := g.wait(ctx); err != nil {
			return err
		}
	}
	g.shared++
	return nil
}

func (g *attachGate) unlockShared() {
	g.mu.Lock()
	g.shared--
	g.changedLocked()
	g.mu.Unlock()
}

// lockExclusive admits an attach once nothing else holds the gate.
func (g *attachGate) lockExclusive(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.queued++
	defer func() { g.queued-- }()
	for g.excl || g.shared > 0 {
		if err := g.wait(ctx); err != nil {
			g.changedLocked() // shared waiters may go on
			return err
		}
	}
	g.excl = true
	return nil
}

func (g *attachGate) unlockExclusive() {
	g.mu.Lock()
	g.excl = false
	g.changedLocked()
	g.mu.Unlock()
}

func (g *attachGate) add(c *client) {
	g.mu.Lock()
	g.clients[c] = true
	g.mu.Unlock()
}

func (g *attachGate) snapshot() []*client {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]*client, 0, len(g.clients))
	for c := range g.clients {
		out = append(out, c)
	}
	return out
}

// forget drops clients whose departure tmux has processed.
func (g *attachGate) forget(cs []*client) {
	g.mu.Lock()
	for _, c := range cs {
		delete(g.clients, c)
	}
	g.mu.Unlock()
}
