package tmux_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestTagBufferChannelPipeOps tags a session and reads the tags back for a pane the session
// holds and one it does not; pastes, saves and deletes a buffer; signals a channel a waiter
// listens on; checks the daemon is alive; pipes a pane to a file and stops.
func TestTagBufferChannelPipeOps(t *testing.T) {
	tmx := testtmux.New(t)
	sid, pane := tmx.NewSession("tags")
	ts := newServer(t, tmx)
	ctx := context.Background()
	tags := tmux.Tags{Session: "@t_s", Window: "@t_w", Pane: "@t_p"}
	if err := ts.Do(ctx, &tmux.Tag{Tags: tags, Target: sid}); err != nil {
		t.Fatal(err)
	}
	split := &tmux.SplitWindow{Pane: pane, Spawn: tmux.Spawn{Argv: []string{"cat"}}}
	if err := ts.Do(ctx, split); err != nil {
		t.Fatal(err)
	}
	tagged := &tmux.Tagged{Tags: tags, Target: sid}
	one := &tmux.Tagged{Tags: tags, Target: pane}
	if err := ts.Batch(ctx, tagged, one); err != nil {
		t.Fatal(err)
	}
	if len(tagged.Panes) != 2 || len(one.Panes) != 1 || !one.Panes[0].Own || !one.Panes[0].Window || !one.Panes[0].Session {
		t.Fatalf("tagged %+v, one %+v", tagged.Panes, one.Panes)
	}
	for _, p := range tagged.Panes {
		if p.Pane == split.PaneID && p.Own {
			t.Errorf("the split was never tagged: %+v", p)
		}
	}
	if err := ts.LoadBuffer(ctx, "b1", []byte("hello")); err != nil {
		t.Fatal(err)
	}
	if err := ts.Do(ctx, &tmux.PasteBuffer{Buffer: "b1", Pane: split.PaneID}); err != nil {
		t.Fatal(err)
	}
	if data, dropped, err := ts.SaveBuffer(ctx, "b1", 3); err != nil || string(data) != "llo" || dropped != 2 {
		t.Errorf("SaveBuffer = %q %d %v", data, dropped, err)
	}
	if err := ts.Do(ctx, &tmux.DeleteBuffer{Buffer: "b1"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ts.SaveBuffer(ctx, "b1", 10); err == nil {
		t.Error("a deleted buffer saves")
	}
	done := make(chan error, 1)
	go func() { done <- ts.WaitChannel(ctx, "ch") }()
	deadline := time.Now().Add(10 * time.Second)
	for waited := false; !waited; {
		if err := ts.Do(ctx, &tmux.SignalChannel{Channel: "ch"}); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			waited = true
		case <-time.After(100 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("the waiter never woke")
			}
		}
	}
	id, err := ts.Identity(ctx)
	if err != nil {
		t.Fatal(err)
	}
	alive, gone := &tmux.Alive{Ident: id}, &tmux.Alive{Ident: tmux.Identity{PID: id.PID + 1}}
	if err := ts.Batch(ctx, alive, gone); err != nil || !alive.Alive || gone.Alive {
		t.Errorf("Alive %v %v %v", alive.Alive, gone.Alive, err)
	}
	out := filepath.Join(tmx.Dir, "pipe.log")
	if err := ts.Do(ctx, &tmux.PipePane{Pane: split.PaneID, Command: "cat > " + out}); err != nil {
		t.Fatal(err)
	}
	if err := ts.Do(ctx, &tmux.PasteBuffer{Buffer: "none", Pane: split.PaneID}); err == nil {
		t.Error("a missing buffer pastes")
	}
	tmx.Tmux("send-keys", "-t", split.PaneID, "-l", "piped")
	for !strings.Contains(readFile(out), "piped") {
		if time.Now().After(deadline) {
			t.Fatalf("the pipe wrote %q", readFile(out))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := ts.Do(ctx, &tmux.PipePane{Pane: split.PaneID}); err != nil {
		t.Fatal(err)
	}
}

func readFile(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}
