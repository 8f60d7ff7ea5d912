package server

import (
	"context"
	"fmt"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/runner"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// state is the per-process bookkeeping shared by the tools: pane reservations of unfinished
// runs, and the private buffers this server created.
type state struct {
	mu       sync.Mutex
	reserved map[paneKey]string // pane -> what holds it (e.g. `run_shell_command "make"`)
	buffers  map[*tmux.Server]map[string]bool
	runs     *runner.Runner // run_shell_command and run_command: the wrapper scripts' directory

	echo     echoStore    // what the input tools typed, so wait_for_text skips its echo (echo.go)
	channels channelWaits // wait-for clients listening for wait_for_channel (channels.go)
}

// paneKey names a pane on one daemon: a restarted server reuses pane ids.
type paneKey struct {
	daemon tmux.Identity
	pane   string
}

func newState() *state {
	return &state{reserved: map[paneKey]string{}, buffers: map[*tmux.Server]map[string]bool{}, runs: runner.New()}
}

// busyHint says what to do about a pane reserved by an unfinished run.
const busyHint = "Wait for it with wait_for_text, or interrupt it with send_keys keys=\"C-c\" enter=false, then try again."

// reserve takes a pane for a run; it fails naming the holder when the pane is taken.
func (st *state) reserve(k paneKey, holder string) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if h, ok := st.reserved[k]; ok {
		return fail(busyHint,
			"pane %s is busy: %s is still running in it", k.pane, h)
	}
	st.reserved[k] = holder
	return nil
}

func (st *state) release(k paneKey) {
	st.mu.Lock()
	delete(st.reserved, k)
	st.mu.Unlock()
}

// holder returns what reserves the pane, if anything.
func (st *state) holder(k paneKey) (string, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	h, ok := st.reserved[k]
	return h, ok
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
			ts.Exec(ctx, []string{"delete-buffer", "-b", name})
		}
	}
}

func (k paneKey) String() string { return fmt.Sprintf("%s@%d", k.pane, k.daemon.PID) }
