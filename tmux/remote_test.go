package tmux_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testssh"
	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/ssh"
)

// remote is a tmux server on "another host": a private tmux server on this machine, reached
// through a test sshd as -L name.
type remote struct {
	net  *testssh.Net
	sshd *testssh.Sshd
	tmx  *testtmux.Server
	host *ssh.Host
	ts   *tmux.Server
}

func newRemote(t *testing.T) *remote {
	t.Helper()
	n := testssh.New(t)
	d := n.Start("h1")
	r := &remote{net: n, sshd: d, tmx: testtmux.NewAt(t, d.SocketPath("r1"))}
	r.host = &ssh.Host{Name: "h1", Destination: "h1", ConfigFile: n.Config, ConnectTimeout: 3 * time.Second}
	t.Cleanup(r.host.Close)
	r.ts = r.server(t, r.host, tmux.Config{SocketName: "r1"})
	return r
}

func (r *remote) server(t *testing.T, h *ssh.Host, cfg tmux.Config) *tmux.Server {
	cfg.Host = h
	ts := tmux.NewServer(cfg)
	t.Cleanup(ts.Close)
	return ts
}

// TestRemoteServer drives a tmux server over ssh: control-mode reads and writes, the spawned
// fallback (a word with LF), raw spawned output, the identity naming the host, and a live pane
// stream woken by the remote pane's output.
func TestRemoteServer(t *testing.T) {
	r := newRemote(t)
	sid, pane := r.tmx.NewSession("far")
	ctx := context.Background()
	if r.ts.Local() || r.ts.HostName() != "h1" {
		t.Errorf("Local %v, HostName %q", r.ts.Local(), r.ts.HostName())
	}
	snap, err := r.ts.Snapshot(ctx, tmux.WithAll)
	if err != nil {
		t.Fatalf("Snapshot over ssh: %v\n%s", err, r.sshd.Log())
	}
	if len(snap.Sessions) != 1 || snap.Sessions[0].SessionID != sid || snap.Sessions[0].SessionName != "far" {
		t.Fatalf("sessions %+v", snap.Sessions)
	}
	id, err := r.ts.Identity(ctx)
	if err != nil || id.Host != "h1" || id.PID == 0 || id.SocketPath != r.tmx.Socket {
		t.Errorf("identity %+v, %v", id, err)
	}
	if _, err := r.ts.Command(ctx, "rename-session", "-t", sid, "it's &far;"); err != nil {
		t.Fatal(err)
	}
	if got := r.tmx.Tmux("display-message", "-p", "-t", sid, "#{session_name}"); got != `it's &far;` {
		t.Errorf("renamed to %q", got)
	}
	// LF cannot cross control mode: this goes through a spawned tmux over the shared connection.
	if _, err := r.ts.Command(ctx, "set-option", "-t", sid, "@multi", "a\nb 'c' \\d"); err != nil {
		t.Fatal(err)
	}
	if got := r.tmx.Tmux("show-options", "-v", "-t", sid, "@multi"); got != "a\nb 'c' \\d" {
		t.Errorf("@multi is %q", got)
	}
	if _, err := r.ts.Spawn(ctx, []byte("from stdin\n"), "load-buffer", "-b", "rb", "-"); err != nil {
		t.Fatal(err)
	}
	raw, _, err := r.ts.SpawnRaw(ctx, nil, 1<<20, "save-buffer", "-b", "rb", "-")
	if err != nil || string(raw) != "from stdin\n" {
		t.Errorf("save-buffer over ssh: %q, %v", raw, err)
	}

	w, err := r.ts.WatchPane(ctx, pane)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Release()
	off := w.Offset()
	if _, err := r.ts.Exec(ctx, []string{"send-keys", "-t", pane, "-l", "echo re''mote-out"}, []string{"send-keys", "-t", pane, "Enter"}); err != nil {
		t.Fatal(err)
	}
	if !waitStream(t, w, off, "remote-out\r\n", 10*time.Second) {
		t.Fatal("the stream never showed the remote pane's output")
	}
}

// waitStream waits on a watch (no polling) until its output after off holds want.
func waitStream(t *testing.T, w interface {
	Read(int64, int) ([]byte, int64, int64, error)
	Wait(context.Context, int64) error
}, off int64, want string, d time.Duration) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var seen []byte
	for {
		data, next, _, err := w.Read(off, 1<<20)
		seen = append(seen, data...)
		off = next
		if strings.Contains(string(seen), want) {
			return true
		}
		if err != nil {
			t.Logf("stream ended: %v; saw %q", err, seen)
			return false
		}
		if w.Wait(ctx, off) != nil && ctx.Err() != nil {
			t.Logf("saw %q", seen)
			return false
		}
	}
}

