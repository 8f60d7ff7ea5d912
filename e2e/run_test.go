package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// runOut is run_shell_command's structured result.
type runOut struct {
	EffectiveTimeoutMs     int64  `json:"effectiveTimeoutMs"`
	DroppedLines           int    `json:"droppedLines"`
	MissedBytes            int64  `json:"missedBytes"`
	OmittedBytes           int64  `json:"omittedBytes"`
	ForeignOutputSuspected bool   `json:"foreignOutputSuspected"`
	ExitStatus             *int   `json:"exitStatus"`
	Outcome                string `json:"outcome"`
	Output                 string `json:"output"`
	OutputComplete         bool   `json:"outputComplete"`
	PaneID                 string `json:"paneId"`
	ReturnedBytes          int    `json:"returnedBytes"`
	StillRunning           bool   `json:"stillRunning"`
}

func (r runOut) status() int {
	if r.ExitStatus == nil {
		return -1
	}
	return *r.ExitStatus
}

// run calls run_shell_command, which must not be a tool error.
func (c *Client) run(pane, command string, extra ...any) runOut {
	c.t.Helper()
	args := map[string]any{"paneId": pane, "command": command}
	for i := 0; i+1 < len(extra); i += 2 {
		args[extra[i].(string)] = extra[i+1]
	}
	var out runOut
	c.OK("run_shell_command", args, &out)
	return out
}

// typeLine types a line into a pane directly (as a person would), for test set-up.
func typeLine(tmx *testtmux.Server, pane, line string) {
	tmx.Tmux("send-keys", "-t", pane, "-l", line)
	tmx.Tmux("send-keys", "-t", pane, "Enter")
}

// checkNoEcho fails when the output holds anything of the frame: the typed line or a marker.
func checkNoEcho(t *testing.T, what string, out runOut) {
	t.Helper()
	for _, bad := range []string{"tmux-mcp-", "tmx", "__tmx"} {
		if strings.Contains(out.Output, bad) {
			t.Errorf("%s: output holds %q (echo or marker): %q", what, bad, out.Output)
		}
	}
}

func TestRunShellCommandSeedContract(t *testing.T) {
	t.Parallel()
	c := start(t)
	var tool *mcp.Tool
	for tl, err := range c.CS.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tl.Name == "run_shell_command" {
			tool = tl
		}
	}
	if tool == nil {
		t.Fatal("run_shell_command is not offered")
	}
	for kind, got := range map[string]any{"inputSchema": tool.InputSchema, "outputSchema": tool.OutputSchema} {
		if g, w := asJSON(t, got), seedJSON(t, "run_shell_command", kind); !reflect.DeepEqual(g, w) {
			b, _ := json.Marshal(got)
			t.Errorf("%s differs from the seed:\n got %s", kind, b)
		}
	}
	// The seed's annotations: readOnly false, destructive true, idempotent false, openWorld true.
	// (The SDK omits false readOnlyHint and idempotentHint on the wire; false is their default.)
	a := tool.Annotations
	if a == nil || a.ReadOnlyHint || a.IdempotentHint || a.DestructiveHint == nil || !*a.DestructiveHint || a.OpenWorldHint == nil || !*a.OpenWorldHint {
		b, _ := json.Marshal(a)
		t.Errorf("annotations %s, want the seed's (readOnly false, destructive true, idempotent false, openWorld true)", b)
	}
	// The seed document's own text (a copy: testdata/seeds/README.md says where it came from).
	seed, err := os.ReadFile("../testdata/seeds/004_615ddba000656c49.txt")
	if err != nil {
		t.Fatal(err)
	}
	desc := ""
	for _, l := range strings.Split(string(seed), "\n") {
		if d, ok := strings.CutPrefix(l, "> "); ok {
			desc = d
			break
		}
	}
	if tool.Description != desc {
		t.Errorf("description differs from the seed:\n got %q\nwant %q", tool.Description, desc)
	}
}

// shellCase is one command run in every shell; fish gets fishCmd when set, and skips the case
// when posixOnly.
type shellCase struct {
	name      string
	cmd       string
	fishCmd   string
	posixOnly bool
	status    int
	output    string
}

var shellCases = []shellCase{
	{name: "status0", cmd: "true", status: 0},
	{name: "status1", cmd: "false", status: 1},
	{name: "status7", cmd: "sh -c 'exit 7'", status: 7},
	{name: "status255", cmd: "sh -c 'exit 255'", status: 255},
	{name: "exit7-inside", cmd: "echo before; exit 7; echo after", status: 7, output: "before"},
	{name: "errexit", cmd: "set -e; false; echo not reached", posixOnly: true, status: 1},
	{name: "multiline", cmd: "echo one\necho two\n\necho three", status: 0, output: "one\ntwo\nthree"},
	{name: "heredoc", cmd: "cat <<'EOF'\nliteral $HOME `x` $(y) 'q' \"d\"\nEOF\ncat <<EOF\nexpanded ${HOME+set}\nEOF", posixOnly: true,
		status: 0, output: "literal $HOME `x` $(y) 'q' \"d\"\nexpanded set"},
	{name: "quotes", cmd: `echo "double" 'single' "it's" 'say "hi"' a'b'"c"`, status: 0, output: `double single it's say "hi" abc`},
	{name: "substitution", cmd: "echo `echo bt` $(echo ds) \"$(echo 'in dq')\"", fishCmd: "echo (echo bt) $(echo ds) \"$(echo 'in dq')\"",
		status: 0, output: "bt ds in dq"},
	{name: "unicode", cmd: "echo 'héllo wörld ✓ 日本語 🙂'", status: 0, output: "héllo wörld ✓ 日本語 🙂"},
	{name: "no-newline", cmd: "printf abc", status: 0, output: "abc"},
	{name: "no-newline-fail", cmd: "printf 'x\\ny'; false", status: 1, output: "x\ny"},
	{name: "stderr", cmd: "echo out; echo err >&2", status: 0, output: "out\nerr"},
}

