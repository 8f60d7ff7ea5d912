package tmux_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestServersAndStatus lists the servers of a private socket directory (a live one by name, a
// stale socket left out, an extra path), describes a running server and one that is not, and
// echoes text through both ways of running tmux.
func TestServersAndStatus(t *testing.T) {
	tmpdir := t.TempDir()
	dir := filepath.Join(tmpdir, fmt.Sprintf("tmux-%d", os.Getuid()))
	tmx := testtmux.NewAt(t, filepath.Join(dir, "live"))
	tmx.NewSession("one")
	other := testtmux.New(t)
	other.NewSession("two")
	stale := filepath.Join(dir, "stale")
	if err := os.WriteFile(stale, nil, 0o600); err != nil { // not a socket: never listed
		t.Fatal(err)
	}
	env := append(tmx.Env, "TMUX_TMPDIR="+tmpdir)
	ctx := context.Background()
	probe := tmux.NewServer(tmux.Config{Env: env, Timeout: 3 * time.Second})
	defer probe.Close()
	list, err := probe.Servers(ctx, other.Socket)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].SocketName != "live" || list[1].SocketPath != other.Socket || !list[0].Alive || list[0].Sessions != 1 || list[0].Panes != 1 || list[0].PID == 0 || list[0].Version == "" {
		t.Fatalf("Servers = %+v", list)
	}
	none := tmux.NewServer(tmux.Config{SocketName: "none", Env: env, Timeout: 3 * time.Second})
	defer none.Close()
	st, err := none.Status(ctx)
	if err != nil || st.Alive || st.SocketName != "none" || st.SocketPath != filepath.Join(dir, "none") || st.Version == "" {
		t.Fatalf("Status of no server = %+v, %v", st, err)
	}
	ts := newServer(t, tmx)
	for name, echo := range map[string]func(context.Context, string) ([]string, error){"control": ts.Echo, "spawned": ts.EchoSpawned} {
		if out, err := echo(ctx, "é #{pane_id} ␞"); err != nil || len(out) != 1 || out[0] != "é #{pane_id} ␞" {
			t.Errorf("%s echo = %q, %v", name, out, err)
		}
	}
}
