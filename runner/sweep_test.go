package runner

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestSweeper: queued files go together once the queue has been still for sweepDelay, or at
// once when sweepMax wait; stop leaves them (their directory goes whole).
func TestSweeper(t *testing.T) {
	defer func(d time.Duration, m int) { sweepDelay, sweepMax = d, m }(sweepDelay, sweepMax)
	// Margins of a second: a loaded machine oversleeps by hundreds of milliseconds.
	sweepDelay, sweepMax = 2*time.Second, 4
	dir := t.TempDir()
	ts := tmux.NewServer(tmux.Config{SocketPath: filepath.Join(dir, "none")}) // files only: no server is started
	file := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	var s sweeper
	a, b := file("a"), file("b")
	s.later(ts, a)
	time.Sleep(time.Second)
	s.later(ts, b) // restarts the wait: nothing goes before b has waited sweepDelay
	time.Sleep(1200 * time.Millisecond)
	if !exists(a) || !exists(b) {
		t.Fatal("removed before the queue was still for sweepDelay")
	}
	waitGone := func(ps ...string) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if !exists(ps[0]) && !exists(ps[len(ps)-1]) {
				return
			}
		}
		t.Fatalf("%q not removed", ps)
	}
	waitGone(a, b)
	// sweepMax at once, without waiting.
	sweepDelay = time.Hour
	ps := []string{file("c"), file("d"), file("e"), file("f")}
	s.later(ts, ps...)
	waitGone(ps...)
	g := file("g")
	s.later(ts, g)
	s.stop()
	time.Sleep(50 * time.Millisecond)
	if !exists(g) {
		t.Error("stop removed a queued file")
	}
}
