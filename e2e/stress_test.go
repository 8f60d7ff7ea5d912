package e2e

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Cycles of create_session, list_sessions, get_session_info, rename_session, a
// read of tmux://sessions/{name} and kill_session over 11 names crashed tmux 3.3a (SIGSEGV in
// control_write) in 5 of 8 loops of 11 cycles: the server's own control clients attached (the
// command client, the per-session topology watches behind list_changed) while renames, creates,
// kills and their own departures sent notifications, and 3.3a writes notifications to a control
// client that is still identifying. 300 cycles (three times the 88 that crashed it 5 times in
// 8), four at a time, must leave tmux running, the same daemon, with the session it had before.
func TestSessionCycleStress(t *testing.T) {
	if testing.Short() {
		t.Skip("stress test")
	}
	c := destructive(t)
	c.Tmx.NewSession("keep")
	pid := c.Tmx.Tmux("display-message", "-p", "#{pid}")
	const workers, names, cycles = 4, 11, 300
	var done atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	start := time.Now()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < cycles; i += workers {
				name := fmt.Sprintf("cy%d-%d", w, (i/workers)%names)
				if err := sessionCycle(c.CS, name); err != nil {
					errs <- fmt.Errorf("cycle %d (%s), after %d cycles in all: %w", i, name, done.Load(), err)
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("%d cycles in %v", done.Load(), time.Since(start))
	if out, err := c.Tmx.TryTmux("display-message", "-p", "-t", "keep", "#{pid}"); err != nil || out != pid {
		t.Fatalf("tmux did not survive the cycles: %v %q (daemon was pid %s)", err, out, pid)
	}
	if out := c.Tmx.Tmux("list-sessions", "-F", "#{session_name}"); out != "keep" {
		t.Errorf("sessions left: %q", out)
	}
}

// sessionCycle is one cycle of TestSessionCycleStress: create, list, get, rename, read the resource, kill.
func sessionCycle(cs *mcp.ClientSession, name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	renamed := name + "-r"
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"create_session", map[string]any{"session_name": name}},
		{"list_sessions", map[string]any{}},
		{"get_session_info", map[string]any{"session_name": name}},
		{"rename_session", map[string]any{"session_name": name, "new_name": renamed}},
		{"", nil}, // the resource read
		{"kill_session", map[string]any{"session_name": renamed}},
	}
	for _, call := range calls {
		if call.tool == "" {
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "tmux://sessions/" + url.PathEscape(renamed)})
			if err != nil {
				return fmt.Errorf("reading the session resource: %w", err)
			}
			if len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, renamed) {
				return fmt.Errorf("the session resource does not name %s: %+v", renamed, res.Contents)
			}
			continue
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.tool, Arguments: call.args})
		if err != nil {
			return fmt.Errorf("%s: %w", call.tool, err)
		}
		if res.IsError {
			return fmt.Errorf("%s: %s", call.tool, text(res))
		}
	}
	return nil
}
