package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/cli"
)

// noopServerArg makes the benchmark binary a go-sdk MCP server over stdio with two tools, its
// process tuned as tmux-mcp tunes its own (cli.TuneForStdio): noop answers at once with a
// result shaped like list_sessions', history with one like capture_pane's of historyLines
// lines (its JSON as text and as structured content). Timing them gives the go-sdk's own round
// trip, the floor of any server built on it: list_sessions costs that plus tmux's round trip
// plus tmux-mcp's work, and a large result costs its encoding and decoding on both sides.
const noopServerArg = "-sdk-noop-server"

func serveNoop() {
	in, restore := cli.TuneForStdio(os.Stdin, os.Environ())
	defer restore()
	s := mcp.NewServer(&mcp.Implementation{Name: "noop", Version: "1"}, nil)
	out := `{"sessions":[{"session_id":"$0","session_name":"bench","window_count":1,"attached_clients":0,"created":1796024224,"active_window_id":"@0","active_pane_id":"%0"}]}`
	s.AddTool(&mcp.Tool{Name: "noop", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out}}, StructuredContent: json.RawMessage(out)}, nil
	})
	history := historyResult()
	s.AddTool(&mcp.Tool{Name: "history", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: history}}, StructuredContent: json.RawMessage(history)}, nil
	})
	if err := s.Run(context.Background(), &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{os.Stdout}}); err != nil && err != io.EOF {
		fmt.Fprintln(os.Stderr, "noop server:", err)
	}
}

// historyResult is capture_pane's result for the lines the scale rows print (seq -f 'line %g of
// the history' searchLines), as JSON.
func historyResult() string {
	lines := make([]string, searchLines)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d of the history", i+1)
	}
	b, _ := json.Marshal(map[string]any{"pane_id": "%67", "content": strings.Join(lines, "\n"), "content_truncated": false, "content_truncated_lines": 0})
	return string(b)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// noopCommand runs this binary as the no-op server.
func noopCommand() (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return exec.Command(self, noopServerArg), nil
}