// TestRunShells runs every supported shell through the MCP client, one pane per shell.
func TestRunShells(t *testing.T) {
	shells := []struct {
		name string
		argv []string
		fish bool
	}{
		{"sh", testtmux.Sh, false},
		{"dash", testtmux.Dash, false},
		{"bash", testtmux.Bash, false},
		{"zsh", testtmux.Zsh, false},
		{"mksh", testtmux.Mksh, false},
		{"ksh", testtmux.Ksh, false},
		{"fish", testtmux.Fish, true},
	}
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			testtmux.RequireShell(t, sh.argv)
			t.Parallel()
			c := start(t)
			_, pane := c.Tmx.NewSession("s", sh.argv...)
			for _, tc := range shellCases {
				if tc.posixOnly && sh.fish {
					continue
				}
				cmd := tc.cmd
				if sh.fish && tc.fishCmd != "" {
					cmd = tc.fishCmd
				}
				out := c.run(pane, cmd)
				if out.Outcome != "completed" || out.status() != tc.status || out.Output != tc.output {
					t.Errorf("%s: outcome %s, status %d, output %q; want completed, %d, %q", tc.name, out.Outcome, out.status(), out.Output, tc.status, tc.output)
				}
				if !out.OutputComplete || out.StillRunning || out.PaneID != pane || out.ReturnedBytes != len(out.Output) {
					t.Errorf("%s: %+v", tc.name, out)
				}
				checkNoEcho(t, tc.name, out)
			}

			// Text that merely looks like a marker is output like any other.
			out := c.run(pane, "echo tmx000000000000_E 0 tmx000000000000_D; echo mine")
			if out.Output != "tmx000000000000_E 0 tmx000000000000_D\nmine" || out.ForeignOutputSuspected || out.status() != 0 {
				t.Errorf("marker-looking output: %+v", out)
			}
			// Blank lines at the end are output too.
			if out := c.run(pane, "echo; echo x; echo"); out.Output != "\nx\n" {
				t.Errorf("trailing blank lines: %q", out.Output)
			}

			// cd stays inside the run.
			cd := "cd /tmp && pwd"
			if sh.fish {
				cd = "cd /tmp; and pwd"
			}
			if out := c.run(pane, cd); out.Output != "/tmp" {
				t.Errorf("cd: %q", out.Output)
			}
			if out := c.run(pane, "pwd"); out.Output != c.Tmx.Home {
				t.Errorf("cd leaked: pwd is %q, want %q", out.Output, c.Tmx.Home)
			}

			// A user's function or alias named printf does not break the framing.
			if sh.fish {
				typeLine(c.Tmx, pane, "function printf; echo hijacked; end")
			} else {
				typeLine(c.Tmx, pane, "printf() { echo hijacked; }")
				typeLine(c.Tmx, pane, "alias printf='echo hijacked'")
			}
			for i := 0; i < 2; i++ {
				if out := c.run(pane, "echo ok"); out.Output != "ok" || out.status() != 0 {
					t.Errorf("with a printf function: %+v", out)
				}
			}

			if sh.name == "ksh" {
				// ksh93 discards typeahead after an interrupt: a run typed right after C-c may
				// be lost (the runner gives the pane back after a grace). Not one of the shells
				// the C-c test is required for.
				return
			}
			// A command reading stdin times out; C-c (typed through tmux) recovers the pane.
			out = c.run(pane, "cat", "timeoutMs", 300)
			if out.Outcome != "timed_out" || !out.StillRunning || out.ExitStatus != nil || out.EffectiveTimeoutMs != 300 {
				t.Errorf("cat: %+v", out)
			}
			msg := c.Fail("run_shell_command", map[string]any{"paneId": pane, "command": "true"})
			if !strings.Contains(msg, `"cat"`) || !strings.Contains(msg, "busy") {
				t.Errorf("a run on a reserved pane: %q", msg)
			}
			// C-c once cat runs: one typed earlier (the machine may be slow to start it) is
			// consumed before cat reads the terminal, and cat rightly keeps running.
			waitProcess(t, c.Tmx, pane, "cat")
			c.Tmx.Tmux("send-keys", "-t", pane, "C-c")
			out = c.runWhenFree(pane, "echo recovered")
			if out.Output != "recovered" || out.status() != 0 {
				t.Errorf("after C-c: %+v", out)
			}
		})
	}
}

// waitProcess waits until a process named name runs on the pane's terminal (the pane's
// current command names its process group leader: here the wrapper's subshell).
func waitProcess(t *testing.T, tmx *testtmux.Server, pane, name string) {
	t.Helper()
	tty := strings.TrimPrefix(tmx.Tmux("display-message", "-p", "-t", pane, "#{pane_tty}"), "/dev/")
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, _ := exec.Command("ps", "-o", "comm=", "-t", tty).Output()
		for _, l := range strings.Fields(string(out)) {
			if l == name {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s on %s: %s", name, tty, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// runWhenFree runs command once the pane's reservation is gone (a test may poll; the server
// never does).
func (c *Client) runWhenFree(pane, command string) runOut {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		res := c.Call("run_shell_command", map[string]any{"paneId": pane, "command": command})
		if !res.IsError {
			var out runOut
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &out)
			return out
		}
		if !strings.Contains(text(res), "busy") || time.Now().After(deadline) {
			c.t.Fatalf("run_shell_command %q: %s", command, text(res))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRunBigOutput(t *testing.T) {
	t.Parallel()
	c := start(t)
	_, pane := c.Tmx.NewSession("big", testtmux.Bash...)
	// 100,000 lines of 99 x's plus LF: 10,000,000 bytes.
	out := c.run(pane, "head -c 9900000 /dev/zero | tr '\\0' x | fold -w 99; exit 3", "timeoutMs", 60000)
	if out.Outcome != "completed" || out.status() != 3 {
		t.Fatalf("outcome %s status %d", out.Outcome, out.status())
	}
	lines := strings.Split(out.Output, "\n")
	if len(lines) != 200 {
		t.Errorf("%d lines returned, want the default maxLines 200", len(lines))
	}
	for i, l := range lines {
		if l != strings.Repeat("x", 99) {
			t.Fatalf("line %d: %q", i, truncateForLog(l))
		}
	}
	if out.OutputComplete || out.DroppedLines <= 0 || out.DroppedLines+len(lines) > 100000 {
		t.Errorf("outputComplete %v, droppedLines %d", out.OutputComplete, out.DroppedLines)
	}
	if out.MissedBytes == 0 && out.DroppedLines+len(lines) != 100000 {
		t.Errorf("no missed bytes, but droppedLines %d + %d returned != 100000", out.DroppedLines, len(lines))
	}
	if out.ReturnedBytes != len(out.Output) {
		t.Errorf("returnedBytes %d, output %d bytes", out.ReturnedBytes, len(out.Output))
	}
	t.Logf("10 MB: droppedLines %d, missedBytes %d, omittedBytes %d", out.DroppedLines, out.MissedBytes, out.OmittedBytes)

	// More than fits in the result (1.5 MB): the byte ceiling keeps the tail.
	out = c.run(pane, "head -c 1500000 /dev/zero | tr '\\0' y | fold -w 999", "maxLines", 10000, "timeoutMs", 60000)
	if out.Outcome != "completed" || out.OutputComplete || len(out.Output) > 1_000_000 || out.OmittedBytes+out.MissedBytes == 0 && out.DroppedLines == 0 {
		t.Errorf("1.5 MB at maxLines 10000: %d bytes returned, omitted %d, dropped %d, missed %d", len(out.Output), out.OmittedBytes, out.DroppedLines, out.MissedBytes)
	}
	res := c.Call("run_shell_command", map[string]any{"paneId": pane, "command": "seq 1 5000", "maxLines": 10000})
	if tx := text(res); len(tx) > 1_000_000 || !strings.HasSuffix(tx, "4999\n5000\n\n[exit 0]") {
		t.Errorf("text of seq: %d bytes, ends %q", len(tx), tx[max(0, len(tx)-30):])
	}

	// The server's memory stays bounded by the rings and the result ceiling.
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid)); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "VmHWM:") {
				kb := atoi(strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:")), " kB"))
				t.Logf("peak RSS of tmux-mcp: %d kB", kb)
				if kb > 80_000 {
					t.Errorf("peak RSS %d kB: memory is not bounded", kb)
				}
			}
		}
	}
}

