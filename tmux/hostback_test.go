package tmux_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testssh"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/ssh"
)

// A host that refuses is asked again by the very next request (a host that comes back is
// reached at once); a host that does not answer has its failure remembered for about a second,
// and a request given it meanwhile says so, then the host is asked again.
func TestRemoteFailureRemembered(t *testing.T) {
	n := testssh.New(t)
	n.AddClosed("down")
	n.AddSilent("mute")
	query := func(ts *tmux.Server) (*tmux.HostError, time.Duration) {
		t.Helper()
		began := time.Now()
		_, err := ts.Query(context.Background(), []string{"list-sessions"})
		var he *tmux.HostError
		if !errors.As(err, &he) {
			t.Fatalf("%v, want a host error", err)
		}
		return he, time.Since(began)
	}
	server := func(name string) *tmux.Server {
		h := &ssh.Host{Name: name, Destination: name, ConfigFile: n.Config, ConnectTimeout: time.Second}
		t.Cleanup(h.Close)
		ts := tmux.NewServer(tmux.Config{Host: h, SocketName: "x"})
		t.Cleanup(ts.Close)
		return ts
	}

	down := server("down")
	for i := range 3 {
		if he, _ := query(down); he.Age != 0 || strings.Contains(he.Error(), "remembered") {
			t.Errorf("refused, call %d: a remembered failure: %v", i, he)
		}
	}

	mute := server("mute")
	he, took := query(mute)
	if he.Age != 0 || took < 900*time.Millisecond {
		t.Fatalf("first call (took %v): %v", took, he)
	}
	he, took = query(mute)
	if he.Age <= 0 || he.RetryIn <= 0 || he.RetryIn > 2*time.Second || !strings.Contains(he.Error(), "remembered") || !strings.Contains(he.Error(), "asked again in") {
		t.Fatalf("second call (took %v): %v, want the first one's failure, saying it was remembered", took, he)
	}
	t.Logf("%v", he)
	time.Sleep(he.RetryIn)
	if he, took = query(mute); he.Age != 0 || took < 900*time.Millisecond {
		t.Errorf("after the pause (took %v): %v, want the host asked again", took, he)
	}
}
