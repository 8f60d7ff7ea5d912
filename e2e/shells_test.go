package e2e

// Helpers of the shell-configuration matrix (shell_*_test.go): each shell runs in its own
// tmux server and tmux-mcp process, its set-ups (internal/testtmux: Configs) in windows of
// their own, each with a HOME of its own.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// shellClient is a tmux server and a tmux-mcp process for one shell's tests. The server's
// TMUX_TMPDIR and TMPDIR are a directory of its own, so any path below it on a screen, in a log
// or in a history is the framing's (the wrapper scripts live there), whatever the files are
// named.
type shellClient struct {
	*Client
	tmpDir string
	// procHidden: the binary runs with its process table hidden (noProc).
	procHidden bool
}

// startShellClient starts a tmux server and a tmux-mcp process whose temporary files go to a
// directory of their own.
func startShellClient(t *testing.T, env ...string) *shellClient {
	t.Helper()
	tmx := testtmux.New(t)
	tmp := filepath.Join(tmx.Dir, "mcptmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	c := startOn(t, tmx, append([]string{"TMUX_TMPDIR=" + tmp, "TMPDIR=" + tmp}, env...)...)
	return &shellClient{Client: c, tmpDir: tmp, procHidden: slices.Contains(env, noProc)}
}

// For returns the client as seen by subtest t: its helpers fail t.
func (sc *shellClient) For(t *testing.T) *shellClient {
	c := *sc.Client
	c.t, c.Tmx = t, sc.Tmx.For(t)
	return &shellClient{Client: &c, tmpDir: sc.tmpDir, procHidden: sc.procHidden}
}

// forEachShell runs fn in a parallel subtest per shell, each with its own servers; a shell
// that is not installed is skipped.
func forEachShell(t *testing.T, fn func(t *testing.T, sc *shellClient, shell string)) {
	for _, shell := range testtmux.ShellNames() {
		t.Run(shell, func(t *testing.T) {
			testtmux.RequireShell(t, testtmux.Config(shell, "clean").Argv)
			t.Parallel()
			fn(t, startShellClient(t), shell)
		})
	}
}

// attempt is one call of run_shell_command or run_command, normalised: a tool error, or an
// outcome with its status and output.
type attempt struct {
	tool    string
	command string
	errText string // the tool error's text; "" when the call returned a result
	outcome string // completed, timed_out, pane_died, cancelled
	status  int    // -1 when there is none
	output  string // run_command's lines joined by LF
	foreign bool
	raw     string // the structured result, for messages
}

func (a attempt) String() string {
	if a.errText != "" {
		return fmt.Sprintf("%s %q: tool error %q", a.tool, a.command, a.errText)
	}
	return fmt.Sprintf("%s %q: outcome %s, status %d, output %q (%s)", a.tool, a.command, a.outcome, a.status, a.output, a.raw)
}

// ok reports whether the run completed with status and output.
func (a attempt) ok(status int, output string) bool {
	return a.errText == "" && a.outcome == "completed" && a.status == status && a.output == output
}

// busy reports whether the call was refused because the pane is still reserved.
func (a attempt) busy() bool { return a.errText != "" && strings.Contains(a.errText, "busy") }

// runTimeout bounds a run that must complete: very wide on purpose (a loaded machine), never a
// latency assertion. A framing defect shows as a timed_out outcome, which fails the case.
const runTimeout = 8 * time.Second

// try runs command in pane with tool (run_shell_command or run_command) and returns what
// came back, tool errors included.
func (c *Client) try(tool, pane, command string, timeout time.Duration) attempt {
	c.t.Helper()
	args := map[string]any{"command": command}
	if tool == "run_command" {
		args["pane_id"] = pane
		args["timeout"] = timeout.Seconds()
	} else {
		args["paneId"] = pane
		args["timeoutMs"] = timeout.Milliseconds()
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout+30*time.Second)
	defer cancel()
	res, err := c.CS.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	a := attempt{tool: tool, command: command, status: -1}
	if err != nil {
		a.errText = "protocol error: " + err.Error()
		return a
	}
	if res.IsError {
		a.errText = text(res)
		if tool == "run_command" && strings.Contains(a.errText, "is gone") {
			a.outcome = "pane_died"
		}
		return a
	}
	b, _ := json.Marshal(res.StructuredContent)
	a.raw = string(b)
	if tool == "run_command" {
		var out struct {
			ExitStatus *int     `json:"exit_status"`
			TimedOut   bool     `json:"timed_out"`
			Output     []string `json:"output"`
		}
		json.Unmarshal(b, &out)
		a.outcome, a.output = "completed", strings.Join(out.Output, "\n")
		if out.TimedOut {
			a.outcome = "timed_out"
		}
		if out.ExitStatus != nil {
			a.status = *out.ExitStatus
		}
		return a
	}
	var out runOut
	json.Unmarshal(b, &out)
	a.outcome, a.status, a.output, a.foreign = out.Outcome, out.status(), out.Output, out.ForeignOutputSuspected
	return a
}

// tryWhenFree is try, repeated while the pane is refused as busy (a run that timed out
// holds it until its command ends), for at most wait. The last attempt is returned.
func (c *Client) tryWhenFree(tool, pane, command string, wait time.Duration) attempt {
	c.t.Helper()
	deadline := time.Now().Add(wait)
	for {
		a := c.try(tool, pane, command, runTimeout)
		if !a.busy() || time.Now().After(deadline) {
			return a
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// tools alternates the two run tools, so every matrix exercises both.
var tools = [2]string{"run_shell_command", "run_command"}

// Framing traces: what of the frame may never be seen by a person or land in a history.
var (
	markerRe = regexp.MustCompile(`tmx[0-9a-f]{12}`)
	// frameWords are texts of the wrapper itself (its variables and bookkeeping calls, the
	// sourcing line); any of them on a screen or in a history is a trace of the frame.
	frameWords = []string{"tmux-mcp-", "__tmx", `\command \printf`, "builtin printf '\\"}
)

// traces returns the lines of text that hold a trace of the framing (at most 3, then a
// count): the wrapper directory (tmpDir), the literal "tmux-mcp-" of its default name, a
// marker (tmx + 12 hex digits) or the wrapper's own words.
func traces(text, tmpDir string) []string {
	var found []string
	n := 0
	for _, l := range strings.Split(text, "\n") {
		var what []string
		for _, w := range append([]string{tmpDir}, frameWords...) {
			if w != "" && strings.Contains(l, w) {
				what = append(what, fmt.Sprintf("%q", w))
			}
		}
		if m := markerRe.FindString(l); m != "" {
			what = append(what, "marker "+m)
		}
		if len(what) == 0 {
			continue
		}
		if n++; n <= 3 {
			found = append(found, fmt.Sprintf("%s in %q", strings.Join(what, ", "), truncateForLog(strings.TrimSpace(l))))
		}
	}
	if n > 3 {
		found = append(found, fmt.Sprintf("(%d lines in all)", n))
	}
	return found
}

// capture returns the pane's whole scrollback and screen as text.
func capture(tmx *testtmux.Server, pane string) string {
	out, _ := tmx.TryTmux("capture-pane", "-p", "-J", "-S", "-", "-E", "-", "-t", pane)
	return out
}
