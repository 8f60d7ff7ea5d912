package tmux_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/shellrun"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// privateServer starts a tmux server of its own (its socket in a new temp directory, no
// configuration file, HOME there too) with one session, demo, running sh, and returns a handle
// on it and the directory. done ends that server only, and removes the directory.
func privateServer() (ts *tmux.Server, dir string, done func(), err error) {
	if dir, err = os.MkdirTemp("", "tmux"); err != nil {
		return nil, "", nil, err
	}
	sock := filepath.Join(dir, "sock")
	env := append(os.Environ(), "HOME="+dir, "TMUX=", "ENV=", "PS1=$ ")
	start := exec.Command("tmux", "-S", sock, "-f", os.DevNull, "new-session", "-d", "-s", "demo", "-x", "80", "-y", "24", "sh")
	start.Env = env
	if out, err := start.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, "", nil, fmt.Errorf("starting tmux: %v: %s", err, out)
	}
	ts = tmux.NewServer(tmux.Config{SocketPath: sock, Env: env})
	return ts, dir, func() {
		ts.Spawn(context.Background(), nil, "kill-server")
		ts.Close()
		os.RemoveAll(dir)
	}, nil
}

// Example reads a private server's sessions, windows and panes in one snapshot, changes it with
// a command list (one instant for tmux), and asks tmux to expand a format.
func Example() {
	ts, _, done, err := privateServer()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	ctx := context.Background()

	if _, err := ts.Exec(ctx, []string{"rename-window", "-t", "demo", "editor"}, []string{"split-window", "-d", "-t", "demo", "sh"}); err != nil {
		fmt.Println(err)
		return
	}
	snap, err := ts.Snapshot(ctx, tmux.WithAll)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range snap.Windows {
		fmt.Printf("session %s, window %s: %d panes\n", w.SessionName, w.WindowName, w.PaneCount)
	}
	out, err := ts.Command(ctx, "display-message", "-p", "-t", "demo", "#{session_windows} window, #{window_panes} panes")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out[0])
	// Output:
	// session demo, window editor: 2 panes
	// 1 window, 2 panes
}

// ExampleServer_WatchPane runs a framed command (package shellrun) in a pane and follows the
// pane's live output, as tmux sends it, until the run's end marker: no polling, the stream
// wakes the reader. The status and output come out of the markers.
func ExampleServer_WatchPane() {
	ts, dir, done, err := privateServer()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	snap, err := ts.Snapshot(ctx, tmux.WithPanes)
	if err != nil {
		fmt.Println(err)
		return
	}
	pane := snap.Panes[0].PaneID
	w, err := ts.WatchPane(ctx, pane)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Release()

	id := shellrun.NewID()
	script := filepath.Join(dir, "run.sh")
	text, err := shellrun.Script(shellrun.Sh, id, "printf 'one\\ntwo\\n'; exit 7", script, shellrun.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	os.WriteFile(script, []byte(text), 0o600)
	from := w.Offset() // everything the pane prints from now on
	if _, err := ts.Exec(ctx, []string{"send-keys", "-t", pane, "-l", shellrun.Line(shellrun.Sh, script)}, []string{"send-keys", "-t", pane, "Enter"}); err != nil {
		fmt.Println(err)
		return
	}
	f := stream.NewFollower(w, from)
	var raw []byte
	var p shellrun.Parsed
	for !p.Done {
		ch, err := f.Read(ctx, 0)
		if err != nil {
			fmt.Println(err)
			return
		}
		raw = append(raw, ch.Data...)
		if p = shellrun.Parse(raw, id); !p.Done {
			if err := f.Wait(ctx); err != nil {
				fmt.Println(err)
				return
			}
		}
	}
	fmt.Printf("exit status %d, output %q\n", p.Status, strings.Split(string(p.Body), "\r\n"))
	// Output: exit status 7, output ["one" "two"]
}
