package server

import (
	"context"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/internal/echo"
	"github.com/tmux-mcp/tmux-mcp/runner"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// state is the per-process bookkeeping shared by the tools: the runs (which also hold the
// panes they run in), and the private buffers this server created.
type state struct {
	mu      sync.Mutex
	buffers map[*tmux.Server]map[string]bool
	runs    *runner.Runner // run_shell_command and run_command: reservations, records, scripts

	echo     echo.Store[paneKey] // what the input tools typed, so wait_for_text skips its echo (internal/echo)
	channels channelWaits        // wait-for clients listening for wait_for_channel (channels.go)
	marks    waitMarks           // where a wait_for_text without a cursor starts (waitmark.go)
}

// paneKey names a pane on one daemon: a restarted server reuses pane ids.
type paneKey = runner.Key

func newState() *state {
	return &state{buffers: map[*tmux.Server]map[string]bool{}, runs: runner.New()}
}

// busyHint says what to do about a pane reserved by an unfinished run.
const busyHint = "Wait for it to end with wait_for_run, or interrupt it with send_keys keys=\"C-c\" enter=false; to answer a question it asks, pass to_running_command=true to send_keys or paste_text."

// holder returns what reserves the pane, if anything.
func (st *state) holder(k paneKey) (string, bool) { return st.runs.Holder(k) }

// holderAfterEnd is holder once a run about to end had a moment to (runner.Ending).
func (st *state) holderAfterEnd(ctx context.Context, k paneKey) (string, bool) {
	return st.runs.HolderAfter(ctx, k, runner.Ending)
}

func (st *state) addBuffer(ts *tmux.Server, name string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.buffers[ts] == nil {
		st.buffers[ts] = map[string]bool{}
	}
	st.buffers[ts][name] = true
}

func (st *state) removeBuffer(ts *tmux.Server, name string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.buffers[ts], name)
}

// cleanup deletes every private buffer this server created.
func (st *state) cleanup(ctx context.Context, s *Server) {
	st.channels.closeAll()
	st.mu.Lock()
	bufs := st.buffers
	st.buffers = map[*tmux.Server]map[string]bool{}
	st.mu.Unlock()
	st.runs.Close()
	for ts, names := range bufs {
		for name := range names {
			_ = ts.Do(ctx, &tmux.DeleteBuffer{Buffer: name})
		}
	}
}