func truncateForLog(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

func TestRunTimeoutAndReservation(t *testing.T) {
	t.Parallel()
	c := start(t, "LIBTMUX_MCP_WAIT_MAX_SECONDS=1")
	_, pane := c.Tmx.NewSession("slow", testtmux.Bash...)
	began := time.Now()
	// Asked for 60 s, clamped to the 1 s ceiling and reported, never refused.
	res := c.Call("run_shell_command", map[string]any{"paneId": pane, "command": "sleep 8; echo done", "timeoutMs": 60000})
	var out runOut
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &out)
	if out.Outcome != "timed_out" || !out.StillRunning || out.ExitStatus != nil || out.EffectiveTimeoutMs != 1000 {
		t.Fatalf("%+v", out)
	}
	// Clamped to the 1 s ceiling, not the 60 s asked (generous above: a loaded machine).
	if d := time.Since(began); d < time.Second || d > 10*time.Second {
		t.Errorf("timed out after %v, want ~1s", d)
	}
	tx := text(res)
	if !strings.Contains(tx, "wait_for_run pane_id="+pane) || !strings.Contains(tx, "C-c") || strings.Contains(tx, "[exit") || strings.Contains(tx, "again") {
		t.Errorf("text of a timeout: %q", tx)
	}
	// Refused to other runs, naming the first, until it ends (after 1.5 s each: a run about
	// to end is waited for).
	msg := c.Fail("run_shell_command", map[string]any{"paneId": pane, "command": "true"})
	if !strings.Contains(msg, `run_shell_command "sleep 8; echo done"`) {
		t.Errorf("second run: %q", msg)
	}
	msg = c.Fail("run_command", map[string]any{"pane_id": pane, "command": "true"})
	if !strings.Contains(msg, "sleep 8") {
		t.Errorf("run_command on the reserved pane: %q", msg)
	}
	// Usable once it ended. The 1 s ceiling bounds this run too (from when the pane is free),
	// which a loaded machine can outlast: its result is then waited for, as the timeout's text
	// says.
	out = c.runWhenFree(pane, "echo again")
	var w waitRunOut
	for i := 0; out.Outcome == "timed_out" && i < 10; i++ {
		c.OK("wait_for_run", map[string]any{"pane_id": pane, "timeout": 1}, &w)
		if !w.StillRunning {
			out.Outcome, out.Output = w.Outcome, strings.Join(w.Output, "\n")
		}
	}
	if out.Output != "again" || time.Since(began) < 8*time.Second {
		t.Errorf("after the slow command: %+v, last wait_for_run %+v (at %v)", out, w, time.Since(began))
	}
}

// TestRunFrameBroken: a command that breaks the wrapper out of sight (a function of the user's
// shell that clears the EXIT trap) never prints an end marker. The call times out without a
// status, and the pane is given back once the command has ended, not held for good.
func TestRunFrameBroken(t *testing.T) {
	t.Parallel()
	c := start(t)
	_, pane := c.Tmx.NewSession("broken", testtmux.Bash...)
	typeLine(c.Tmx, pane, "quiet() { trap - EXIT; }")
	out := c.run(pane, "quiet; sleep 0.8; echo unframed", "timeoutMs", 300)
	if out.Outcome != "timed_out" || !out.StillRunning || out.ExitStatus != nil {
		t.Fatalf("%+v", out)
	}
	out = c.runWhenFree(pane, "echo again")
	if out.Output != "again" {
		t.Errorf("after the unframed command: %+v", out)
	}
	// Not given back while the command ran (an order, not a time: a loaded machine can return
	// the first call late): its last output is above the next run's.
	all := c.Tmx.Tmux("capture-pane", "-p", "-J", "-S", "-", "-t", pane)
	if i, j := strings.Index(all, "\nunframed"), strings.LastIndex(all, "\nagain"); i < 0 || j < i {
		t.Errorf("the next run ran before the unframed command ended:\n%s", all)
	}
}

func TestRunTwoOnOnePane(t *testing.T) {
	t.Parallel()
	c := start(t)
	_, pane := c.Tmx.NewSession("two", testtmux.Bash...)
	first := make(chan runOut, 1)
	go func() {
		res, err := c.CS.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_shell_command",
			Arguments: map[string]any{"paneId": pane, "command": "echo first-started; sleep 4; echo first"}})
		var out runOut
		if err == nil {
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &out)
		}
		first <- out
	}()
	c.Tmx.WaitFor(pane, func(screen string) bool { return strings.Contains(screen, "\nfirst-started") })
	msg := c.Fail("run_shell_command", map[string]any{"paneId": pane, "command": "echo second"})
	if !strings.Contains(msg, "echo first-started; sleep 4; echo first") {
		t.Errorf("second run refused without naming the first: %q", msg)
	}
	if out := <-first; out.Output != "first-started\nfirst" || out.status() != 0 {
		t.Errorf("first run: %+v", out)
	}
}

