package tmux_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestSnapshotOf checks that SnapshotOf of every pane, window and session holds what the whole
// snapshot holds of it, and refuses what it cannot read exactly: an object that does not exist,
// and a window linked more than once (into another session, or through a session group).
func TestSnapshotOf(t *testing.T) {
	tmx := testtmux.New(t)
	s1, p1 := tmx.NewSession("one")
	p2 := tmx.SplitWindow(p1)
	p3 := tmx.NewWindow(s1)
	s2, _ := tmx.NewSession("two")
	tmx.NewWindow(s2)
	settleNames(t, tmx)
	ts := newServer(t, tmx)
	ctx := context.Background()
	full, err := ts.Snapshot(ctx, tmux.WithAll)
	if err != nil {
		t.Fatal(err)
	}
	parts := tmux.WithPanes | tmux.WithWindows | tmux.WithClients
	for _, p := range full.Panes {
		want := &tmux.Snapshot{Panes: []tmux.Pane{p}, Clients: full.Clients}
		for _, w := range full.Windows {
			if w.WindowID == p.WindowID {
				want.Windows = append(want.Windows, w)
			}
		}
		sameOf(t, ts, p.PaneID, parts, want)
		sameOf(t, ts, p.PaneID, tmux.WithClients, &tmux.Snapshot{Clients: full.Clients})
		sameOf(t, ts, p.PaneID, tmux.WithWindows, &tmux.Snapshot{Windows: want.Windows})
	}
	for _, w := range full.Windows {
		sameOf(t, ts, w.WindowID, parts, &tmux.Snapshot{Windows: []tmux.Window{w}, Panes: full.WindowPanes(w), Clients: full.Clients})
	}
	for _, s := range full.Sessions {
		want := &tmux.Snapshot{Sessions: []tmux.Session{s}, Windows: full.SessionWindows(s.SessionID), Clients: full.Clients}
		for _, p := range full.Panes {
			if p.SessionID == s.SessionID {
				want.Panes = append(want.Panes, p)
			}
		}
		sameOf(t, ts, s.SessionID, tmux.WithAll, want)
	}
	for _, id := range []string{"%999", "@999", "$999"} {
		for _, what := range []tmux.What{tmux.WithPanes, tmux.WithWindows, tmux.WithClients} {
			if _, err := ts.SnapshotOf(ctx, id, what); !errors.Is(err, tmux.ErrNotFound) && !(what == tmux.WithClients && id != "%999") {
				t.Errorf("SnapshotOf(%s, %v): %v, want ErrNotFound", id, what, err)
			}
		}
	}
	if _, err := ts.SnapshotOf(ctx, "$999", tmux.WithSessions); !errors.Is(err, tmux.ErrNotFound) {
		t.Errorf("SnapshotOf($999, WithSessions): %v, want ErrNotFound", err)
	}
	if _, err := ts.SnapshotOf(ctx, p1, tmux.WithSessions); err == nil {
		t.Errorf("SnapshotOf of a pane's session: no refusal")
	}
	for _, bad := range []string{"one", "%1 ", "=one", ""} {
		if _, err := ts.SnapshotOf(ctx, bad, tmux.WithPanes); err == nil || errors.Is(err, tmux.ErrNotFound) {
			t.Errorf("SnapshotOf(%q): %v, want a refusal", bad, err)
		}
	}

	// Commands run after the read, in the same command list; a failing one keeps the read.
	st := &tmux.Screen{Pane: p2}
	snap, err := ts.SnapshotOf(ctx, p2, tmux.WithPanes, st)
	if err != nil || st.Width == 0 || snap.Panes[0].PaneID != p2 {
		t.Errorf("SnapshotOf with an op after it: %v %+v %v", snap, st, err)
	}
	snap, err = ts.SnapshotOf(ctx, p2, tmux.WithPanes, &tmux.Capture{Pane: "%999"})
	if snap == nil || !errors.Is(err, tmux.ErrNotFound) {
		t.Errorf("a failing op after the read: %v %v", snap, err)
	}
	if _, err := ts.SnapshotOf(ctx, p2, tmux.WithPanes, &tmux.ClearPane{Pane: p2}); err == nil {
		t.Error("SnapshotOf ran a mutation after its read")
	}

	// p3's window linked into session two as well; session three grouped with one.
	tmx.Tmux("link-window", "-s", p3, "-t", s2+":")
	tmx.Tmux("new-session", "-d", "-s", "three", "-t", s1)
	wantLinked(t, tmx, ts, p1, p3)
	// A session's own windows and panes are exact however they are linked.
	full, _ = ts.Snapshot(ctx, tmux.WithAll)
	s := sessionsOf(full, s2)
	sameOf(t, ts, s2, tmux.WithAll, &tmux.Snapshot{Sessions: s, Windows: full.SessionWindows(s2), Clients: full.Clients, Panes: panesOf(full, s2)})
}

