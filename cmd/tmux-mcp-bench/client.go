package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// client is the go-sdk client session with the tmux-mcp process under test.
type client struct {
	cs      *mcp.ClientSession
	cmd     *exec.Cmd
	tools   map[string]bool
	startup time.Duration // to the initialize reply
	listed  time.Duration // to the tools/list reply, the whole catalogue in hand
}

func connect(ctx context.Context, bin string, tmx *benchTmux) (*client, error) {
	return connectCmd(ctx, tmx.serverCmd(bin))
}

func connectCmd(ctx context.Context, cmd *exec.Cmd) (*client, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "tmux-mcp-bench", Version: "1"}, nil)
	start := time.Now()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", cmd.Path, err)
	}
	cl := &client{cs: cs, cmd: cmd, tools: map[string]bool{}, startup: time.Since(start)}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		cl.tools[t.Name] = true
	}
	cl.listed = time.Since(start)
	return cl, nil
}

func (c *client) has(tool string) bool { return c.tools[tool] }

func (c *client) close() { c.cs.Close() }

func (c *client) call(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, fmt.Errorf("%s: %v", name, res.Content)
	}
	return res, nil
}

// timeCalls times n calls after a few untimed warm-up calls.
func (c *client) timeCalls(ctx context.Context, name string, args any, n int) (samples, error) {
	return timeSamples(3, n, func() error { _, err := c.call(ctx, name, args); return err })
}

// timeWake measures wait_for_text from the moment tmux emits the awaited text (seen by the
// benchmark's own control client) to the moment the result arrives.
func (c *client) timeWake(ctx context.Context, tmx *benchTmux, n int) (samples, error) {
	watch, err := tmx.control(ctx, tmx.session)
	if err != nil {
		return nil, err
	}
	defer watch.close()
	var s samples
	for i := 0; i < n; i++ {
		tok := fmt.Sprintf("WAKE%dZ", i)
		done := make(chan error, 1)
		var got time.Time
		go func() {
			_, err := c.call(ctx, "wait_for_text", map[string]any{"pane_id": tmx.pane, "patterns": []string{tok}, "timeout": 5})
			got = time.Now()
			done <- err
		}()
		time.Sleep(100 * time.Millisecond) // let the wait arm
		seen := watch.expect(tok + "\r\n")
		// The typed line never holds the token: printf joins it from two halves.
		if _, err := tmx.tmux("send-keys", "-t", tmx.pane, "-l", fmt.Sprintf("printf '%%s%%s\\n' WAKE %dZ", i), ";", "send-keys", "-t", tmx.pane, "Enter"); err != nil {
			return nil, err
		}
		if err := <-done; err != nil {
			return nil, err
		}
		select {
		case at := <-seen:
			s = append(s, got.Sub(at))
		case <-time.After(time.Second):
			return nil, fmt.Errorf("wake: %s never seen by the benchmark's client", tok)
		}
	}
	return s, nil
}

// idleCPU opens live streams on 4 panes and measures the CPU the server uses while they are quiet.
func (c *client) idleCPU(ctx context.Context, tmx *benchTmux, window time.Duration) (time.Duration, int, error) {
	panes := []string{tmx.pane}
	for len(panes) < 4 {
		out, err := tmx.tmux("split-window", "-d", "-t", tmx.pane, "-P", "-F", "#{pane_id}", "bash", "--noprofile", "--norc")
		if err != nil {
			return 0, 0, err
		}
		tmx.tmux("select-layout", "-t", tmx.pane, "tiled")
		panes = append(panes, strings.TrimSpace(out))
	}
	time.Sleep(300 * time.Millisecond)
	for _, p := range panes {
		if _, err := c.call(ctx, "capture_since", map[string]any{"pane_id": p}); err != nil {
			return 0, 0, err
		}
	}
	time.Sleep(time.Second)
	before := c.cpu()
	time.Sleep(window)
	return c.cpu() - before, len(panes), nil
}

// cpu sums the on-CPU time of every thread of the server (nanosecond schedstat, not 10 ms ticks).
func (c *client) cpu() time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", c.cmd.Process.Pid))
	var total int64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			total += n
		}
	}
	return time.Duration(total)
}

// peakRSS is the server's VmHWM in KiB.
func (c *client) peakRSS() int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return 0
}

// warmup is how many untimed cheap reads come before the timed ones: a new server process
// answers its first calls slower while its heap grows to its working size.
const warmup = 100
