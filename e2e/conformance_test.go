package e2e

import (
	"context"
	"encoding/json"
	"fmt"
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
//
// A revision whose run fails is run once more, and fails the test only when it fails again:
// once, on a loaded CI machine, the suite flagged tools-list as an unexpected failure while
// its own summary counted that scenario's checks all passed. The first run's failing checks
// are logged either way, so a flake still leaves its details.
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
			err := runConformance(t, suite, endpoint, rev, "first run")
			if err == nil {
				return
			}
			t.Logf("the conformance suite at %s failed (%v); running it once more", rev, err)
			if err := runConformance(t, suite, endpoint, rev, "second run"); err != nil {
				t.Fatalf("the conformance suite at %s failed twice: %v (see the output above: an unexpected failure, or a listed one that passes now)", rev, err)
			}
		})
	}
}

// runConformance runs the suite once against endpoint at rev, logging its output and, when
// it fails, every check that did not succeed.
func runConformance(t *testing.T, suite []string, endpoint, rev, label string) error {
	t.Helper()
	baseline, err := filepath.Abs("testdata/conformance/" + rev + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	results := t.TempDir()
	if d := os.Getenv("TMUX_MCP_CONFORMANCE_RESULTS"); d != "" {
		results = filepath.Join(d, rev, strings.ReplaceAll(label, " ", "-")) // kept, to read each check's details
	}
	args := append(suite[1:], "server", "--url", endpoint, "--requirements", rev, "--expected-failures", baseline, "-o", results)
	cmd := exec.CommandContext(ctx, suite[0], args...)
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	t.Logf("%s at %s:\n%s", label, rev, out)
	if err != nil {
		t.Logf("checks that failed or warned (listed expected failures among them):\n%s", unsuccessfulChecks(results))
	}
	return err
}

// unsuccessfulChecks lists the checks under a results directory of the suite (one
// checks.json per scenario) that failed or warned, with their messages.
func unsuccessfulChecks(dir string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintf(&b, "%s: %v\n", f, err)
			continue
		}
		var checks []struct{ ID, Status, ErrorMessage string }
		if err := json.Unmarshal(data, &checks); err != nil {
			fmt.Fprintf(&b, "%s: %v\n", f, err)
			continue
		}
		for _, c := range checks {
			if c.Status == "FAILURE" || c.Status == "WARNING" {
				fmt.Fprintf(&b, "%s: %s %s: %s\n", filepath.Base(filepath.Dir(f)), c.Status, c.ID, c.ErrorMessage)
			}
		}
	}
	if b.Len() == 0 {
		return "(none recorded)"
	}
	return b.String()
}
