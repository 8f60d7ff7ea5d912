package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/termstate"
	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// runOptionOf is what pane p's run option holds ("" when unset).
func runOptionOf(t testing.TB, ts *tmux.Server, p tmux.Pane) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := ts.Query(ctx, []string{"show-options", "-p", "-q", "-v", "-t", p.PaneID, runOption})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 || len(out[0]) == 0 {
		return ""
	}
	return out[0][0]
}

// TestAdoptOptionOutlivesClose: a run still running when its process closes (the runner, then
// the tmux handle, whose end ends the run's stream) keeps its name on its pane for the next
// process to adopt.
func TestAdoptOptionOutlivesClose(t *testing.T) {
	ts, p, req := pane(t, testtmux.Bash)
	r := New()
	req.Command, req.Timeout = "sleep 4", 300*time.Millisecond
	res, err := r.Run(context.Background(), ts, req)
	if err != nil || res.Outcome != TimedOut {
		t.Fatalf("%+v %v", res, err)
	}
	if runOptionOf(t, ts, p) == "" {
		t.Fatal("the running run is not named on its pane")
	}
	rec := r.Last(keyOf(t, ts, p))
	r.Close()
	ts.Close()
	select {
	case <-rec.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not end with its stream")
	}
	other := tmux.NewServer(tmux.Config{SocketPath: ts.Config().SocketPath, Env: ts.Config().Env})
	defer other.Close()
	if runOptionOf(t, other, p) == "" {
		t.Error("closing the process removed the name of a run that still runs")
	}
}

// TestAbandonEndsTheRun: Abandon returns once the run's result is kept (pane_died) and its
// name is off the pane: a wait right after a kill or respawn reports its end.
func TestAbandonEndsTheRun(t *testing.T) {
	ts, p, req := pane(t, testtmux.Bash)
	r := New()
	defer r.Close()
	req.Command, req.Timeout = "sleep 30", 300*time.Millisecond
	if res, err := r.Run(context.Background(), ts, req); err != nil || res.Outcome != TimedOut {
		t.Fatalf("%+v %v", res, err)
	}
	k := keyOf(t, ts, p)
	if !r.Abandon(k) {
		t.Fatal("Abandon found no run")
	}
	rec := r.Last(k)
	select {
	case <-rec.Done():
	default:
		t.Fatal("Abandon returned before the run ended")
	}
	if res := rec.Result(); res.Outcome != PaneDied || res.StillRunning {
		t.Errorf("after Abandon: %+v", res)
	}
	if v := runOptionOf(t, ts, p); v != "" {
		t.Errorf("the abandoned run is still named on its pane: %s", v)
	}
	ts.Exec(context.Background(), []string{"send-keys", "-t", p.PaneID, "C-c"})
}

// paneNow is pane id as tmux reports it now.
func paneNow(t testing.TB, ts *tmux.Server, id string) tmux.Pane {
	t.Helper()
	snap, err := ts.Snapshot(context.Background(), tmux.WithPanes)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range snap.Panes {
		if p.PaneID == id {
			return p
		}
	}
	t.Fatalf("no pane %s", id)
	return tmux.Pane{}
}

// TestStillRunningFish: fish runs a sourced wrapper's child fish in its own process group,
// where neither the foreground group nor tmux's current command tells it from the prompt. A
// run there still runs, with the process table and without it; at the prompt with a
// background job in the shell's group (as fish's completions generator at its first start),
// nothing runs.
func TestStillRunningFish(t *testing.T) {
	ts, p, req := pane(t, testtmux.Fish)
	r := New()
	defer r.Close()
	req.Command, req.Timeout = "sleep 3", 500*time.Millisecond
	if res, err := r.Run(context.Background(), ts, req); err != nil || res.Outcome != TimedOut {
		t.Fatalf("%+v %v", res, err)
	}
	tables := map[string]*termstate.Table{"proc": termstate.System, "noproc": termstate.Hide()}
	now := paneNow(t, ts, p.PaneID)
	for name, table := range tables {
		if !stillRunning(table, now, "fish", true) {
			t.Errorf("%s: the run does not count as running (%s)", name, now.PaneCurrentCommand)
		}
	}
	select {
	case <-r.Last(keyOf(t, ts, p)).Done():
	case <-time.After(15 * time.Second):
		t.Fatal("the run did not end")
	}
	// A job started in the background by a sourced file stays in the shell's group.
	bg := filepath.Join(t.TempDir(), "bg.fish")
	if err := os.WriteFile(bg, []byte("sleep 30 &\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ts.Exec(context.Background(), []string{"send-keys", "-t", p.PaneID, "-l", "source " + bg},
		[]string{"send-keys", "-t", p.PaneID, "Enter"})
	time.Sleep(time.Second)
	now = paneNow(t, ts, p.PaneID)
	if !inGroup(now.PanePID, "sleep", "30") {
		t.Fatal("test set-up: the background job is not in the shell's group")
	}
	for name, table := range tables {
		if stillRunning(table, now, "fish", true) {
			t.Errorf("%s: the shell at its prompt counts as running", name)
		}
	}
	// A prompt that runs a command (fish_vcs_prompt runs git) has fish wait for a child in
	// its group, as for the wrapper's child fish: that is not a run.
	ts.Exec(context.Background(), []string{"send-keys", "-t", p.PaneID, "-l", "function fish_prompt; sleep 5; echo '> '; end"},
		[]string{"send-keys", "-t", p.PaneID, "Enter"})
	for end := time.Now().Add(10 * time.Second); !inGroup(now.PanePID, "sleep", "5"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("test set-up: the prompt's sleep did not start")
		}
	}
	if stillRunning(termstate.System, paneNow(t, ts, p.PaneID), "fish", true) {
		t.Error("the shell drawing its prompt counts as running")
	}
}

// inGroup reports whether the shell pid has a child in its own process group with the
// command line args.
func inGroup(pid int, args ...string) bool {
	kids, _ := termstate.System.Children(pid)
	for k := range kids {
		c, ok := termstate.System.Proc(k)
		if !ok || c.PGID != pid {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", k))
		if strings.Join(args, "\x00")+"\x00" == string(cmdline) {
			return true
		}
	}
	return false
}
