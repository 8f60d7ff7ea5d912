package cmdhist_test

import (
	"context"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/cmdhist"
)

// TestFollowMarks follows a pane whose program prints OSC 133 marks, lists its command and
// reads the command's output, and sets the pane option that says marks were seen.
func TestFollowMarks(t *testing.T) {
	tmx := testtmux.New(t)
	_, pane := tmx.NewSession("one", "sh")
	tmx.WaitPrompt(pane)
	ts := tmux.NewServer(tmux.Config{SocketPath: tmx.Socket, Env: tmx.Env, Timeout: 3 * time.Second})
	t.Cleanup(ts.Close)
	ctx := context.Background()
	var panes cmdhist.Panes
	t.Cleanup(panes.Close)
	f, err := panes.Follow(ctx, ts, pane, false)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := panes.Follow(ctx, ts, pane, false); err != nil || again != f {
		t.Fatalf("a second follow: %p, %v; want the first (%p)", again, err, f)
	}
	tmx.Tmux("send-keys", "-t", pane, `printf '\033]133;C;cmdline=make all\007built\n\033]133;D;3\007'`, "Enter")
	deadline := time.Now().Add(10 * time.Second)
	for {
		cmds, saw := f.Commands(ctx)
		if len(cmds) == 1 && cmds[0].Status != nil {
			c := cmds[0]
			if !saw || c.Command != "make all" || *c.Status != 3 {
				t.Fatalf("command %+v (marks seen: %v)", c, saw)
			}
			lines, dropped, lost := f.Output(c, 0)
			if len(lines) != 1 || lines[0] != "built" || dropped != 0 || lost {
				t.Fatalf("output %q, dropped %d, lost %v", lines, dropped, lost)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no finished command: %+v", cmds)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for tmx.Tmux("show-options", "-p", "-v", "-t", pane, cmdhist.MarksSeenOption) != "1" {
		if time.Now().After(deadline) {
			t.Fatal("the marks-seen option was never set")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
