package runner

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/shellrun"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestStepTimes (TMUX_MCP_STEPS=1) prints the median of each step before the line is typed and
// of a whole Run of `true` in bash, against a real tmux.
func TestStepTimes(t *testing.T) {
	if os.Getenv("TMUX_MCP_STEPS") == "" {
		t.Skip("set TMUX_MCP_STEPS=1")
	}
	ts, p, req := pane(t, testtmux.Bash)
	ctx := context.Background()
	r := New()
	defer r.Close()
	req.Command = "true"
	const n = 40
	steps := map[string][]time.Duration{}
	add := func(name string, since time.Time) { steps[name] = append(steps[name], time.Since(since)) }
	for i := 0; i < n; i++ {
		t0 := time.Now()
		snap, err := ts.Snapshot(ctx, tmux.WithPanes|tmux.WithClients)
		if err != nil {
			t.Fatal(err)
		}
		add("snapshot panes+clients", t0)
		t1 := time.Now()
		if _, err := ts.Snapshot(ctx, tmux.WithPanes); err != nil {
			t.Fatal(err)
		}
		add("snapshot panes", t1)
		t1 = time.Now()
		if _, err := ts.Query(ctx, []string{"list-panes", "-a", "-f", "#{==:#{pane_id}," + p.PaneID + "}", "-F", "#{pane_id} #{pane_dead} #{pane_in_mode} #{pane_current_command}"}, []string{"list-clients", "-F", "#{client_name}"}); err != nil {
			t.Fatal(err)
		}
		add("query one pane+clients, 4 fields", t1)
		t1 = time.Now()
		if _, err := Check(snap, p.PaneID, Guard{}); err != nil {
			t.Fatal(err)
		}
		add("check", t1)
		t1 = time.Now()
		if _, err := ts.Identity(ctx); err != nil {
			t.Fatal(err)
		}
		add("identity", t1)
		t1 = time.Now()
		hub, _ := ts.Hub()
		w, err := hub.Watch(ctx, p.SessionID, p.PaneID)
		if err != nil {
			t.Fatal(err)
		}
		add("watch", t1)
		t1 = time.Now()
		dir, _ := r.scriptDir(ctx, ts)
		path := filepath.Join(dir, "x")
		id := shellrun.NewID()
		script, _ := shellrun.Script(shellrun.Bash, id, "true", path, shellrun.Options{})
		if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
			t.Fatal(err)
		}
		add("script+write", t1)
		t1 = time.Now()
		if _, err := ts.Exec(ctx, []string{"display-message", "-p", "x"}); err != nil {
			t.Fatal(err)
		}
		add("one round trip (display-message)", t1)
		w.Release()
		os.Remove(path)
		t1 = time.Now()
		res, err := r.Run(ctx, ts, req)
		if err != nil || res.Outcome != Completed {
			t.Fatal(res, err)
		}
		add("Run true", t1)
		add("all", t0)
	}
	names := make([]string, 0, len(steps))
	for k := range steps {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		d := steps[k]
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		t.Logf("%-34s median %8v  p90 %8v", k, d[len(d)/2], d[len(d)*9/10])
	}
}
