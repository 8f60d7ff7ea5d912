package tmux_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

func newServer(t testing.TB, tmx *testtmux.Server) *tmux.Server {
	ts := tmux.NewServer(tmux.Config{SocketPath: tmx.Socket, Env: tmx.Env, Timeout: 3 * time.Second})
	t.Cleanup(ts.Close)
	return ts
}

func TestNoServer(t *testing.T) {
	tmx := testtmux.New(t)
	ts := newServer(t, tmx)
	ctx := context.Background()
	if _, err := ts.Snapshot(ctx, tmux.WithAll); !errors.Is(err, tmux.ErrServerNotRunning) {
		t.Fatalf("Snapshot without a server: %v, want ErrServerNotRunning", err)
	}
	if _, err := os.Stat(tmx.Socket); err == nil {
		if _, err := tmx.TryTmux("list-sessions"); err == nil {
			t.Fatal("a read started a tmux server")
		}
	}
}

func TestNoTmuxBinary(t *testing.T) {
	ts := tmux.NewServer(tmux.Config{Bin: "/nonexistent/tmux", SocketName: "x"})
	defer ts.Close()
	if _, err := ts.Query(context.Background(), []string{"list-sessions"}); !errors.Is(err, tmux.ErrNoTmux) {
		t.Fatalf("err = %v, want ErrNoTmux", err)
	}
}

func TestSnapshotNamesRoundTrip(t *testing.T) {
	tmx := testtmux.New(t)
	tmx.NewSession("plain")
	ts := newServer(t, tmx)
	ctx := context.Background()
	names := []string{"sp ace", "ünï␞cøde", "quote'\"", "hash#{pane_id}", "semi;colon"}
	for _, n := range names {
		tmx.Tmux("new-session", "-d", "-s", strings.ReplaceAll(n, "#", "##"))
	}
	snap, err := ts.Snapshot(ctx, tmux.WithAll)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, s := range snap.Sessions {
		got[s.SessionName] = true
		if s.WindowCount != 1 || s.ActivePaneID == "" || s.ActiveWindowID == "" || s.Created == 0 {
			t.Errorf("session %+v", s)
		}
	}
	for _, n := range names {
		if !got[n] {
			t.Errorf("session %q not read back; got %v", n, got)
		}
	}
	if len(snap.Panes) != len(names)+1 || len(snap.Windows) != len(names)+1 {
		t.Errorf("%d panes, %d windows", len(snap.Panes), len(snap.Windows))
	}
	for _, s := range snap.Sessions {
		if s.AttachedClients != 0 {
			t.Errorf("%s: attached_clients %d with only control clients", s.SessionName, s.AttachedClients)
		}
	}
}

