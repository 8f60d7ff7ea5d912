package testtmux_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/procfs"
	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// TestKillUnreachableServer: Kill ends its server even when kill-server cannot reach it (here
// its socket is gone, as after a kill-server that failed on a loaded machine and the removal
// of the test's directory), so no tmux server outlives its test.
func TestKillUnreachableServer(t *testing.T) {
	if !procfs.Available() {
		t.Skip("no /proc")
	}
	tmx := testtmux.New(t)
	tmx.NewSession("gone")
	pid, err := strconv.Atoi(strings.TrimSpace(tmx.Tmux("display-message", "-p", "#{pid}")))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(tmx.Socket); err != nil {
		t.Fatal(err)
	}
	tmx.Kill()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if procfs.Cmdline(pid) == nil { // gone, or a zombie waiting for its reaper
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("tmux server %d still runs after Kill", pid)
		}
	}
}
