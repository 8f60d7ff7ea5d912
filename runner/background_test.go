package runner

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/termstate"
	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// TestRunEndedBeforeBackground: a call that timed out before its command started (its time
// went on waiting for the pane) leaves the run to the background wait; when that wait first
// reads the stream, the command may have printed everything already: its start and end
// markers and the shell's next prompt, in one read. The run then ended: the pane is given
// back and its record holds the result. It was held instead, wait_for_run saying "running"
// with the exit status in hand, until the wrapper's processes were seen gone (3 s later), and
// for good without a process table: nothing more is printed at an idle prompt. Only noproc
// fails without the fix (proc's hold ended, late); proc keeps the path a process table takes.
func TestRunEndedBeforeBackground(t *testing.T) {
	for _, tb := range []struct {
		name  string
		table *termstate.Table
	}{{"proc", termstate.System}, {"noproc", termstate.Hide()}} {
		t.Run(tb.name, func(t *testing.T) {
			t.Parallel()
			ts, p, req := pane(t, testtmux.Bash)
			r := New()
			defer r.Close()
			r.table = tb.table
			// The background wait starts once the whole run and the prompt after it are in
			// the stream (PS1 is "$ "), as a loaded machine can have it.
			r.beforeBackground = func(x *run) { awaitStream(t, x, "again", "$ ") }
			req.Command, req.Timeout = "echo again", time.Millisecond
			res, err := r.Run(context.Background(), ts, req)
			if err != nil || res.Outcome != TimedOut || !res.StillRunning {
				t.Skipf("the call did not time out before the command ran: %+v %v", res, err)
			}
			rec := r.Last(keyOf(t, ts, p))
			select {
			case <-rec.Done():
			case <-time.After(15 * time.Second):
				t.Fatalf("the run that ended is still held: %+v", rec.Result())
			}
			if got := rec.Result(); got.Outcome != Completed || got.Output != "again" || got.ExitStatus == nil || *got.ExitStatus != 0 {
				t.Fatalf("final result %+v", got)
			}
		})
	}
}

// awaitStream waits until the pane's stream since the typed line holds text and ends with
// last.
func awaitStream(t *testing.T, x *run, text, last string) {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		w := x.f.Watch()
		data, _, _, _ := w.Read(x.typedAt, readChunk)
		if bytes.Contains(data, []byte(text)) && bytes.HasSuffix(data, []byte(last)) {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		w.Wait(ctx, w.Offset())
		cancel()
	}
	t.Errorf("the stream never showed %q then %q", text, last)
}

// TestRunResultWhileSettling: a run whose end marker came while its shell still runs its
// prompt hooks (the pane is given back once the shell reads its command line again, up to 5 s
// later) is reported completed, with its status and output, by a wait that ends meanwhile,
// not as running with its status in hand; and a run started then waits for the pane instead
// of being refused as busy.
func TestRunResultWhileSettling(t *testing.T) {
	t.Parallel()
	ts, p, req := pane(t, testtmux.Bash)
	ctx := context.Background()
	ts.Exec(ctx, []string{"send-keys", "-t", p.PaneID, "-l", "PROMPT_COMMAND='sleep 3'"}, []string{"send-keys", "-t", p.PaneID, "Enter"})
	r := New()
	defer r.Close()
	req.Command, req.Timeout = "sleep 1; echo done", time.Millisecond
	if res, err := r.Run(ctx, ts, req); err != nil || !res.StillRunning {
		t.Skipf("the call did not time out before the command ended: %+v %v", res, err)
	}
	rec := r.Last(keyOf(t, ts, p))
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		rec.mu.Lock()
		x := rec.live
		rec.mu.Unlock()
		if x == nil || x.over() {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the end marker never came")
		}
	}
	wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	got := r.Await(wctx, rec, nil)
	cancel()
	if got.Outcome != Completed || got.StillRunning || got.ExitStatus == nil || *got.ExitStatus != 0 || got.Output != "done" {
		t.Errorf("a wait ending while the shell ran its prompt hooks: %+v", got)
	}
	req.Command, req.Timeout = "echo next", 20*time.Second
	if res, err := r.Run(ctx, ts, req); err != nil || res.Output != "next" {
		t.Errorf("a run right after: %+v %v", res, err)
	}
}