func TestRunPaneKilled(t *testing.T) {
	t.Parallel()
	c := start(t)
	_, pane := c.Tmx.NewSession("k", testtmux.Bash...)
	victim := c.Tmx.SplitWindow(pane, testtmux.Bash...)
	c.Tmx.WaitPrompt(victim)
	killed := make(chan time.Time, 1)
	go func() {
		// Killed once the command runs (its first line shown), not at a fixed time a loaded
		// machine may reach before the run began.
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if out, _ := c.Tmx.TryTmux("capture-pane", "-p", "-t", victim); strings.Contains(out, "\nstarted") {
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
		killed <- time.Now()
		c.Tmx.TryTmux("kill-pane", "-t", victim)
	}()
	res := c.Call("run_shell_command", map[string]any{"paneId": victim, "command": "echo started; sleep 10"})
	var out runOut
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &out)
	if d := time.Since(<-killed); out.Outcome != "pane_died" || out.StillRunning || out.ExitStatus != nil || d > time.Second {
		t.Errorf("after kill-pane: %+v, %v after the kill", out, d)
	}
	if out.Output != "started" {
		t.Errorf("output so far: %q", out.Output)
	}
	// The survivor still works.
	if out := c.run(pane, "echo alive"); out.Output != "alive" {
		t.Errorf("other pane: %+v", out)
	}
	// The last pane of a session killed: its session (and the stream's) go too.
	_, lone := c.Tmx.NewSession("lone", testtmux.Bash...)
	go func() {
		time.Sleep(300 * time.Millisecond)
		killed <- time.Now()
		c.Tmx.TryTmux("kill-pane", "-t", lone)
	}()
	out = c.run(lone, "sleep 10")
	if d := time.Since(<-killed); out.Outcome != "pane_died" || d > time.Second {
		t.Errorf("lone pane killed: %+v after %v", out, d)
	}
}

func TestRunServerKilled(t *testing.T) {
	t.Parallel()
	c := start(t)
	_, pane := c.Tmx.NewSession("a", testtmux.Bash...)
	if out := c.run(pane, "true"); out.Outcome != "completed" {
		t.Fatalf("%+v", out)
	}
	pid := atoi(c.Tmx.Tmux("display-message", "-p", "#{pid}"))
	killed := make(chan time.Time, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		killed <- time.Now()
		p, _ := os.FindProcess(pid)
		p.Signal(syscall.SIGKILL)
	}()
	res := c.Call("run_shell_command", map[string]any{"paneId": pane, "command": "sleep 10"})
	d := time.Since(<-killed)
	if d > time.Second {
		t.Errorf("the run returned %v after the server was killed", d)
	}
	if !res.IsError {
		var out runOut
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
		if out.Outcome != "pane_died" {
			t.Errorf("after the server was killed: %+v", out)
		}
	}
	t.Logf("server killed: %v later: %s", d, text(res))
	// The MCP server keeps serving.
	var list struct{ Sessions []session }
	c.OK("list_sessions", map[string]any{}, &list)
	// A new tmux server on the same socket: at once, and again after the engine reconnected.
	_, pane2 := c.Tmx.NewSession("b", testtmux.Bash...)
	for i, wait := range []time.Duration{0, 1200 * time.Millisecond} {
		time.Sleep(wait)
		out := c.run(pane2, fmt.Sprintf("echo new-server-%d", i))
		if out.Outcome != "completed" || out.Output != fmt.Sprintf("new-server-%d", i) {
			t.Errorf("on the new server (%d): %+v", i, out)
		}
	}
}

func TestRunRefusals(t *testing.T) {
	t.Parallel()
	c := start(t)
	sid, pane := c.Tmx.NewSession("r", testtmux.Bash...)

	// Not a shell: cat, vim.
	catPane := c.Tmx.SplitWindow(pane, testtmux.Bash...)
	typeLine(c.Tmx, catPane, "exec cat")
	c.Tmx.WaitFor(catPane, func(string) bool {
		return c.Tmx.Tmux("display-message", "-p", "-t", catPane, "#{pane_current_command}") == "cat"
	})
	msg := c.Fail("run_shell_command", map[string]any{"paneId": catPane, "command": "echo hi"})
	if !strings.Contains(msg, "not a shell") || !strings.Contains(msg, "send_keys") {
		t.Errorf("cat pane: %q", msg)
	}
	vimPane := c.Tmx.NewWindow(sid, "vim", "-u", "NONE", "-N")
	msg = c.Fail("run_shell_command", map[string]any{"paneId": vimPane, "command": "echo hi"})
	if !strings.Contains(msg, `"vim"`) {
		t.Errorf("vim pane: %q", msg)
	}

	// Copy mode.
	c.Tmx.Tmux("copy-mode", "-t", pane)
	msg = c.Fail("run_shell_command", map[string]any{"paneId": pane, "command": "echo hi"})
	if !strings.Contains(msg, "mode") {
		t.Errorf("copy mode: %q", msg)
	}
	c.Tmx.Tmux("send-keys", "-t", pane, "-X", "cancel")

	// A dead pane.
	c.Tmx.Tmux("set-option", "-g", "remain-on-exit", "on")
	dead := c.Tmx.Tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", pane, "true")
	c.Tmx.WaitFor(dead, func(string) bool {
		return c.Tmx.Tmux("display-message", "-p", "-t", dead, "#{pane_dead}") == "1"
	})
	msg = c.Fail("run_shell_command", map[string]any{"paneId": dead, "command": "echo hi"})
	if !strings.Contains(msg, "dead") {
		t.Errorf("dead pane: %q", msg)
	}
	c.Tmx.Tmux("kill-pane", "-t", dead)
	c.Tmx.Tmux("set-option", "-g", "remain-on-exit", "off")

	if out := c.run(pane, "echo fine"); out.Output != "fine" {
		t.Errorf("the normal pane: %+v", out)
	}
}

