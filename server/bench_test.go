package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/internal/wire"
	"github.com/tmux-mcp/tmux-mcp/server/policy"
	"github.com/tmux-mcp/tmux-mcp/tmux"
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

// manyPanes adds windows of cat to session s until the server has n panes (a tmux
// source-file: one round trip for all of them).
func manyPanes(tb testing.TB, tmx *testtmux.Server, session string, n int) {
	tb.Helper()
	var conf strings.Builder
	for i := 1; i < n; i++ {
		conf.WriteString("new-window -d -t " + session + ": cat\n")
	}
	file := filepath.Join(tmx.Dir, "many.conf")
	if err := os.WriteFile(file, []byte(conf.String()), 0o600); err != nil {
		tb.Fatal(err)
	}
	tmx.Tmux("source-file", file)
}

// mcpSession connects a go-sdk client to srv over an in-memory transport.
func mcpSession(tb testing.TB, srv *Server) *mcp.ClientSession {
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "b", Version: "0"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs
}

// bareSession serves srv over stdio's transport (wire.Transport on a pipe) to a client that
// writes requests and reads replies as lines, as the benchmark's bare JSON-RPC client does; it
// returns a function that sends one request and returns its reply.
func bareSession(tb testing.TB, srv *Server) func(req string) []byte {
	tb.Helper()
	cr, sw := net.Pipe()
	sr, cw := net.Pipe()
	ss, err := srv.MCP().Connect(context.Background(), &wire.Transport{Reader: sr, Writer: sw}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ss.Close(); cw.Close(); cr.Close() })
	rd := bufio.NewReaderSize(cr, 1<<20)
	call := func(req string) []byte {
		if _, err := io.WriteString(cw, req+"\n"); err != nil {
			tb.Fatal(err)
		}
		line, err := rd.ReadBytes('\n')
		if err != nil {
			tb.Fatal(err)
		}
		return line
	}
	call(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"0"}}}`)
	if _, err := io.WriteString(cw, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		tb.Fatal(err)
	}
	return call
}

// BenchmarkListPanes1000MCP measures list_panes over 1,000 panes through the go-sdk over an
// in-memory transport: tmux's read, the parse and the encoding of a 1 MB result.
func BenchmarkListPanes1000MCP(b *testing.B) {
	srv, tmx, _ := newTestServer(b, policy.Mutating)
	manyPanes(b, tmx, "s", 1000)
	cs := mcpSession(b, srv)
	ctx := context.Background()
	for b.Loop() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_panes", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}

// manyPaneInfos is list_panes' result for n panes.
func manyPaneInfos(n int, full bool) listPanesOut {
	panes := make([]PaneInfo, n)
	for i := range panes {
		panes[i] = PaneInfo{Pane: tmux.Pane{
			PaneID: fmt.Sprintf("%%%d", i), PaneWidth: 120, PaneHeight: 40, PaneRight: 119, PaneBottom: 39,
			PaneAtLeft: true, PaneAtRight: true, PaneAtTop: true, PaneAtBottom: true,
			PaneTTY: fmt.Sprintf("/dev/pts/%d", i), PaneCurrentCommand: "bash", PaneCurrentPath: "/home/someone/src/project",
			PanePID: 10000 + i, PaneTitle: "host.example.org", PaneActive: true,
			WindowID: fmt.Sprintf("@%d", i), WindowIndex: i, SessionID: "$0", SessionName: "work",
		}}
	}
	return listPanesOut{Panes: paneEntries(panes, full)}
}

// BenchmarkEncodeListPanes1000 encodes list_panes' result for 1,000 panes (1.1 MB of JSON) as a
// call's result, and that result as the go-sdk's JSON-RPC layer marshals it: as encodeOnce hands
// it over (wire), and as the SDK's own *mcp.CallToolResult (sdk). The JSON-RPC envelope around
// it is internal/wire's BenchmarkEncodeResponse.
func BenchmarkEncodeListPanes1000(b *testing.B) {
	c := &Call{Tool: &Tool{Name: "list_panes"}}
	out := manyPaneInfos(1000, true)
	b.Run("result", func(b *testing.B) {
		for b.Loop() {
			c.result(out, nil)
		}
	})
	b.Run("wire", func(b *testing.B) {
		for b.Loop() {
			if _, err := sdkMarshal(asWire(c.result(out, nil))); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sdk", func(b *testing.B) {
		for b.Loop() {
			if _, err := sdkMarshal(c.result(out, nil)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkEncodeCapture2000 encodes capture_pane's result for 2,000 lines of history (44 KB of
// text, a result of 100 KB) as a call's result (result: its text, the JSON of the value), and
// that result as the go-sdk's JSON-RPC layer marshals it (wire). The JSON-RPC envelope around
// it is internal/wire's BenchmarkEncodeResponse; reading tmux's reply, tmux/control's
// BenchmarkReplyCapture2000.
func BenchmarkEncodeCapture2000(b *testing.B) {
	c := &Call{Tool: &Tool{Name: "capture_pane"}}
	lines := make([]string, 2000)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d of the history", i+1)
	}
	out := CaptureOut{PaneID: "%67", Content: strings.Join(lines, "\n")}
	b.Run("result", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c.result(out, nil)
		}
	})
	b.Run("wire", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := sdkMarshal(asWire(c.result(out, nil))); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// sdkMarshal is how the go-sdk's JSON-RPC layer marshals a message (no HTML escaping).
func sdkMarshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), err
}

// BenchmarkCapturePaneHistoryMCP measures capture_pane of one pane's 2,000 lines of history on
// a 200-pane server through the go-sdk over an in-memory transport (target: ≤ 1.5 ms end
// to end, docs/performance.md): the resolution of the pane, tmux's capture and the result's encoding.
func BenchmarkCapturePaneHistoryMCP(b *testing.B) {
	srv, tmx, pane := newTestServer(b, policy.Mutating)
	tmx.Tmux("respawn-pane", "-k", "-t", pane, "seq -f 'line %g of the history' 2000; exec cat")
	manyPanes(b, tmx, "s", 200)
	for {
		if n, _ := strconv.Atoi(strings.TrimSpace(tmx.Tmux("display-message", "-p", "-t", pane, "#{history_size}"))); n >= 1900 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	ctx := context.Background()
	b.Run("call", func(b *testing.B) { // the tool alone: no transport, no encoding by the SDK
		args := json.RawMessage(`{"pane_id":"` + pane + `","start":-2000,"max_lines":null}`)
		for b.Loop() {
			if res, err := srv.Call(ctx, "capture_pane", args); err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
	b.Run("bare", func(b *testing.B) { // over stdio's transport, read as lines: the server's share
		call := bareSession(b, srv)
		req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"capture_pane","arguments":{"pane_id":"` + pane + `","start":-2000,"max_lines":null}}}`
		for b.Loop() {
			if res := call(req); !bytes.Contains(res, []byte("line 2000 of the history")) {
				b.Fatalf("%.200s", res)
			}
		}
	})
	b.Run("mcp", func(b *testing.B) {
		cs := mcpSession(b, srv)
		args := map[string]any{"pane_id": pane, "start": -2000, "max_lines": nil}
		for b.Loop() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "capture_pane", Arguments: args})
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
}

// BenchmarkResolvePane measures capture_pane of one pane's screen in-process on a 1-pane and a
// 1,000-pane server (a call on a pane should cost what its target costs, not what the
// server holds): the pane's resolution and its capture, in one round trip to tmux.
func BenchmarkResolvePane(b *testing.B) {
	for _, n := range []int{1, 1000} {
		b.Run(fmt.Sprintf("panes=%d", n), func(b *testing.B) {
			srv, tmx, pane := newTestServer(b, policy.Mutating)
			if n > 1 {
				manyPanes(b, tmx, "s", n)
			}
			ctx := context.Background()
			args := json.RawMessage(`{"pane_id":"` + pane + `"}`)
			for b.Loop() {
				if res, err := srv.Call(ctx, "capture_pane", args); err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	}
}
