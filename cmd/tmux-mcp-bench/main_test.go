package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestMain(m *testing.M) {
	// The no-op floor re-runs this binary (here the test binary) as a go-sdk server.
	if len(os.Args) == 2 && os.Args[1] == noopServerArg {
		serveNoop()
		return
	}
	os.Exit(m.Run())
}

// TestBenchSmoke runs every row of the benchmark but those at scale, with few samples: the
// command must keep working as the server changes.
func TestBenchSmoke(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("no tmux")
	}
	bin := filepath.Join(t.TempDir(), "tmux-mcp")
	if out, err := exec.Command("go", "build", "-o", bin, "../tmux-mcp").CombinedOutput(); err != nil {
		t.Fatalf("building tmux-mcp: %v\n%s", err, out)
	}
	if err := run(config{bin: bin, n: 5, runs: 2, remote: true, compare: []build{{label: "again", bin: bin}}}); err != nil {
		t.Fatal(err)
	}
}
