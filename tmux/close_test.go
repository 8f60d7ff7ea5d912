package tmux_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/control"
)

// Close returns once every control client the handle started (commands, pane streams, a
// topology watch) has ended and been reaped, while the pane they follow floods: the process
// may exit right after it.
//
// Each round has a tmux server of its own: tmux 3.3a itself crashes now and then (SIGSEGV in
// control_write, the crash tmux/gate.go describes) when control clients leave a flooding pane
// and others attach right after; this test is about reaping, and a crash left by one round
// would fail the next round's first request.
func TestCloseReapsEveryClient(t *testing.T) {
	for i := range 5 {
		tmx := testtmux.New(t)
		sid, pane := tmx.NewSession("flood")
		tmx.Tmux("respawn-pane", "-k", "-t", pane, "yes tmux-close-flood-0123456789")
		ts := tmux.NewServer(tmux.Config{SocketPath: tmx.Socket, Env: tmx.Env})
		ctx := context.Background()
		if _, err := ts.Query(ctx, []string{"list-sessions"}); err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		_, err := ts.WatchPane(ctx, pane)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ts.WatchSessionTopology(ctx, sid, func(control.Notification) {}); err != nil {
			t.Fatal(err)
		}
		var pids []int
		for _, f := range strings.Fields(tmx.Tmux("list-clients", "-F", "#{client_pid}")) {
			pid, _ := strconv.Atoi(f)
			pids = append(pids, pid)
		}
		if len(pids) != 3 {
			t.Fatalf("clients %v, want three (commands, stream, topology)", pids)
		}
		ts.Close()
		for _, pid := range pids {
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("client %d still exists (running or not reaped) after Close: %v", pid, err)
			}
		}
		if _, err := ts.WatchPane(ctx, pane); err == nil {
			t.Error("a closed handle started a stream")
		}
	}
}