// TestRemoteFiles writes, lists and removes files on the host, with names the remote shell
// must not interpret.
func TestRemoteFiles(t *testing.T) {
	r := newRemote(t)
	ctx := context.Background()
	dir, err := r.ts.MkdirTemp(ctx, "tmux-mcp-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("dir %s: %v %v", dir, st, err)
	}
	if filepath.Dir(dir) != r.sshd.TmuxTmpdir {
		t.Errorf("dir %s: not in the host's TMUX_TMPDIR %s, beside tmux's sockets", dir, r.sshd.TmuxTmpdir)
	}
	path := filepath.Join(dir, "it's a $(file) \\ *")
	data := []byte("line 1\nline 'two'\n\x00\xff")
	if err := r.ts.WriteFile(ctx, path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != string(data) {
		t.Fatalf("read back %q, %v", got, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
	// SaveText: through the tmux server (which must run), the file written a moment later.
	r.tmx.NewSession("files")
	for i, text := range []string{"#!/bin/sh\necho \"it's $HOME\" \\ `x` #{pane_id}\n\tü\n", "bin\x00ary\xff"} {
		p := filepath.Join(dir, fmt.Sprintf("saved%d", i))
		if err := r.ts.SaveText(ctx, p, text); err != nil {
			t.Fatal(err)
		}
		var got []byte
		for start := time.Now(); time.Since(start) < 5*time.Second; time.Sleep(5 * time.Millisecond) {
			if got, err = os.ReadFile(p); err == nil && len(got) == len(text) {
				break
			}
		}
		if string(got) != text {
			t.Errorf("SaveText %q: read back %q", text, got)
		}
	}
	if err := r.ts.RemoveAll(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s still there: %v", dir, err)
	}
	r.tmx.NewSession("s")
	names, err := r.ts.SocketNames(ctx)
	if err != nil || !slices.Contains(names, "r1") {
		t.Errorf("SocketNames %v, %v", names, err)
	}
}

// TestRemoteFailures: each way a host can fail names the host and says what went wrong, ssh's
// own message included, without waiting past the connect timeout.
func TestRemoteFailures(t *testing.T) {
	r := newRemote(t)
	r.tmx.NewSession("s")
	r.net.AddClosed("closed")
	r.net.AddRefusedKey("nokey", r.sshd)
	fake := filepath.Join(t.TempDir(), "tmux31")
	// tmux 3.1 knows no -N: it prints its usage and fails.
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'tmux: unknown option -- N' >&2\necho 'usage: tmux [-2CluvV] [-c shell-command] [-f file]' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, dest, bin string
		want            error
		msg             string
	}{
		{"closed", "closed", "", tmux.ErrUnreachable, "refused"},
		{"nokey", "nokey", "", tmux.ErrUnreachable, "Permission denied"},
		{"notmux", "h1", "/nonexistent/tmux", tmux.ErrNoTmux, "/nonexistent/tmux"},
		{"old", "h1", fake, tmux.ErrTmuxTooOld, "usage: tmux"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := &ssh.Host{Name: c.name, Destination: c.dest, ConfigFile: r.net.Config, ConnectTimeout: 2 * time.Second}
			defer h.Close()
			ts := r.server(t, h, tmux.Config{Bin: c.bin, SocketName: "r1"})
			start := time.Now()
			_, err := ts.Snapshot(context.Background(), tmux.WithSessions)
			var he *tmux.HostError
			if !errors.Is(err, c.want) || !errors.As(err, &he) || he.Host != c.name || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("err = %v, want %v naming host %s and %q", err, c.want, c.name, c.msg)
			}
			if el := time.Since(start); el > 10*time.Second {
				t.Errorf("failed after %v", el)
			}
			// The next call gets the same answer: asked again after a quick failure, at once
			// (remembered) within a second of a slow one.
			start = time.Now()
			if _, err2 := ts.Snapshot(context.Background(), tmux.WithSessions); !errors.Is(err2, c.want) {
				t.Errorf("second call: %v", err2)
			}
			t.Logf("%v (second call %v)", err, time.Since(start))
		})
	}
}

// TestRemoteConnectionDrop kills the sshd under a live stream: the stream ends at once, the
// next request fails naming the host, and once the host is back the next request reconnects.
func TestRemoteConnectionDrop(t *testing.T) {
	r := newRemote(t)
	_, pane := r.tmx.NewSession("s")
	ctx := context.Background()
	w, err := r.ts.WatchPane(ctx, pane)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Release()
	killed := time.Now()
	r.sshd.Kill()
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	off := w.Offset()
	for {
		_, next, _, rerr := w.Read(off, 1<<20)
		off = next
		if rerr != nil {
			t.Logf("stream ended after %v: %v", time.Since(killed), rerr)
			break
		}
		if w.Wait(wctx, off) != nil && wctx.Err() != nil {
			t.Fatal("the stream did not end when the connection dropped")
		}
	}
	// How soon is not judged (a busy machine): the stream ending at all, within wctx, is.
	if _, err := r.ts.Snapshot(ctx, tmux.WithSessions); !errors.Is(err, tmux.ErrUnreachable) {
		t.Errorf("request with the host down: %v", err)
	}
	// The failure above was quick (refused): the first request once the host is back reaches
	// it. On a busy machine even a refusal can be slow, and is then remembered for a moment:
	// the error says so and when the host is asked again, and then it is reached.
	r.sshd.Restart()
	_, err = r.ts.Snapshot(ctx, tmux.WithSessions)
	var he *tmux.HostError
	if errors.As(err, &he) && he.Age > 0 {
		t.Logf("the refusal was slow, remembered: %v", err)
		time.Sleep(he.RetryIn)
		_, err = r.ts.Snapshot(ctx, tmux.WithSessions)
	}
	if err != nil {
		t.Errorf("the first request after the host came back: %v", err)
	}
}