func TestRunWatchedPane(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/usr/bin/script"); err != nil {
		t.Skip("script(1) is not installed")
	}
	c := start(t)
	_, pane := c.Tmx.NewSession("w", testtmux.Bash...)
	other := c.Tmx.NewWindow("w", testtmux.Bash...) // not on screen: the client shows window 0
	// A real terminal client, on a pty, kept running during the test.
	stopClient := attachTerminal(t, c.Tmx, "w")
	defer stopClient()
	for _, force := range []bool{false, true} {
		msg := c.Fail("run_shell_command", map[string]any{"paneId": pane, "command": "echo hi", "force": force})
		if !strings.Contains(msg, "watched") && !strings.Contains(msg, "screen") {
			t.Errorf("watched pane (force %v): %q", force, msg)
		}
	}
	msg := c.Fail("run_command", map[string]any{"pane_id": pane, "command": "echo hi"})
	if !strings.Contains(msg, "screen") {
		t.Errorf("run_command on a watched pane: %q", msg)
	}
	if out := c.run(other, "echo unseen"); out.Output != "unseen" {
		t.Errorf("pane of a window not on screen: %+v", out)
	}
	// A zoomed window shows only its active pane.
	side := c.Tmx.SplitWindow(pane, testtmux.Bash...)
	c.Tmx.Tmux("resize-pane", "-Z", "-t", pane)
	if out := c.run(side, "echo hidden-by-zoom"); out.Output != "hidden-by-zoom" {
		t.Errorf("pane hidden by zoom: %+v", out)
	}
	c.Fail("run_shell_command", map[string]any{"paneId": pane, "command": "echo hi", "force": true})
}

// TestRunWatchedReadOnly: a read-only client (tmux attach -r) only watches: runs go ahead in
// the panes it shows, while a client that can type keeps them refused, with advice that works;
// an operator's LIBTMUX_MCP_ALLOW_WATCHED=1 lifts the guard.
func TestRunWatchedReadOnly(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/usr/bin/script"); err != nil {
		t.Skip("script(1) is not installed")
	}
	c := start(t)
	_, pane := c.Tmx.NewSession("ro", testtmux.Bash...)
	stopRO := attachTerminal(t, c.Tmx, "ro", "-r")
	if out := c.run(pane, "echo seen"); out.Output != "seen" {
		t.Errorf("under a read-only client: %+v", out)
	}
	stop := attachTerminal(t, c.Tmx, "ro")
	msg := c.Fail("run_shell_command", map[string]any{"paneId": pane, "command": "echo hi"})
	if !strings.Contains(msg, "create_window") || !strings.Contains(msg, "attach -r") || !strings.Contains(msg, "LIBTMUX_MCP_ALLOW_WATCHED") {
		t.Errorf("advice: %q", msg)
	}
	// The advice works: a new window (detached) in the same session.
	var win struct {
		PaneID string `json:"active_pane_id"`
	}
	c.OK("create_window", map[string]any{"session_name": "ro", "window_name": "agent"}, &win)
	c.Tmx.WaitPrompt(win.PaneID)
	if out := c.run(win.PaneID, "echo in-new-window"); out.Output != "in-new-window" {
		t.Errorf("new window: %+v", out)
	}
	stop()
	stopRO()
	op := startOn(t, c.Tmx, "LIBTMUX_MCP_ALLOW_WATCHED=1")
	stop = attachTerminal(t, c.Tmx, "ro")
	defer stop()
	if out := op.run(pane, "echo allowed"); out.Output != "allowed" {
		t.Errorf("with LIBTMUX_MCP_ALLOW_WATCHED=1: %+v", out)
	}
}

// TestRunWatchedWhileWaitingForShell: a run waits for the pane's shell to be back at its
// prompt (here after a sleep of its own); a person who meanwhile attaches to its session, or
// enters copy mode in the pane, gets nothing typed under their eyes: the pane is checked again
// just before the line is typed, and the run is refused as it would have been at first.
func TestRunWatchedWhileWaitingForShell(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/usr/bin/script"); err != nil {
		t.Skip("script(1) is not installed")
	}
	c := start(t)
	for _, tc := range []struct {
		name, want string
		person     func(pane string) (leave func())
	}{
		{"attach", "person's screen", func(string) func() { return attachTerminal(t, c.Tmx, "attach") }},
		{"copy-mode", "mode", func(pane string) func() {
			c.Tmx.Tmux("copy-mode", "-t", pane)
			return func() { c.Tmx.TryTmux("send-keys", "-t", pane, "-X", "cancel") }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, pane := c.Tmx.NewSession(tc.name, testtmux.Bash...)
			c.Tmx.WaitPrompt(pane)
			marker := filepath.Join(t.TempDir(), "ran")
			// The pane's own command holds the shell: the run waits for its prompt.
			c.Tmx.Tmux("send-keys", "-t", pane, "sleep 3", "Enter")
			c.Tmx.WaitFor(pane, func(string) bool {
				return c.Tmx.Tmux("display-message", "-p", "-t", pane, "#{pane_current_command}") == "sleep"
			})
			done := make(chan *mcp.CallToolResult, 1)
			go func() {
				done <- c.Call("run_shell_command", map[string]any{"paneId": pane, "command": "touch " + marker})
			}()
			time.Sleep(500 * time.Millisecond) // the preflight passed: nobody watched then
			leave := tc.person(pane)
			defer leave()
			res := <-done
			if msg := text(res); !res.IsError || !strings.Contains(msg, tc.want) {
				t.Errorf("run_shell_command after %s: want a refusal saying %q, got %q", tc.name, tc.want, msg)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("the command ran after %s", tc.name)
			}
		})
	}
}

