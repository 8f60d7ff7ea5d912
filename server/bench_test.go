package server

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

// BenchmarkListSessions measures one list_sessions call in-process (no transport) against a
// real tmux over control mode.
func BenchmarkListSessions(b *testing.B) {
	srv, _, _ := newTestServer(b, policy.Mutating)
	ctx := context.Background()
	args := json.RawMessage(`{}`)
	for b.Loop() {
		res, err := srv.Call(ctx, "list_sessions", args)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkListSessionsMCP measures list_sessions through the go-sdk client and server over an
// in-memory transport: the protocol's share of a call, without process boundaries.
func BenchmarkListSessionsMCP(b *testing.B) {
	srv, _, _ := newTestServer(b, policy.Mutating)
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "b", Version: "0"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	for b.Loop() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_sessions", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}

// newTestServer starts a private tmux server with one session and a server on it at the given
// tier; both end with the test. It returns them and the session's pane.
func newTestServer(tb testing.TB, tier policy.Tier) (*Server, *testtmux.Server, string) {
	tb.Helper()
	tmx := testtmux.New(tb)
	_, pane := tmx.NewSession("s")
	s, err := New(Options{SocketPath: tmx.Socket, Env: tmx.Env, Safety: tier})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s, tmx, pane
}

// BenchmarkNew measures building a server at the default tier, its tools registered with the
// go-sdk (a process pays it once, with colder caches).
func BenchmarkNew(b *testing.B) {
	opts := Options{SocketPath: "/nonexistent/tmux-mcp-bench", Env: []string{}, SuppressHistory: true}
	for b.Loop() {
		s, err := New(opts)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