// TestSnapshotOfLinked checks each way a window comes to have several winlinks on its own,
// on a server of its own: tmux's variables for it count them differently from version to
// version (3.7 counts a session group once, and a session once however often it links the
// window), and SnapshotOf must refuse every one, and take the window again once unlinked.
func TestSnapshotOfLinked(t *testing.T) {
	for _, tc := range []struct {
		name string
		link func(tmx *testtmux.Server, s1, s2, pane string)
	}{
		{"into another session", func(tmx *testtmux.Server, _, s2, pane string) {
			tmx.Tmux("link-window", "-s", pane, "-t", s2+":")
		}},
		{"twice into its session", func(tmx *testtmux.Server, s1, _, pane string) {
			tmx.Tmux("link-window", "-s", pane, "-t", s1+":")
		}},
		{"through a session group", func(tmx *testtmux.Server, s1, _, _ string) {
			tmx.Tmux("new-session", "-d", "-s", "grouped", "-t", s1)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmx := testtmux.New(t)
			s1, p1 := tmx.NewSession("one")
			s2, p2 := tmx.NewSession("two")
			ts := newServer(t, tmx)
			tc.link(tmx, s1, s2, p1)
			wantLinked(t, tmx, ts, p1)
			// The other session's window, linked once, stays readable.
			if _, err := ts.SnapshotOf(context.Background(), p2, tmux.WithPanes|tmux.WithWindows); err != nil {
				t.Errorf("SnapshotOf(%s) of a window linked once: %v", p2, err)
			}
		})
	}
	// Unlinked again, the window is read as any other.
	tmx := testtmux.New(t)
	s1, p1 := tmx.NewSession("one")
	ts := newServer(t, tmx)
	w := tmx.Tmux("display-message", "-p", "-t", p1, "#{window_id}")
	tmx.Tmux("link-window", "-s", w, "-t", s1+":9")
	wantLinked(t, tmx, ts, p1)
	tmx.Tmux("unlink-window", "-t", s1+":9")
	if _, err := ts.SnapshotOf(context.Background(), p1, tmux.WithWindows); err != nil {
		t.Errorf("SnapshotOf(%s) once unlinked: %v", p1, err)
	}
}

// wantLinked checks that SnapshotOf refuses each pane, and its window, with ErrLinked.
func wantLinked(t *testing.T, tmx *testtmux.Server, ts *tmux.Server, panes ...string) {
	t.Helper()
	for _, p := range panes {
		w := tmx.Tmux("display-message", "-p", "-t", p, "#{window_id}")
		for _, id := range []string{p, w} {
			for _, what := range []tmux.What{tmux.WithPanes, tmux.WithWindows} {
				if _, err := ts.SnapshotOf(context.Background(), id, what); !errors.Is(err, tmux.ErrLinked) {
					t.Errorf("SnapshotOf(%s, %v) of a linked window: %v, want ErrLinked", id, what, err)
				}
			}
		}
	}
}

// settleNames waits until every pane runs its shell (a pane shows the forked tmux for a moment
// before the shell is executed, and automatic-rename names its window after it), then turns
// automatic-rename off, so that two reads see the same names however loaded the machine.
func settleNames(t *testing.T, tmx *testtmux.Server) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		out := tmx.Tmux("list-panes", "-a", "-F", "#{pane_current_command}:#{window_name}")
		if !strings.Contains(out, "tmux") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the panes' shells did not start:\n%s", out)
		}
		time.Sleep(20 * time.Millisecond)
	}
	tmx.Tmux("set-option", "-g", "automatic-rename", "off")
}

func sessionsOf(full *tmux.Snapshot, id string) []tmux.Session {
	for _, s := range full.Sessions {
		if s.SessionID == id {
			return []tmux.Session{s}
		}
	}
	return nil
}

func panesOf(full *tmux.Snapshot, sessionID string) []tmux.Pane {
	var out []tmux.Pane
	for _, p := range full.Panes {
		if p.SessionID == sessionID {
			out = append(out, p)
		}
	}
	return out
}

// sameOf checks SnapshotOf(id, what) against want.
func sameOf(t *testing.T, ts *tmux.Server, id string, what tmux.What, want *tmux.Snapshot) {
	t.Helper()
	got, err := ts.SnapshotOf(context.Background(), id, what)
	if err != nil {
		t.Fatalf("SnapshotOf(%s): %v", id, err)
	}
	want.Parts = what
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SnapshotOf(%s):\n got %+v\nwant %+v", id, got, want)
	}
}

// TestSnapshotSeparatorInPath: a pane whose working directory holds the field separator (the
// listing prints the path once, without a length) is listed all the same.
func TestSnapshotSeparatorInPath(t *testing.T) {
	tmx := testtmux.New(t)
	dir := filepath.Join(tmx.Home, "a\u241eb")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	_, p := tmx.NewSession("s")
	tmx.Tmux("send-keys", "-t", p, "cd '"+dir+"'", "Enter")
	ts := newServer(t, tmx)
	ctx := context.Background()
	one, err := ts.SnapshotOf(ctx, p, tmux.WithPanes)
	for err == nil && one.Panes[0].PaneCurrentPath != dir {
		one, err = ts.SnapshotOf(ctx, p, tmux.WithPanes)
	}
	if err != nil {
		t.Fatal(err)
	}
	full, err := ts.Snapshot(ctx, tmux.WithAll)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := full.Pane(p); got != one.Panes[0] {
		t.Fatalf("listed %+v, want %+v", got, one.Panes[0])
	}
}
