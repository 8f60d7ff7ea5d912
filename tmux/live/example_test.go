package live_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/live"
)

// ExampleStreams_Read takes a position in a pane's output, types a command, and reads on from
// the position until the command's output shows: each Read waits for the pane to print.
func ExampleStreams_Read() {
	dir, err := os.MkdirTemp("", "tmux")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "sock")
	env := append(os.Environ(), "HOME="+dir, "TMUX=", "ENV=", "PS1=$ ")
	start := exec.Command("tmux", "-S", sock, "-f", os.DevNull, "new-session", "-d", "-s", "demo", "sh")
	start.Env = env
	if out, err := start.CombinedOutput(); err != nil {
		fmt.Printf("starting tmux: %v: %s", err, out)
		return
	}
	ts := tmux.NewServer(tmux.Config{SocketPath: sock, Env: env})
	defer func() {
		ts.Spawn(context.Background(), nil, "kill-server")
		ts.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	out, err := ts.Command(ctx, "display-message", "-p", "-t", "demo", "#{pane_id}")
	if err != nil {
		fmt.Println(err)
		return
	}
	id, err := ts.Identity(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	var streams live.Streams
	defer streams.CloseAll()
	k := live.Key{Daemon: id, Pane: out[0]}

	r, err := streams.Read(ctx, ts, k, nil, 0) // no position yet: where the output is now
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("fresh:", r.Fresh)
	at := r.Next
	if _, err := ts.Command(ctx, "send-keys", "-t", k.Pane, "echo hel''lo", "Enter"); err != nil {
		fmt.Println(err)
		return
	}
	for ctx.Err() == nil {
		r, err := streams.Read(ctx, ts, k, &at, 5*time.Second)
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, l := range r.Lines {
			if l == "hello" {
				fmt.Println("read:", l)
				return
			}
		}
		at = r.Next
	}
	// Output:
	// fresh: true
	// read: hello
}
