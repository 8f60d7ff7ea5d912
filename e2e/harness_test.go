// Package e2e drives the built tmux-mcp binary over stdio with the go-sdk client, against
// private tmux servers.
package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// binary is the tmux-mcp binary built once for the package.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tmux-mcp-e2e")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "tmux-mcp")
	build := exec.Command("go", "build", "-o", binary, "../cmd/tmux-mcp")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building tmux-mcp:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Client is an MCP client session with a tmux-mcp process.
type Client struct {
	t   testing.TB
	CS  *mcp.ClientSession
	Tmx *testtmux.Server
	cmd *exec.Cmd
	// outputs are the advertised output schemas, resolved on first use (checkOutput).
	outputs func() map[string]*jsonschema.Resolved
}

// start runs tmux-mcp against a private tmux server with extra environment (KEY=VALUE).
func start(t testing.TB, env ...string) *Client {
	t.Helper()
	tmx := testtmux.New(t)
	return startOn(t, tmx, env...)
}

func startOn(t testing.TB, tmx *testtmux.Server, env ...string) *Client {
	t.Helper()
	cmd := exec.Command(binary)
	cmd.Env = append(append([]string{}, tmx.Env...), "LIBTMUX_SOCKET_PATH="+tmx.Socket)
	cmd.Env = append(cmd.Env, env...)
	return connect(t, tmx, cmd)
}

// connect starts cmd (the binary, with its environment set) and connects to it.
func connect(t testing.TB, tmx *testtmux.Server, cmd *exec.Cmd) *Client {
	t.Helper()
	return connectOpts(t, tmx, cmd, nil)
}

// connectOpts is connect with client options (handlers of notifications).
func connectOpts(t testing.TB, tmx *testtmux.Server, cmd *exec.Cmd, opts *mcp.ClientOptions) *Client {
	t.Helper()
	cmd.Stderr = &testWriter{t: t}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "0"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connecting to tmux-mcp: %v", err)
	}
	c := &Client{t: t, CS: cs, Tmx: tmx, cmd: cmd}
	c.outputs = sync.OnceValue(c.resolveOutputs)
	t.Cleanup(func() { cs.Close() })
	return c
}

type testWriter struct{ t testing.TB }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Logf("server stderr: %s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// Call calls a tool and returns its result.
func (c *Client) Call(name string, args any) *mcp.CallToolResult {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := c.CS.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s: protocol error: %v", name, err)
	}
	return res
}

// OK calls a tool that must succeed and decodes its structured result into out (when not nil).
func (c *Client) OK(name string, args any, out any) {
	c.t.Helper()
	res := c.Call(name, args)
	if res.IsError {
		c.t.Fatalf("%s(%v): tool error: %s", name, args, text(res))
	}
	c.checkOutput(name, res)
	if out != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			c.t.Fatalf("%s: decoding %s: %v", name, b, err)
		}
	}
}

// Fail calls a tool that must fail and returns its error text.
func (c *Client) Fail(name string, args any) string {
	c.t.Helper()
	res := c.Call(name, args)
	if !res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		c.t.Fatalf("%s(%v): want a tool error, got %s", name, args, b)
	}
	if res.StructuredContent != nil {
		c.t.Errorf("%s: a tool error carries structuredContent", name)
	}
	return text(res)
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
