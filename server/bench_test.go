package server

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// BenchmarkListSessions measures one list_sessions call in-process (no transport) against a
// real tmux over control mode.
func BenchmarkListSessions(b *testing.B) {
	tmx := testtmux.New(b)
	tmx.NewSession("bench")
	srv, err := New(Options{SocketPath: tmx.Socket, Env: tmx.Env})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	args := json.RawMessage(`{}`)
	for b.Loop() {
		res, err := srv.Call(ctx, "list_sessions", args)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}