// attachTerminal attaches a real terminal client (tmux attach under script(1), which gives it
// a pty) to session, with flags (e.g. -r), and waits until tmux lists it: a terminal client
// that was not there before (the test's server is its own; how many processes script(1)
// puts between itself and tmux varies with its version and the shell it runs). The returned
// func detaches it.
func attachTerminal(t *testing.T, tmx *testtmux.Server, session string, flags ...string) func() {
	t.Helper()
	before := terminalClients(tmx)
	cmd := exec.Command("script", "-qfc", "tmux -u -S "+tmx.Socket+" attach "+strings.Join(flags, " ")+" -t "+session, "/dev/null")
	cmd.Env = append(append([]string{}, tmx.Env...), "TERM=xterm")
	stdin, err := cmd.StdinPipe() // kept open: the client keeps running
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := func() {
		cmd.Process.Kill()
		stdin.Close()
		cmd.Wait()
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		now := terminalClients(tmx)
		for pid := range now {
			if !before[pid] {
				return stop
			}
		}
		if time.Now().After(deadline) {
			stop()
			t.Fatalf("the terminal client did not attach (terminal clients before %v, now %v)", before, now)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// terminalClients is the set of the pids of tmx's clients that are not in control mode.
func terminalClients(tmx *testtmux.Server) map[string]bool {
	out, _ := tmx.TryTmux("list-clients", "-F", "#{client_control_mode} #{client_pid}")
	pids := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		if pid, ok := strings.CutPrefix(l, "0 "); ok {
			pids[pid] = true
		}
	}
	return pids
}

func TestRunCallerPane(t *testing.T) {
	t.Parallel()
	tmx := testtmux.New(t)
	sid, pane := tmx.NewSession("me", testtmux.Bash...)
	pid := tmx.Tmux("display-message", "-p", "#{pid}")
	c := startOn(t, tmx, "TMUX="+tmx.Socket+","+pid+","+strings.TrimPrefix(sid, "$"), "TMUX_PANE="+pane)
	msg := c.Fail("run_shell_command", map[string]any{"paneId": pane, "command": "echo hi"})
	if !strings.Contains(msg, "runs in") || !strings.Contains(msg, "force") {
		t.Errorf("caller pane: %q", msg)
	}
	c.Fail("run_command", map[string]any{"pane_id": pane, "command": "echo hi"})
	if out := c.run(pane, "echo forced", "force", true); out.Output != "forced" {
		t.Errorf("caller pane with force: %+v", out)
	}
}

func TestRunBadInput(t *testing.T) {
	t.Parallel()
	c := start(t)
	_, pane := c.Tmx.NewSession("bad", testtmux.Bash...)
	before := c.Tmx.Tmux("capture-pane", "-p", "-t", pane)
	cases := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"paneId": "1", "command": "echo x"}, "paneId"},
		{map[string]any{"paneId": "%a", "command": "echo x"}, "paneId"},
		{map[string]any{"paneId": "%1;kill-server", "command": "echo x"}, "paneId"},
		{map[string]any{"paneId": pane + " ", "command": "echo x"}, "paneId"},
		{map[string]any{"paneId": "%999", "command": "echo x"}, "no pane has id %999"},
		{map[string]any{"paneId": pane, "command": ""}, "empty"},
		{map[string]any{"paneId": pane, "command": " \n "}, "empty"},
		{map[string]any{"paneId": pane, "command": "echo a\x00b"}, "NUL"},
		{map[string]any{"paneId": pane, "command": "echo x", "shell": "bash"}, `"shell"`},
		{map[string]any{"paneId": pane, "command": "echo x", "timeoutMs": 0}, "timeoutMs"},
		{map[string]any{"paneId": pane, "command": "echo x", "timeoutMs": -5}, "timeoutMs"},
		{map[string]any{"paneId": pane, "command": "echo x", "timeoutMs": "100"}, "timeoutMs"},
		{map[string]any{"paneId": pane, "command": "echo x", "timeoutMs": 1.5}, "timeoutMs"},
		{map[string]any{"paneId": pane, "command": "echo x", "maxLines": 0}, "maxLines"},
		{map[string]any{"paneId": pane, "command": "echo x", "force": "yes"}, "force"},
		{map[string]any{"paneId": pane}, "command"},
		{map[string]any{"command": "echo x"}, "paneId"},
		{map[string]any{"paneId": pane, "command": 42}, "command"},
	}
	for _, tc := range cases {
		msg := c.Fail("run_shell_command", tc.args)
		if !strings.Contains(msg, tc.want) {
			t.Errorf("%v: %q does not mention %q", tc.args, msg, tc.want)
		}
	}
	rc := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pane_id": "x", "command": "echo x"}, "pane_id"},
		{map[string]any{"pane_id": pane, "command": ""}, "empty"},
		{map[string]any{"pane_id": pane, "command": "a\x00"}, "NUL"},
		{map[string]any{"pane_id": pane, "command": "echo x", "timeout": 0}, "timeout"},
		{map[string]any{"pane_id": pane, "command": "echo x", "timeout": "5"}, "timeout"},
		{map[string]any{"pane_id": pane, "command": "echo x", "paneId": pane}, `"paneId"`},
		{map[string]any{"session_name": "nope", "command": "echo x"}, "nope"},
		{map[string]any{"pane_id": pane, "command": "echo x", "socket_name": "../x"}, "socket_name"},
	}
	for _, tc := range rc {
		msg := c.Fail("run_command", tc.args)
		if !strings.Contains(msg, tc.want) {
			t.Errorf("run_command %v: %q does not mention %q", tc.args, msg, tc.want)
		}
	}
	if after := c.Tmx.Tmux("capture-pane", "-p", "-t", pane); after != before {
		t.Errorf("bad input typed into the pane:\n%s", after)
	}
	if out := c.run(pane, "echo still-fine"); out.Output != "still-fine" {
		t.Errorf("%+v", out)
	}
}

func TestRunConcurrent(t *testing.T) {
	t.Parallel()
	c := start(t)
	sid, first := c.Tmx.NewSession("many", testtmux.Bash...)
	panes := []string{first}
	for len(panes) < 32 {
		args := append([]string{"new-window", "-d", "-P", "-F", "#{pane_id}", "-t", sid + ":", "-c", c.Tmx.Home, "-e", "PS1=$ "}, testtmux.Bash...)
		panes = append(panes, c.Tmx.Tmux(args...))
	}
	for _, p := range panes {
		c.Tmx.WaitPrompt(p)
	}
	began := time.Now()
	for round := 0; round < 20; round++ {
		var wg sync.WaitGroup
		errs := make(chan string, len(panes))
		for i, p := range panes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				want := fmt.Sprintf("r%d-p%d\nsecond line %s", round, i, p)
				cmd := fmt.Sprintf("echo r%d-p%d; echo second line %s; exit %d", round, i, p, (round*32+i)%256)
				res, err := c.CS.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_shell_command",
					Arguments: map[string]any{"paneId": p, "command": cmd}})
				if err != nil {
					errs <- err.Error()
					return
				}
				var out runOut
				b, _ := json.Marshal(res.StructuredContent)
				json.Unmarshal(b, &out)
				if res.IsError || out.Output != want || out.status() != (round*32+i)%256 || !out.OutputComplete || out.ForeignOutputSuspected {
					errs <- fmt.Sprintf("round %d pane %s: %s %+v", round, p, text(res), out)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("640 runs in 32 panes: %v", time.Since(began))
}

