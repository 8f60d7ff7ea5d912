package tmux_test

import (
	"context"
	"errors"
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

// Keys sent to a pane in copy mode run the mode's bindings on behalf of the command client;
// those that open a prompt (emacs g, vi / and :) would hold its queue for good. Each must
// leave the engine answering, in both tables.
func TestKeysInCopyModeLeaveClientAnswering(t *testing.T) {
	tmx := testtmux.New(t)
	_, pane := tmx.NewSession("copy")
	ts := tmux.NewServer(tmux.Config{SocketPath: tmx.Socket, Env: tmx.Env, Timeout: 3 * time.Second})
	t.Cleanup(ts.Close)
	ctx := context.Background()
	for _, c := range []struct{ table, key string }{{"emacs", "g"}, {"emacs", "?"}, {"vi", "/"}, {"vi", ":"}, {"vi", "f"}} {
		tmx.Tmux("set-option", "-w", "-t", pane, "mode-keys", c.table)
		tmx.Tmux("copy-mode", "-t", pane)
		if _, err := ts.Exec(ctx, []string{"send-keys", "-t", pane, c.key}); err != nil {
			t.Fatalf("%s %q: %v", c.table, c.key, err)
		}
		if _, err := ts.Query(ctx, []string{"list-sessions"}); err != nil {
			t.Fatalf("after %s copy mode's %q: %v", c.table, c.key, err)
		}
		ts.Exec(ctx, []string{"send-keys", "-t", pane, "-X", "cancel"})
	}
}

// A command client whose queue is held anyway (here by wait-for, as a binding's confirm-before
// or run-shell would hold it: the command's own block ends at once, the requests after it
// wait) fails one request after its timeout, and the next request gets a new client.
func TestHeldClientReplaced(t *testing.T) {
	tmx := testtmux.New(t)
	tmx.NewSession("held")
	ts := tmux.NewServer(tmux.Config{SocketPath: tmx.Socket, Env: tmx.Env, Timeout: time.Second})
	t.Cleanup(ts.Close)
	ctx := context.Background()
	if _, err := ts.Exec(ctx, []string{"wait-for", "tmux-mcp-test-held"}); err != nil {
		t.Fatal(err)
	}
	defer tmx.Tmux("wait-for", "-S", "tmux-mcp-test-held")
	if _, err := ts.Query(ctx, []string{"list-sessions"}); !errors.Is(err, tmux.ErrTimeout) {
		t.Fatalf("a held client: want a timeout, got %v", err)
	}
	if _, err := ts.Query(ctx, []string{"list-sessions"}); err != nil {
		t.Fatalf("after a held client: %v", err)
	}
}
