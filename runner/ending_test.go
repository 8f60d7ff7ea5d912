package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// TestRunTimeoutAfterEnding: a run asked for while the pane's previous run is about to end
// waits for that end (Ending), and its timeout starts once the pane is its own: the wait is
// not its command's time. It was: a 1 s timeout after a 1.1 s wait left the command 1 ms, and
// the call said "timed out" at once for an echo.
func TestRunTimeoutAfterEnding(t *testing.T) {
	t.Parallel()
	ts, p, req := pane(t, testtmux.Bash)
	r := New()
	defer r.Close()
	flag := filepath.Join(t.TempDir(), "go")
	first := req
	first.Command, first.Timeout = "while ! [ -e "+flag+" ]; do sleep 0.02; done", 100*time.Millisecond
	if res, err := r.Run(context.Background(), ts, first); err != nil || res.Outcome != TimedOut {
		t.Fatalf("first run: %+v %v", res, err)
	}
	const timeout = 800 * time.Millisecond
	next := req
	next.Command, next.Timeout = "echo again", timeout
	type result struct {
		res Result
		err error
		at  time.Time
	}
	done := make(chan result, 1)
	go func() {
		res, err := r.Run(context.Background(), ts, next)
		done <- result{res, err, time.Now()}
	}()
	// Longer than the timeout, within Ending: the run waits for the first one to end.
	time.Sleep(timeout + 300*time.Millisecond)
	released := time.Now()
	if err := os.WriteFile(flag, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	got := <-done
	var ref *Refusal
	if errors.As(got.err, &ref) && ref.Reason == Busy {
		t.Skipf("the first run took longer than Ending to end once released (a loaded machine): %v", got.err)
	}
	// Completed, or timed out no earlier than its whole timeout after the pane was free.
	switch {
	case got.err != nil:
		t.Fatalf("next run: %v", got.err)
	case got.res.Outcome == Completed && got.res.Output == "again":
	case got.res.Outcome == TimedOut && got.at.Sub(released) >= timeout:
	default:
		t.Errorf("next run %+v, %v after the first was released; its timeout is %v", got.res, got.at.Sub(released), timeout)
	}
	if rec := r.Last(keyOf(t, ts, p)); rec == nil || rec.Command != "echo again" {
		t.Errorf("the pane's last run is %+v", rec)
	}
}
