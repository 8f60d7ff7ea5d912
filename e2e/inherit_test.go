package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// TestStartedServerInheritsOnlyStdio: a tmux server that tmux-mcp starts (create_session
// with no server running) lives on after it, so it must not hold what the MCP client left
// open in tmux-mcp: here a file on descriptor 3.
func TestStartedServerInheritsOnlyStdio(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd")
	}
	held, err := os.Create(filepath.Join(t.TempDir(), "held-by-the-client"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	tmx := testtmux.New(t) // no server runs until a session is made
	cmd := exec.Command(binary)
	cmd.Env = append(append([]string{}, tmx.Env...), "LIBTMUX_SOCKET_PATH="+tmx.Socket)
	cmd.ExtraFiles = []*os.File{held}
	c := connect(t, tmx, cmd)
	c.OK("create_session", map[string]any{"session_name": "inherit"}, nil)
	pid := strings.TrimSpace(c.Tmx.Tmux("display-message", "-p", "#{pid}"))
	entries, err := os.ReadDir("/proc/" + pid + "/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if target, _ := os.Readlink("/proc/" + pid + "/fd/" + e.Name()); target == held.Name() {
			t.Fatalf("the tmux server tmux-mcp started holds the client's file on descriptor %s", e.Name())
		}
	}
}