// A word with LF goes over control mode (in double quotes with escapes).
func TestLFArgument(t *testing.T) {
	tmx := testtmux.New(t)
	tmx.NewSession("s")
	ts := newServer(t, tmx)
	ctx := context.Background()
	val := "line one\nline two"
	if _, err := ts.Exec(ctx, []string{"set-buffer", "-b", "lf", val}); err != nil {
		t.Fatal(err)
	}
	out, err := ts.Query(ctx, []string{"show-buffer", "-b", "lf"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(out[0], "\n"); got != val {
		t.Fatalf("buffer = %q, want %q", got, val)
	}
}

// LoadBuffer stores any bytes exactly: text over control mode, NUL and 0xFF through a spawned
// load-buffer's stdin.
func TestLoadBuffer(t *testing.T) {
	tmx := testtmux.New(t)
	tmx.NewSession("s")
	ts := newServer(t, tmx)
	ctx := context.Background()
	for i, data := range []string{"it's \"$HOME\" \\ #{pane_id}\nline two\n\x01ü", "nul\x00 and \xff", "x"} {
		name := fmt.Sprintf("lb%d", i)
		if err := ts.LoadBuffer(ctx, name, []byte(data)); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(tmx.Dir, name)
		if _, err := ts.Exec(ctx, []string{"save-buffer", "-b", name, file}); err != nil {
			t.Fatal(err)
		}
		var got []byte
		for start := time.Now(); time.Since(start) < 5*time.Second; time.Sleep(5 * time.Millisecond) {
			if got, _ = os.ReadFile(file); len(got) == len(data) {
				break
			}
		}
		if string(got) != data {
			t.Errorf("buffer %s = %q, want %q", name, got, data)
		}
	}
}

func TestCommandError(t *testing.T) {
	tmx := testtmux.New(t)
	tmx.NewSession("s")
	ts := newServer(t, tmx)
	_, err := ts.Query(context.Background(), []string{"list-panes", "-t", "%999"})
	var ce *tmux.CommandError
	if !errors.As(err, &ce) || !errors.Is(err, tmux.ErrNotFound) {
		t.Fatalf("err = %v (%T), want a not-found CommandError", err, err)
	}
}

func TestReconnectAfterControlClientDies(t *testing.T) {
	tmx := testtmux.New(t)
	tmx.NewSession("a")
	ts := newServer(t, tmx)
	ctx := context.Background()
	if _, err := ts.Query(ctx, []string{"list-sessions"}); err != nil {
		t.Fatal(err)
	}
	// Kill every control client of the server: the next request reconnects.
	for _, line := range strings.Split(tmx.Tmux("list-clients", "-F", "#{client_control_mode} #{client_pid}"), "\n") {
		var cm, pid int
		if _, err := fmtSscan(line, &cm, &pid); err == nil && cm == 1 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	time.Sleep(100 * time.Millisecond)
	if _, err := ts.Query(ctx, []string{"list-sessions"}); err != nil {
		t.Fatalf("after the control client died: %v", err)
	}
}

func TestNewDaemonIdentity(t *testing.T) {
	tmx := testtmux.New(t)
	tmx.NewSession("a")
	ts := newServer(t, tmx)
	ctx := context.Background()
	id1, err := ts.Identity(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if id1.PID == 0 || id1.StartTime == 0 || id1.SocketPath != tmx.Socket {
		t.Fatalf("identity %+v", id1)
	}
	tmx.Kill()
	if _, err := ts.Query(ctx, []string{"list-sessions"}); !errors.Is(err, tmux.ErrServerNotRunning) {
		t.Fatalf("after kill: %v", err)
	}
	time.Sleep(1100 * time.Millisecond) // start_time has a resolution of seconds
	tmx.NewSession("b")
	id2, err := ts.Identity(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if id2 == id1 {
		t.Fatalf("a restarted server kept identity %+v", id2)
	}
	snap, err := ts.Snapshot(ctx, tmux.WithSessions)
	if err != nil || len(snap.Sessions) != 1 || snap.Sessions[0].SessionName != "b" {
		t.Fatalf("snapshot after restart: %+v %v", snap, err)
	}
}

// TestWatchedPanes: a person's client watches the panes of its window (the active one when
// zoomed), whether a terminal client or a control-mode client in a terminal (iTerm2's tmux -CC);
// tmux-mcp's own control-mode clients (newServer's) watch nothing.
func TestWatchedPanes(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script is not installed")
	}
	for _, how := range []string{"attach", "-CC attach"} {
		t.Run(strings.Fields(how)[0], func(t *testing.T) { watchedPanes(t, how) })
	}
}

func watchedPanes(t *testing.T, how string) {
	tmx := testtmux.New(t)
	_, p1 := tmx.NewSession("seen")
	p2 := tmx.SplitWindow(p1)
	_, other := tmx.NewSession("unseen")
	attach := exec.Command("script", "-qfc", "tmux -S "+tmx.Socket+" "+how+" -t seen", "/dev/null")
	attach.Env = append(tmx.Env, "TERM=xterm")
	stdin, _ := attach.StdinPipe()
	if err := attach.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); attach.Process.Kill(); attach.Wait() }()
	ts := newServer(t, tmx)
	ctx := context.Background()
	var snap *tmux.Snapshot
	deadline := time.Now().Add(5 * time.Second)
	for {
		var err error
		snap, err = ts.Snapshot(ctx, tmux.WithAll)
		if err != nil {
			t.Fatal(err)
		}
		if snap.TerminalClients(snap.Sessions[0].SessionID)+snap.TerminalClients(snap.Sessions[1].SessionID) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the terminal client never attached")
		}
		time.Sleep(20 * time.Millisecond)
	}
	w := snap.Watched()
	if !w[p1] || !w[p2] || w[other] {
		t.Fatalf("watched = %v; want %s and %s, not %s", w, p1, p2, other)
	}
	samePaneSnapshot(t, ts, snap, p1, p2, other)
	tmx.Tmux("resize-pane", "-Z", "-t", p1)
	snap, _ = ts.Snapshot(ctx, tmux.WithAll)
	if w := snap.Watched(); !w[p1] || w[p2] {
		t.Fatalf("zoomed: watched = %v; want only %s", w, p1)
	}
	samePaneSnapshot(t, ts, snap, p1, p2, other, "%999")
}

// samePaneSnapshot checks that SnapshotOf a pane answers Pane and Watched for it as the full
// snapshot does.
func samePaneSnapshot(t *testing.T, ts *tmux.Server, full *tmux.Snapshot, panes ...string) {
	t.Helper()
	for _, id := range panes {
		one, err := ts.SnapshotOf(context.Background(), id, tmux.WithPanes|tmux.WithClients)
		_, ok1 := full.Pane(id)
		if !ok1 {
			if !errors.Is(err, tmux.ErrNotFound) {
				t.Errorf("%s: SnapshotOf a missing pane: %v, want ErrNotFound", id, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		p1, _ := full.Pane(id)
		p2, ok2 := one.Pane(id)
		if !ok2 || p1 != p2 || full.Watched()[id] != one.Watched()[id] || full.Watches(p1) != full.Watched()[id] || len(one.Panes) > 1 {
			t.Errorf("%s: SnapshotOf %+v %v watched=%v; full %+v watched=%v", id, p2, ok2, one.Watched()[id], p1, full.Watched()[id])
		}
	}
}

func BenchmarkQuery(b *testing.B) {
	tmx := testtmux.New(b)
	tmx.NewSession("s")
	ts := newServer(b, tmx)
	ctx := context.Background()
	for b.Loop() {
		if _, err := ts.Query(ctx, []string{"display-message", "-p", "x"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSnapshot(b *testing.B) {
	tmx := testtmux.New(b)
	tmx.NewSession("s")
	ts := newServer(b, tmx)
	ctx := context.Background()
	for b.Loop() {
		if _, err := ts.Snapshot(ctx, tmux.WithAll); err != nil {
			b.Fatal(err)
		}
	}
}

// Closing a Server detaches its command client and its stream connections (three sessions
// watched here): tmux must survive it, turn after turn.
func TestCloseLeavesTmuxRunning(t *testing.T) {
	tmx := testtmux.New(t)
	var sessions, panes []string
	for _, name := range []string{"a", "b", "c"} {
		s, p := tmx.NewSession(name)
		sessions, panes = append(sessions, s), append(panes, p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i := 0; i < 10; i++ {
		ts := tmux.NewServer(tmux.Config{SocketPath: tmx.Socket, Env: tmx.Env, Timeout: 3 * time.Second})
		hub, err := ts.Hub()
		if err != nil {
			t.Fatal(err)
		}
		for j := range sessions {
			if _, err := hub.Watch(ctx, sessions[j], panes[j]); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := ts.Query(ctx, []string{"list-sessions"}); err != nil {
			t.Fatal(err)
		}
		tmx.Tmux("send-keys", "-t", panes[i%len(panes)], "echo hi", "Enter")
		ts.Close()
		time.Sleep(100 * time.Millisecond)
		if out, err := tmx.TryTmux("list-sessions"); err != nil {
			t.Fatalf("turn %d: tmux died when a Server closed: %v: %s", i, err, out)
		}
	}
}
