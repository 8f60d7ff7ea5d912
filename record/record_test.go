package record_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/asciicast"
	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/record"
	"github.com/tmux-mcp/tmux-mcp/screen"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

func setup(t *testing.T) (*testtmux.Server, *tmux.Server, string) {
	t.Helper()
	tmx := testtmux.New(t)
	_, pane := tmx.NewSession("rec")
	ts := tmux.NewServer(tmux.Config{SocketPath: tmx.Socket, Env: tmx.Env, Timeout: 5 * time.Second})
	t.Cleanup(ts.Close)
	return tmx, ts, pane
}

func readCast(t *testing.T, path string) (asciicast.Header, []asciicast.Event) {
	t.Helper()
	h, evs, err := asciicast.ReadFile(path)
	if err != nil {
		t.Fatalf("%s is not a valid asciicast v2 file: %v", path, err)
	}
	return h, evs
}

func TestRecordSession(t *testing.T) {
	tmx, ts, pane := setup(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.cast")
	tmx.Tmux("send-keys", "-t", pane, "printf '\\033[31mbefore\\nthe start\\033[0m\\n'", "Enter")
	tmx.WaitFor(pane, func(s string) bool { return strings.Contains(s, "the start\n") })
	rec, err := record.Start(ctx, ts, pane, record.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	// The first event draws the screen as it was: its text is tmux's, and the style carried
	// from one line to the next (tmux writes only changes) is kept.
	_, first := readCast(t, path)
	if got, want := screen.Parse([]byte(first[0].Data), 80, 24).Text(), strings.TrimRight(tmx.Tmux("capture-pane", "-p", "-t", pane), "\n"); strings.TrimRight(got, "\n") != want {
		t.Errorf("first frame shows\n%s\nwant\n%s", got, want)
	}
	if g := screen.Parse([]byte(first[0].Data), 80, 24); g.At(0, 2).Style.FG != screen.Indexed(1) {
		t.Errorf("first frame: the second red line is not red: %+v", g.At(0, 2))
	}
	if _, err := record.Start(ctx, ts, pane, record.Options{Path: path}); !errors.Is(err, record.ErrExists) {
		t.Errorf("a second recording into the same file: %v", err)
	}
	tmx.Tmux("send-keys", "-t", pane, "printf '\\033[32mgreen\\033[0m\\n'", "Enter")
	tmx.WaitFor(pane, func(s string) bool { return strings.Contains(s, "green\n") })
	rec.Mark("half way")
	tmx.Tmux("resize-window", "-t", pane, "-x", "100", "-y", "30")
	tmx.WaitFor(pane, func(string) bool { return rec.Summary().Resizes == 1 })
	tmx.Tmux("send-keys", "-t", pane, "echo done", "Enter")
	tmx.WaitFor(pane, func(s string) bool { return strings.Contains(s, "done\n") })
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(asciicast.OutputText(castEvents(t, path)), "done\r\n") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // the test waits for the file; the recorder does not poll
	}
	s := rec.Stop()
	if s.Ended != record.EndStopped || s.Resizes != 1 || s.Width != 100 || s.Height != 30 || s.Markers != 2 {
		t.Errorf("summary %+v", s)
	}
	h, evs := readCast(t, path)
	if h.Width != 80 || h.Height != 24 || h.Title != "bash" || h.Timestamp == 0 {
		t.Errorf("header %+v", h)
	}
	if fi, _ := os.Stat(path); fi.Size() != s.Bytes || fi.Mode().Perm() != 0o600 {
		t.Errorf("file of %d bytes, mode %v; summary says %d", fi.Size(), fi.Mode(), s.Bytes)
	}
	var codes []string
	for _, e := range evs {
		codes = append(codes, e.Code)
	}
	all := strings.Join(codes, "")
	// The first frame, output, the marker, the resize, output, the closing marker.
	if !strings.HasPrefix(all, "o") || !strings.Contains(all, "m") || !strings.Contains(all, "r") || !strings.HasSuffix(all, "m") || len(evs) != s.Events {
		t.Errorf("events %q (%d, summary %d)", all, len(evs), s.Events)
	}
	if out := asciicast.OutputText(evs); !strings.Contains(out, "\x1b[32mgreen\x1b[0m") || strings.Index(out, "green") > strings.Index(out, "done") {
		t.Errorf("output %q", out)
	}
	if evs[len(evs)-1].Data != "recording ended: stopped" {
		t.Errorf("last event %+v", evs[len(evs)-1])
	}
	if again := rec.Stop(); again.Ended != s.Ended {
		t.Errorf("a second Stop: %+v", again)
	}
}

// castEvents reads what the recorder flushed so far.
func castEvents(t *testing.T, path string) []asciicast.Event {
	_, evs, _ := asciicast.ReadFile(path)
	return evs
}

func TestPaneKilledMidRecording(t *testing.T) {
	tmx, ts, pane := setup(t)
	tmx.SplitWindow(pane) // the window outlives the pane
	path := filepath.Join(t.TempDir(), "k.cast")
	rec, err := record.Start(context.Background(), ts, pane, record.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	tmx.Tmux("send-keys", "-t", pane, "yes | head -c 200000", "Enter")
	tmx.Tmux("kill-pane", "-t", pane)
	select {
	case <-rec.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the recording did not end when its pane was killed")
	}
	s := rec.Summary()
	if s.Ended != record.EndPaneExited {
		t.Errorf("ended %q", s.Ended)
	}
	_, evs := readCast(t, path)
	if last := evs[len(evs)-1]; last.Code != asciicast.Marker || last.Data != "recording ended: pane exited" || len(evs) != s.Events {
		t.Errorf("last event %+v of %d (summary %d)", last, len(evs), s.Events)
	}
}

func TestLimitAndRefusals(t *testing.T) {
	tmx, ts, pane := setup(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "l.cast")
	rec, err := record.Start(ctx, ts, pane, record.Options{Path: path, MaxBytes: 8192})
	if err != nil {
		t.Fatal(err)
	}
	tmx.Tmux("send-keys", "-t", pane, "yes recorded | head -c 2000000", "Enter") // far past the limit, even if a busy machine loses some
	select {
	case <-rec.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the recording did not stop at its limit")
	}
	s := rec.Summary()
	fi, _ := os.Stat(path)
	if !s.LimitReached || s.Ended != record.EndLimit || fi.Size() > 8192 || fi.Size() != s.Bytes {
		t.Errorf("summary %+v, file %d bytes", s, fi.Size())
	}
	readCast(t, path)

	// Overwrite replaces; a dead pane is refused.
	rec, err = record.Start(ctx, ts, pane, record.Options{Path: path, Overwrite: true})
	if err != nil {
		t.Fatal(err)
	}
	rec.Stop()
	tmx.Tmux("set-option", "-t", pane, "remain-on-exit", "on")
	tmx.Tmux("send-keys", "-t", pane, "exit", "Enter")
	tmx.WaitFor(pane, func(string) bool {
		out, _ := tmx.TryTmux("display-message", "-p", "-t", pane, "#{pane_dead}")
		return out == "1"
	})
	if _, err := record.Start(ctx, ts, pane, record.Options{Path: path + "2"}); !errors.Is(err, tmux.ErrNotFound) {
		t.Errorf("recording a dead pane: %v", err)
	}
}

// TestReconnect: the stream's session is killed while the pane lives on in another session
// its window is linked into; the recording goes on over a new stream, with a marker there.
func TestReconnect(t *testing.T) {
	tmx, ts, pane := setup(t)
	sidA := strings.TrimSpace(tmx.Tmux("display-message", "-p", "-t", pane, "#{session_id}"))
	sidB := strings.TrimSpace(tmx.Tmux("new-session", "-d", "-P", "-F", "#{session_id}", "-s", "other"))
	tmx.Tmux("link-window", "-s", pane, "-t", sidB+":")
	path := filepath.Join(t.TempDir(), "r.cast")
	rec, err := record.Start(context.Background(), ts, pane, record.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Stop()
	// The stream is attached to the session tmux names for the pane (as WatchPane asks).
	streamSession := strings.TrimSpace(tmx.Tmux("display-message", "-p", "-t", pane, "#{session_id}"))
	if streamSession != sidA && streamSession != sidB {
		t.Fatalf("pane %s is in session %s, not %s or %s", pane, streamSession, sidA, sidB)
	}
	tmx.Tmux("kill-session", "-t", streamSession)
	deadline := time.Now().Add(10 * time.Second)
	for rec.Summary().Markers == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	tmx.Tmux("send-keys", "-t", pane, "echo after-reconnect", "Enter")
	for !strings.Contains(asciicast.OutputText(castEvents(t, path)), "after-reconnect\r\n") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	s := rec.Stop()
	_, evs := readCast(t, path)
	var labels []string
	for _, e := range evs {
		if e.Code == asciicast.Marker {
			labels = append(labels, e.Data)
		}
	}
	if s.Ended != record.EndStopped || len(labels) != 2 || !strings.HasPrefix(labels[0], "stream reconnected") || !strings.Contains(asciicast.OutputText(evs), "after-reconnect\r\n") {
		t.Errorf("summary %+v, markers %q, output %q", s, labels, asciicast.OutputText(evs))
	}
}
