package tmux_test

import (
	"context"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/control"
)

// A control client that attaches to a session whose pane is printing, then turns its output
// off with refresh-client -f no-output, is wedged for good in tmux 3.3a: the
// flag frees the client's pane records but leaves their pending output blocks queued, and every
// later line (replies, notifications) waits behind the first of them. The engine's command
// client and topology watches must therefore be answered while a pane floods their session.
func TestClientsAttachToFloodingSession(t *testing.T) {
	tmx := testtmux.New(t)
	_, pane := tmx.NewSession("flood")
	tmx.Tmux("send-keys", "-t", pane, "yes 0123456789abcdef0123456789abcdef", "Enter")
	tmx.WaitFor(pane, func(s string) bool { return len(s) > 200 })
	for i := 0; i < 20; i++ {
		ts := tmux.NewServer(tmux.Config{SocketPath: tmx.Socket, Env: tmx.Env, Timeout: 2 * time.Second})
		ctx := context.Background()
		if _, err := ts.Query(ctx, []string{"list-sessions"}); err != nil {
			t.Fatalf("turn %d: command client on a flooding session: %v", i, err)
		}
		tw, err := ts.WatchTopology(ctx, func(control.Notification) {})
		if err != nil {
			t.Fatalf("turn %d: topology watch on a flooding session: %v", i, err)
		}
		tw.Close()
		ts.Close()
	}
	tmx.Tmux("send-keys", "-t", pane, "C-c", "")
}