func TestRunCommandTool(t *testing.T) {
	t.Parallel()
	c := start(t, "LIBTMUX_SUPPRESS_HISTORY=0")
	_, pane := c.Tmx.NewSession("rc", testtmux.Bash...)
	type rcOut struct {
		PaneID               string   `json:"pane_id"`
		ExitStatus           *int     `json:"exit_status"`
		TimedOut             bool     `json:"timed_out"`
		ElapsedSeconds       float64  `json:"elapsed_seconds"`
		Output               []string `json:"output"`
		OutputTruncated      bool     `json:"output_truncated"`
		OutputTruncatedLines int      `json:"output_truncated_lines"`
		EffectiveTimeout     float64  `json:"effective_timeout"`
	}
	var out rcOut
	c.OK("run_command", map[string]any{"session_name": "rc", "command": "echo a; echo b >&2; exit 4"}, &out)
	if out.PaneID != pane || out.ExitStatus == nil || *out.ExitStatus != 4 || out.TimedOut || !reflect.DeepEqual(out.Output, []string{"a", "b"}) || out.EffectiveTimeout != 30 {
		t.Errorf("%+v", out)
	}
	out = rcOut{}
	c.OK("run_command", map[string]any{"pane_id": pane, "command": "seq 1 10", "max_lines": 3}, &out)
	if !reflect.DeepEqual(out.Output, []string{"8", "9", "10"}) || !out.OutputTruncated || out.OutputTruncatedLines != 7 {
		t.Errorf("max_lines: %+v", out)
	}
	out = rcOut{}
	c.OK("run_command", map[string]any{"pane_id": pane, "command": "true"}, &out)
	if out.Output == nil || len(out.Output) != 0 {
		t.Errorf("no output must be an empty list: %+v", out)
	}
	out = rcOut{}
	c.OK("run_command", map[string]any{"pane_id": pane, "command": "sleep 0.4", "timeout": 0.1}, &out)
	if !out.TimedOut || out.ExitStatus != nil || out.EffectiveTimeout != 0.1 {
		t.Errorf("timeout: %+v", out)
	}
	c.runWhenFree(pane, "true")

	// suppress_history: its default comes from LIBTMUX_SUPPRESS_HISTORY (0 here) and is advertised.
	for tl, err := range c.CS.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tl.Name == "run_command" {
			b, _ := json.Marshal(tl.InputSchema)
			var s struct {
				Properties map[string]struct {
					Default any `json:"default"`
				} `json:"properties"`
				AdditionalProperties *bool `json:"additionalProperties"`
			}
			json.Unmarshal(b, &s)
			if s.Properties["suppress_history"].Default != false || s.Properties["timeout"].Default != 30.0 || s.AdditionalProperties == nil || *s.AdditionalProperties {
				t.Errorf("run_command input schema: %s", b)
			}
			if tl.Annotations.ReadOnlyHint || tl.Annotations.IdempotentHint || *tl.Annotations.DestructiveHint || !*tl.Annotations.OpenWorldHint {
				t.Errorf("run_command annotations are not SHELL: %+v", tl.Annotations)
			}
		}
	}
	typeLine(c.Tmx, pane, "HISTCONTROL=ignorespace")
	var hist rcOut
	c.OK("run_command", map[string]any{"pane_id": pane, "command": "echo recorded"}, nil)
	c.OK("run_command", map[string]any{"pane_id": pane, "command": "echo hidden", "suppress_history": true}, nil)
	c.OK("run_command", map[string]any{"pane_id": pane, "command": "history", "suppress_history": true}, &hist)
	all := strings.Join(hist.Output, "\n")
	_, all, _ = strings.Cut(all, "HISTCONTROL=ignorespace")
	// The unsuppressed run is in the history as its command, as if typed; nothing of the
	// framing is, nor the suppressed run.
	if strings.Contains(all, "tmux-mcp-") || strings.Count(all, "echo recorded") != 1 || strings.Contains(all, "echo hidden") {
		t.Errorf("history:\n%s", all)
	}
}

// TestRunLatency measures run_shell_command of `true` in a bash pane end to end through the MCP
// client (target: median <= 3 ms, p95 <= 6 ms), side by side with the floor the shell itself
// sets on this machine: the same two subshells typed straight into the pane and seen back over
// control mode. Forks are slow on loaded machines; the test checks the overhead over the floor.
func TestRunLatency(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("lat", testtmux.Bash...)
	c.run(pane, "true") // opens the stream connection
	const n = 50
	var runs []time.Duration
	for i := 0; i < n; i++ {
		began := time.Now()
		out := c.run(pane, "true")
		runs = append(runs, time.Since(began))
		if out.status() != 0 {
			t.Fatalf("%+v", out)
		}
	}
	floor := shellFloor(t, c.Tmx, pane, n)
	med, p95 := quantiles(runs)
	fmed, fp95 := quantiles(floor)
	t.Logf("run_shell_command true (bash), %d calls: median %v, p95 %v; floor (the same subshells typed into the pane): median %v, p95 %v; overhead at the median %v",
		n, med, p95, fmed, fp95, med-fmed)
	// Speed is the benchmark's to judge (cmd/tmux-mcp-bench): on a busy machine every process
	// hop costs a scheduler slice, so this correctness test only catches a run that has
	// become an order of magnitude slower than the shell's own floor.
	limit := 10*fmed + 100*time.Millisecond
	if med > limit {
		t.Errorf("median %v against a floor of %v: too much overhead (limit %v)", med, fmed, limit)
	}
}

func quantiles(ds []time.Duration) (med, p95 time.Duration) {
	s := append([]time.Duration{}, ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2], s[len(s)*95/100]
}

// shellFloor types ` ( :; : ); printf ...` into the pane n times and times each until its
// output comes back on the pane's stream: one fork, like the wrapper in bash.
func shellFloor(t *testing.T, tmx *testtmux.Server, pane string, n int) []time.Duration {
	t.Helper()
	ctx := context.Background()
	ts := tmux.NewServer(tmux.Config{SocketPath: tmx.Socket, Env: tmx.Env})
	defer ts.Close()
	w, err := ts.WatchPane(ctx, pane)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Release()
	var ds []time.Duration
	for i := 0; i < n; i++ {
		want := fmt.Sprintf("fl%d\r\n", i)
		off := w.Offset()
		began := time.Now()
		if _, err := ts.Exec(ctx, []string{"send-keys", "-t", pane, "-l", fmt.Sprintf(" ( :; : ); printf '%%s%%d\\n' fl %d", i)}, []string{"send-keys", "-t", pane, "Enter"}); err != nil {
			t.Fatal(err)
		}
		var seen []byte
		for !strings.Contains(string(seen), want) {
			wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err := w.Wait(wctx, off)
			cancel()
			if err != nil {
				t.Fatalf("floor: %v after %q", err, seen)
			}
			data, next, _, _ := w.Read(off, 0)
			seen, off = append(seen, data...), next
		}
		ds = append(ds, time.Since(began))
	}
	return ds
}

