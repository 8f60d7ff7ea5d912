package topowatch_test

import (
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/topowatch"
)

// TestWatchReportsChangesAndGone reports a window and a pane coming, and the server's end.
func TestWatchReportsChangesAndGone(t *testing.T) {
	tmx := testtmux.New(t)
	sid, _ := tmx.NewSession("one")
	ts := tmux.NewServer(tmux.Config{SocketPath: tmx.Socket, Env: tmx.Env, Timeout: 3 * time.Second})
	t.Cleanup(ts.Close)
	changed, gone := make(chan struct{}, 16), make(chan struct{}, 1)
	var w topowatch.Watcher
	t.Cleanup(w.Close)
	w.Ensure(ts, topowatch.Events{
		Changed: func() { changed <- struct{}{} },
		Gone:    func() { gone <- struct{}{} },
	})
	expect := func(ch chan struct{}, what string) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Fatalf("no report of %s", what)
		}
	}
	// The first look only records the state: a window made before it is no change, so make
	// windows until one is reported.
	deadline := time.Now().Add(20 * time.Second)
	for reported := false; !reported; {
		tmx.NewWindow(sid)
		select {
		case <-changed:
			reported = true
		case <-time.After(time.Second):
			if time.Now().After(deadline) {
				t.Fatal("no report of a new window")
			}
		}
	}
	time.Sleep(100 * time.Millisecond) // the report of a second window, if one came late
	for len(changed) > 0 {
		<-changed
	}
	tmx.SplitWindow(sid)
	expect(changed, "a new pane")
	tmx.Tmux("kill-server")
	expect(gone, "the server's end")
}
