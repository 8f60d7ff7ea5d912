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
