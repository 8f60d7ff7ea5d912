package tmux_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/control"
)

// tmux 3.3a writes %session-renamed, %sessions-changed, %client-detached and a few more to every
// control client, including one still identifying itself, and crashes on it (SIGSEGV in
// control_write). Attaches and closes of our control clients run here beside renames, creates
// and kills through the same socket: tmux must survive, and the daemon stay the same. Two
// Server handles share the socket, as list_servers' probe shares it with the main handle.
func TestAttachesBesideNotifications(t *testing.T) {
	tmx := testtmux.New(t)
	sid, _ := tmx.NewSession("keep")
	pid := tmx.Tmux("display-message", "-p", "#{pid}")
	ts := newServer(t, tmx)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	stop := make(chan struct{})
	wg.Add(2)
	go func() { // attaches and departures
		defer wg.Done()
		for i := 0; i < 150; i++ {
			tw, err := ts.WatchSessionTopology(ctx, sid, func(control.Notification) {})
			if err != nil {
				errs <- fmt.Errorf("attach %d: %w", i, err)
				break
			}
			probe := tmux.NewServer(tmux.Config{SocketPath: tmx.Socket, Env: tmx.Env})
			_, err = probe.Query(ctx, []string{"list-sessions"})
			probe.Close() // its command client leaves
			tw.Close()
			if err != nil {
				errs <- fmt.Errorf("probe %d: %w", i, err)
				break
			}
		}
		close(stop)
	}()
	go func() { // notifications to every control client
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			name := fmt.Sprintf("n%d", i%5)
			if _, err := ts.Spawn(ctx, nil, "new-session", "-d", "-s", name); err != nil {
				errs <- fmt.Errorf("new-session: %w", err)
				return
			}
			if _, err := ts.Command(ctx, "rename-session", "-t", name, name+"r"); err != nil {
				errs <- fmt.Errorf("rename-session: %w", err)
				return
			}
			if _, err := ts.Spawn(ctx, nil, "kill-session", "-t", name+"r"); err != nil {
				errs <- fmt.Errorf("kill-session: %w", err)
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if out, err := tmx.TryTmux("display-message", "-p", "-t", "keep", "#{pid}"); err != nil || out != pid {
		t.Fatalf("tmux did not survive: %v %q (daemon was pid %s)", err, out, pid)
	}
}

// A command that waits (wait_for_channel spawns wait-for) sends no notification: it must not
// hold attaches (and so every new stream) until it returns.
func TestWaitForDoesNotHoldAttaches(t *testing.T) {
	tmx := testtmux.New(t)
	tmx.NewSession("keep")
	ts := newServer(t, tmx)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	waited := make(chan error, 1)
	go func() {
		_, err := ts.Spawn(ctx, nil, "wait-for", "tmux-mcp-test")
		waited <- err
	}()
	time.Sleep(200 * time.Millisecond) // let the wait-for start (if it has not, nothing is proved, nothing fails)
	other := newServer(t, tmx)
	start := time.Now()
	tw, err := other.WatchTopology(ctx, func(control.Notification) {})
	if err != nil {
		t.Fatalf("attach beside a wait-for: %v", err)
	}
	tw.Close()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the attach waited %v for the wait-for", d)
	}
	tmx.Tmux("wait-for", "-S", "tmux-mcp-test")
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
}
