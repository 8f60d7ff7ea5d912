package tmux

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// alivePanes answers for the panes it is asked about alone: a live one is listed, a dead one
// (remain-on-exit), a gone one and one not asked about are not.
func TestAlivePanesAsked(t *testing.T) {
	tmx := testtmux.New(t)
	_, live := tmx.NewSession("s", "sh")
	other := tmx.SplitWindow(live, "sh")
	tmx.Tmux("set-option", "-g", "remain-on-exit", "on")
	dead := tmx.Tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", live, "true")
	ts := NewServer(Config{SocketPath: tmx.Socket, Env: tmx.Env})
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	want := map[string]bool{live: true}
	var got map[string]bool
	for ; ctx.Err() == nil; time.Sleep(50 * time.Millisecond) {
		var err error
		got, err = ts.alivePanes(ctx, []string{live, dead, "%9999", "bad|id"})
		if err != nil {
			t.Fatal(err)
		}
		if maps.Equal(got, want) { // dead's command may not have exited yet
			break
		}
	}
	if !maps.Equal(got, want) {
		t.Fatalf("alivePanes = %v, want %v (other pane %s not asked about)", got, want, other)
	}
	if got, err := ts.alivePanes(ctx, nil); err != nil || len(got) != 0 {
		t.Fatalf("alivePanes(none) = %v, %v; want none", got, err)
	}
}