// spy wraps a transport and records the responses the server sends, even those of calls the
// client already gave up on (cancelled).
type spy struct {
	inner mcp.Transport
	mu    sync.Mutex
	resp  map[string]chan *jsonrpc.Response
	mark  string     // a tools/call whose params hold mark...
	id    jsonrpc.ID // ...was sent with this id
}

func (s *spy) ch(id jsonrpc.ID) chan *jsonrpc.Response {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := fmt.Sprint(id.Raw())
	if s.resp[k] == nil {
		s.resp[k] = make(chan *jsonrpc.Response, 1)
	}
	return s.resp[k]
}

func (s *spy) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := s.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &spyConn{Connection: c, s: s}, nil
}

type spyConn struct {
	mcp.Connection
	s *spy
}

func (c *spyConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if r, ok := m.(*jsonrpc.Response); ok {
		select {
		case c.s.ch(r.ID) <- r:
		default:
		}
	}
	return m, err
}

func (c *spyConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if r, ok := m.(*jsonrpc.Request); ok && r.Method == "tools/call" && strings.Contains(string(r.Params), c.s.mark) {
		c.s.mu.Lock()
		c.s.id = r.ID
		c.s.mu.Unlock()
	}
	return c.Connection.Write(ctx, m)
}

func TestRunCancelled(t *testing.T) {
	t.Parallel()
	tmx := testtmux.New(t)
	_, pane := tmx.NewSession("c", testtmux.Bash...)
	cmd := exec.Command(binary)
	cmd.Env = append(append([]string{}, tmx.Env...), "LIBTMUX_SOCKET_PATH="+tmx.Socket)
	sp := &spy{inner: &mcp.CommandTransport{Command: cmd}, resp: map[string]chan *jsonrpc.Response{}, mark: "sleep 5"}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "0"}, nil).Connect(ctx, sp, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	c := &Client{t: t, CS: cs, Tmx: tmx, cmd: cmd}
	c.run(pane, "true") // opens the stream
	// The target is 50 ms; a loaded machine adds scheduling delays, so the best of three counts.
	best := time.Hour
	for attempt := 0; attempt < 3; attempt++ {
		if attempt > 0 {
			tmx.Tmux("send-keys", "-t", pane, "C-c")
			c.runWhenFree(pane, "true")
		}
		callCtx, stop := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "run_shell_command", Arguments: map[string]any{"paneId": pane, "command": "sleep 5"}})
			done <- err
		}()
		time.Sleep(400 * time.Millisecond)
		cancelledAt := time.Now()
		stop()
		if err := <-done; err == nil {
			t.Fatal("the cancelled call returned no error")
		}
		sp.mu.Lock()
		id := sp.id
		sp.mu.Unlock()
		var r *jsonrpc.Response
		select {
		case r = <-sp.ch(id):
		case <-time.After(5 * time.Second):
			t.Fatal("the server never answered the cancelled call")
		}
		d := time.Since(cancelledAt)
		var res struct {
			StructuredContent runOut `json:"structuredContent"`
		}
		json.Unmarshal(r.Result, &res)
		out := res.StructuredContent
		t.Logf("cancelled: answered %v after the cancellation: %+v", d, out)
		if out.Outcome != "cancelled" || !out.StillRunning || out.ExitStatus != nil {
			t.Errorf("%s", r.Result)
		}
		best = min(best, d)
	}
	if best > 50*time.Millisecond && os.Getenv("TMUX_MCP_TEST_LATENCY") == "1" {
		t.Errorf("answered %v (best of 3) after the cancellation, want <= 50 ms", best)
	}
	// Still reserved, naming the command; C-c ends it and frees the pane.
	if msg := c.Fail("run_shell_command", map[string]any{"paneId": pane, "command": "true"}); !strings.Contains(msg, "sleep 5") {
		t.Errorf("after cancel: %q", msg)
	}
	tmx.Tmux("send-keys", "-t", pane, "C-c")
	if out := c.runWhenFree(pane, "echo free"); out.Output != "free" {
		t.Errorf("%+v", out)
	}
}

// TestRunCleanupOnExit: when the client goes away mid-run, the server exits promptly and leaves
// no script directory behind.
//
// Not parallel: the script directory is the one that appears in the temp dir meanwhile.
func TestRunCleanupOnExit(t *testing.T) {
	// A TMUX_TMPDIR of its own: other packages' tests make script directories in /tmp.
	tmp := t.TempDir()
	c := start(t, "TMUX_TMPDIR="+tmp)
	_, pane := c.Tmx.NewSession("x", testtmux.Bash...)
	before, _ := filepath.Glob(filepath.Join(tmp, "tmux-mcp-*"))
	out := c.run(pane, "sleep 5", "timeoutMs", 100)
	if out.Outcome != "timed_out" {
		t.Fatalf("%+v", out)
	}
	after, _ := filepath.Glob(filepath.Join(tmp, "tmux-mcp-*"))
	var dir string
	for _, d := range after {
		if !slices.Contains(before, d) {
			dir = d
		}
	}
	if dir == "" {
		t.Fatalf("no script directory appeared (%v, then %v)", before, after)
	}
	began := time.Now()
	c.CS.Close()
	if d := time.Since(began); d > time.Second {
		t.Errorf("closing took %v", d)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("script dir %s left behind: %v", dir, err)
	}
}

// TestRunText checks the text half: the output, a blank line, then [exit N]; notices first.
func TestRunText(t *testing.T) {
	t.Parallel()
	c := start(t)
	_, pane := c.Tmx.NewSession("t", testtmux.Bash...)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"command": "echo one; echo two; exit 7"}, "one\ntwo\n\n[exit 7]"},
		{map[string]any{"command": "exit 3"}, "[exit 3]"},
		{map[string]any{"command": "seq 1 5", "maxLines": 2}, "[3 earlier lines not shown: only the last 2 are kept (maxLines); to see others, run it with a larger maxLines or filter its output (grep, head)]\n4\n5\n\n[exit 0]"},
	} {
		tc.args["paneId"] = pane
		res := c.Call("run_shell_command", tc.args)
		if got := text(res); res.IsError || got != tc.want {
			t.Errorf("%v: text %q, want %q", tc.args, got, tc.want)
		}
	}
}
