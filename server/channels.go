package server

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// wait_for_channel runs `tmux wait-for <channel>` as a spawned tmux client (a wait must not
// hold up the shared control connection).
//
// tmux 3.3 keeps the waiter of a killed wait-for client registered: a signal sent while only
// that phantom waits wakes it instead of being latched for the next wait, so it is lost. So a
// wait that times out does not kill its client: the client keeps listening in the background
// (at most channelKeep), and the next wait_for_channel on that channel joins it, or finds that
// it was signalled meanwhile and returns at once, as tmux's own latch would.

// channelKeep bounds how long a timed-out wait keeps listening for the next call.
const channelKeep = 15 * time.Minute

// channelPattern is what a wait-for channel name may be: nothing tmux or a shell would read.
const channelPattern = `^[A-Za-z0-9_.:-]{1,128}$`

type chanKey struct {
	ts      *tmux.Server
	channel string
}

// chanWait is one running `tmux wait-for` client.
type chanWait struct {
	ident  tmux.Identity // the daemon it waits on
	done   chan struct{} // closed when the client exited
	err    error         // its result, set before done is closed
	cancel context.CancelFunc
}

// channelWaits holds the running wait-for clients. The zero value is ready to use.
type channelWaits struct {
	mu     sync.Mutex
	m      map[chanKey]*chanWait
	closed bool
}

// join returns the running wait on ts's channel for daemon id, starting one when there is none.
func (cw *channelWaits) join(ts *tmux.Server, channel string, id tmux.Identity) (*chanWait, error) {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	if cw.closed {
		return nil, errors.New("the server is shutting down")
	}
	k := chanKey{ts, channel}
	if w := cw.m[k]; w != nil {
		if w.ident == id {
			return w, nil
		}
		w.cancel() // a wait on an earlier daemon: void
		delete(cw.m, k)
	}
	ctx, cancel := context.WithTimeout(context.Background(), channelKeep)
	w := &chanWait{ident: id, done: make(chan struct{}), cancel: cancel}
	if cw.m == nil {
		cw.m = map[chanKey]*chanWait{}
	}
	cw.m[k] = w
	go func() {
		err := ts.WaitChannel(ctx, channel)
		if err != nil && ctx.Err() != nil {
			err = fmt.Errorf("stopped listening: %w", ctx.Err())
		}
		w.err = err
		close(w.done)
		cancel()
		cw.mu.Lock()
		// A failed or abandoned client is forgotten at once; a finished one stays until a wait
		// consumes it (that is the latch).
		if err != nil && cw.m[k] == w {
			delete(cw.m, k)
		}
		cw.mu.Unlock()
	}()
	return w, nil
}

// consume forgets w once a wait reported its end.
func (cw *channelWaits) consume(ts *tmux.Server, channel string, w *chanWait) {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	if k := (chanKey{ts, channel}); cw.m[k] == w {
		delete(cw.m, k)
	}
}

// closeAll stops every background wait (the server is shutting down).
func (cw *channelWaits) closeAll() {
	cw.mu.Lock()
	cw.closed = true
	ws := cw.m
	cw.m = nil
	cw.mu.Unlock()
	for _, w := range ws {
		w.cancel()
	}
	for _, w := range ws {
		select {
		case <-w.done:
		case <-time.After(time.Second):
		}
	}
}

type waitChannelIn struct {
	Channel string  `json:"channel"`
	Timeout float64 `json:"timeout,omitempty" jsonschema:"Seconds (clamped)"`
	Socket
}

type waitChannelOut struct {
	Channel          string  `json:"channel"`
	Signalled        bool    `json:"signalled" jsonschema:"true when the channel was signalled; false when the timeout passed first"`
	EffectiveTimeout float64 `json:"effective_timeout" jsonschema:"the timeout used, in seconds, after clamping to the wait ceiling"`
}

const serverGoneHint = "Check the work you were waiting for (list_sessions shows whether a server runs), and wait again."

func waitForChannel(ctx context.Context, c *Call, in *waitChannelIn) (waitChannelOut, error) {
	start := time.Now()
	eff := c.srv.clampWait(seconds(in.Timeout))
	out := waitChannelOut{Channel: in.Channel, EffectiveTimeout: eff.Seconds()}
	ts, err := c.tmuxFor(in.SocketName)
	if err != nil {
		return out, err
	}
	id, err := ts.Identity(ctx)
	if err != nil {
		return out, err
	}
	w, err := c.srv.state.channels.join(ts, in.Channel, id)
	if err != nil {
		return out, err
	}
	timer := time.NewTimer(eff)
	defer timer.Stop()
	var tick <-chan time.Time
	if c.hasProgressToken() {
		tk := time.NewTicker(time.Second)
		defer tk.Stop()
		tick = tk.C
	}
	for {
		select {
		case <-w.done:
			c.srv.state.channels.consume(ts, in.Channel, w)
			if w.err != nil {
				if errors.Is(w.err, tmux.ErrServerNotRunning) {
					return out, fail(serverGoneHint, "the tmux server exited while waiting for channel %q", in.Channel)
				}
				return out, fmt.Errorf("wait-for %s: %w", in.Channel, w.err)
			}
			// tmux also ends waits with success when the server exits (kill-server): make
			// sure the same server is still there. An exiting server has destroyed its
			// sessions before it releases the waits, so it also needs a session.
			if !sameServerAlive(ctx, ts, id) {
				return out, fail(serverGoneHint,
					"wait-for on channel %q returned because the tmux server exited (or was restarted), not because the channel was signalled", in.Channel)
			}
			out.Signalled = true
			return out, nil
		case <-timer.C:
			return out, nil // signalled false; the client keeps listening for the next wait
		case <-ctx.Done():
			return out, ctx.Err()
		case <-tick:
			el := time.Since(start).Seconds()
			c.Progress(ctx, el, eff.Seconds(), fmt.Sprintf("Waiting for channel %s: %.1fs elapsed, %.1fs left", in.Channel, el, max(eff.Seconds()-el, 0)))
		}
	}
}

// sameServerAlive reports whether the daemon id still runs and has a session.
func sameServerAlive(ctx context.Context, ts *tmux.Server, id tmux.Identity) bool {
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	op := &tmux.Alive{Ident: id}
	return ts.Do(pctx, op) == nil && op.Alive
}

type signalChannelIn struct {
	Channel string `json:"channel"`
	Socket
}

type signalChannelOut struct {
	Channel string `json:"channel"`
}

func signalChannel(ctx context.Context, c *Call, in *signalChannelIn) (signalChannelOut, error) {
	ts, err := c.tmuxFor(in.SocketName)
	if err != nil {
		return signalChannelOut{}, err
	}
	if err := ts.Do(ctx, &tmux.SignalChannel{Channel: in.Channel}); err != nil {
		return signalChannelOut{}, err
	}
	return signalChannelOut{Channel: in.Channel}, nil
}
