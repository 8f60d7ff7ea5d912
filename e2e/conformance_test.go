package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// TestConformance runs the official MCP conformance suite in server mode over HTTP, at each
// revision's wire (2025-11-25 with sessions, 2026-07-28 stateless), when TMUX_MCP_CONFORMANCE
// names its command (.ci/conformance.sh sets it). Scenarios that fail are allowed only as
// testdata/conformance/<revision>.yaml lists them, each with its reason; one listed
// that passes fails too (the suite calls the list stale). The suite speaks HTTP only, so stdio
// is not run (TestTSClient covers stdio at both revisions).
func TestConformance(t *testing.T) {
	suite := strings.Fields(os.Getenv("TMUX_MCP_CONFORMANCE"))
	if len(suite) == 0 {
		t.Skip("TMUX_MCP_CONFORMANCE is not set (.ci/conformance.sh sets it when Node and the npm registry are there)")
	}
	tmx := testtmux.New(t)
	_, pane := tmx.NewSession("conformance")
	tmx.WaitPrompt(pane)
	endpoint := tokenProxy(t, startHTTPBinary(t, tmx))
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(rev, func(t *testing.T) {
			baseline, err := filepath.Abs("testdata/conformance/" + rev + ".yaml")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
			defer cancel()
			results := t.TempDir()
			if d := os.Getenv("TMUX_MCP_CONFORMANCE_RESULTS"); d != "" {
				results = filepath.Join(d, rev) // kept, to read each check's details
			}
			args := append(suite[1:], "server", "--url", endpoint, "--requirements", rev, "--expected-failures", baseline, "-o", results)
			cmd := exec.CommandContext(ctx, suite[0], args...)
			cmd.Dir = t.TempDir()
			out, err := cmd.CombinedOutput()
			t.Logf("%s", out)
			if err != nil {
				t.Fatalf("the conformance suite at %s: %v (see the output above: an unexpected failure, or a listed one that passes now)", rev, err)
			}
		})
	}
}
