package e2e

import (
	"context"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

type keysOut struct {
	PaneID string `json:"pane_id"`
	Cursor string `json:"cursor"`
}

type waitRunOut struct {
	PaneID          string   `json:"pane_id"`
	ExitStatus      *int     `json:"exit_status"`
	TimedOut        bool     `json:"timed_out"`
	Output          []string `json:"output"`
	WaitingForInput bool     `json:"waiting_for_input"`
	Prompt          string   `json:"prompt"`
	Command         string   `json:"command"`
	Outcome         string   `json:"outcome"`
	StillRunning    bool     `json:"still_running"`
	Note            string   `json:"note"`
}

// TestInputThenWait: send_keys returns a cursor taken before the keys, so a wait_for_text made
// after a delay still sees output printed between the two calls (50 rounds).
func TestInputThenWait(t *testing.T) {
	t.Parallel()
	c := start(t)
	_, pane := c.Tmx.NewSession("iw")
	for i := 0; i < 50; i++ {
		var k keysOut
		c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "echo round-$((" + itoa(i) + "+1000))"}, &k)
		if k.Cursor == "" {
			t.Fatalf("round %d: no cursor", i)
		}
		if i%5 == 0 {
			time.Sleep(100 * time.Millisecond) // the output is printed before the wait starts
		}
		var w struct {
			Outcome string `json:"outcome"`
		}
		c.OK("wait_for_text", map[string]any{"pane_id": pane, "cursor": k.Cursor, "patterns": []string{"round-" + itoa(i+1000)}, "timeout": 10}, &w)
		if w.Outcome != "matched" {
			t.Fatalf("round %d: %s", i, w.Outcome)
		}
	}
}

// TestRunOutlivesItsCall: a run that timed out keeps running; wait_for_run returns its real exit
// status and output once it ends, and names it.
func TestRunOutlivesItsCall(t *testing.T) {
	t.Parallel()
	c := start(t)
	_, pane := c.Tmx.NewSession("ol")
	out := c.run(pane, "echo started; sleep 2; echo finished; exit 7", "timeoutMs", 300)
	if out.Outcome != "timed_out" || !out.StillRunning {
		t.Fatalf("%+v", out)
	}
	var w waitRunOut
	c.OK("wait_for_run", map[string]any{"pane_id": pane, "timeout": 20}, &w)
	if w.ExitStatus == nil || *w.ExitStatus != 7 || w.Outcome != "completed" || w.TimedOut ||
		strings.Join(w.Output, "\n") != "started\nfinished" || !strings.Contains(w.Command, "sleep 2") {
		t.Fatalf("wait_for_run: %+v", w)
	}
	// Over: the record stays until the next run, and is returned at once.
	c.OK("wait_for_run", map[string]any{"pane_id": pane, "timeout": 0}, &w)
	if w.ExitStatus == nil || *w.ExitStatus != 7 {
		t.Fatalf("again: %+v", w)
	}
	if out := c.run(pane, "echo next"); out.Output != "next" {
		t.Fatalf("next run: %+v", out)
	}
}

// TestInterruptRunThenType: the agent's "stop it" for a run that timed out (send_keys C-c),
// then its next keys at once: the run ends interrupted (130), and the keys reach the shell's
// prompt whole, 10 rounds.
func TestInterruptRunThenType(t *testing.T) {
	t.Parallel()
	c := start(t)
	_, pane := c.Tmx.NewSession("int")
	for i := 0; i < 10; i++ {
		if out := c.run(pane, "sleep 100", "timeoutMs", 300); !out.StillRunning {
			t.Fatalf("round %d: %+v", i, out)
		}
		c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "C-c", "enter": false}, nil)
		var k keysOut
		c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "echo after-$((" + itoa(i) + "+100))"}, &k)
		var w struct {
			Outcome string `json:"outcome"`
		}
		c.OK("wait_for_text", map[string]any{"pane_id": pane, "cursor": k.Cursor, "patterns": []string{"after-" + itoa(i+100)}, "timeout": 10}, &w)
		if w.Outcome != "matched" {
			t.Fatalf("round %d: the keys after C-c: %s; screen:\n%s", i, w.Outcome, capture(c.Tmx, pane))
		}
		var r waitRunOut
		c.OK("wait_for_run", map[string]any{"pane_id": pane, "timeout": 10}, &r)
		if r.ExitStatus == nil || *r.ExitStatus != 130 || r.Outcome != "completed" {
			t.Fatalf("round %d: the interrupted run: %+v", i, r)
		}
	}
}

// TestAnswerRunningCommand: a run that asks a question is answered through send_keys with
// to_running_command; without it the pane is refused naming the argument. The result says it
// was waiting for input, the answer's echo is not output (its line break is: the prompt's line
// stays a line), and the real status comes back.
func TestAnswerRunningCommand(t *testing.T) {
	t.Parallel()
	for _, sh := range [][]string{testtmux.Bash, testtmux.Zsh, testtmux.Dash} {
		t.Run(sh[0], func(t *testing.T) {
			t.Parallel()
			c := start(t)
			_, pane := c.Tmx.NewSession("ans", sh...)
			out := c.run(pane, "printf 'Proceed? '; read x; echo \"got $x\"; exit 4", "timeoutMs", 500)
			if out.Outcome != "timed_out" {
				t.Fatalf("%+v", out)
			}
			var w waitRunOut
			c.OK("wait_for_run", map[string]any{"pane_id": pane, "timeout": 0}, &w)
			if !w.WaitingForInput || !strings.Contains(w.Prompt, "Proceed?") {
				t.Errorf("not seen waiting for input: %+v", w)
			}
			if msg := c.Fail("send_keys", map[string]any{"pane_id": pane, "keys": "y"}); !strings.Contains(msg, "to_running_command") {
				t.Errorf("refusal does not name to_running_command: %s", msg)
			}
			c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "y", "to_running_command": true}, nil)
			c.OK("wait_for_run", map[string]any{"pane_id": pane, "timeout": 10}, &w)
			if w.ExitStatus == nil || *w.ExitStatus != 4 || strings.TrimRight(w.Output[0], " ") != "Proceed?" || strings.Join(w.Output[1:], "\n") != "got y" {
				t.Fatalf("after the answer: %+v", w)
			}
		})
	}
}

// TestFullScreenFromRun: vi, less and top started by a run are left with keys sent as input for
// the running command; their screens are not output, and the pane takes the next run.
func TestFullScreenFromRun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ cmd, keys, text string }{
		{"vi -u NONE -N /tmp/tmux-mcp-vi-test-$$", "Escape", ":q!"},
		{"less /etc/passwd", "q", ""},
		{"top -d 1", "q", ""},
	} {
		t.Run(strings.Fields(tc.cmd)[0], func(t *testing.T) {
			t.Parallel()
			c := start(t)
			_, pane := c.Tmx.NewSession("fs")
			out := c.run(pane, tc.cmd+"; echo left", "timeoutMs", 800)
			if out.Outcome != "timed_out" {
				t.Fatalf("%+v", out)
			}
			c.OK("send_keys", map[string]any{"pane_id": pane, "keys": tc.keys, "enter": false, "to_running_command": true}, nil)
			if tc.text != "" {
				c.OK("send_keys", map[string]any{"pane_id": pane, "keys": tc.text, "literal": true, "to_running_command": true}, nil)
			}
			var w waitRunOut
			c.OK("wait_for_run", map[string]any{"pane_id": pane, "timeout": 10}, &w)
			if w.ExitStatus == nil || *w.ExitStatus != 0 || w.Output[len(w.Output)-1] != "left" {
				t.Fatalf("after leaving %s: %+v", tc.cmd, w)
			}
			if out := c.run(pane, "echo next"); out.Output != "next" {
				t.Fatalf("next run: %+v", out)
			}
		})
	}
}

// TestRespawnAndKillFreeARun: respawn_pane and kill_pane end the run that held the pane at once.
func TestRespawnAndKillFreeARun(t *testing.T) {
	t.Parallel()
	c := start(t, "LIBTMUX_SAFETY=destructive")
	sid, pane := c.Tmx.NewSession("rk")
	if out := c.run(pane, "sleep 30", "timeoutMs", 200); out.Outcome != "timed_out" {
		t.Fatalf("%+v", out)
	}
	c.OK("respawn_pane", map[string]any{"pane_id": pane, "kill": true}, nil)
	var w waitRunOut
	c.OK("wait_for_run", map[string]any{"pane_id": pane, "timeout": 0}, &w)
	if w.StillRunning || w.Outcome != "pane_died" {
		t.Fatalf("after respawn: %+v", w)
	}
	c.Tmx.WaitPrompt(pane)
	if out := c.runWhenFree(pane, "echo free"); out.Output != "free" {
		t.Fatalf("%+v", out)
	}
	other := c.Tmx.SplitWindow(sid)
	if out := c.run(other, "sleep 30", "timeoutMs", 200); out.Outcome != "timed_out" {
		t.Fatalf("%+v", out)
	}
	c.OK("kill_pane", map[string]any{"pane_id": other}, nil)
	if msg := c.Fail("wait_for_run", map[string]any{"pane_id": other}); !strings.Contains(msg, other) {
		t.Errorf("a killed pane: %s", msg)
	}
}

// TestRunProgress: a run with a progress token gets notifications about every second.
func TestRunProgress(t *testing.T) {
	var n atomic.Int32
	c, _ := startWithClient(t, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		if req.Params.ProgressToken == "run" && strings.Contains(req.Params.Message, "bytes printed") {
			n.Add(1)
		}
	}})
	_, pane := c.Tmx.NewSession("pr")
	params := &mcp.CallToolParams{Name: "run_shell_command", Arguments: map[string]any{"paneId": pane, "command": "sleep 3.2; echo done"}}
	params.SetProgressToken("run")
	res, err := c.CS.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("%v %v", err, res)
	}
	time.Sleep(50 * time.Millisecond)
	if got := n.Load(); got < 2 || got > 4 {
		t.Errorf("%d progress notifications during a 3 s run, want about 3", got)
	}
}

// TestQuietWait: wait_for_text with quiet_ms and no patterns ends once the pane has printed
// nothing for quiet_ms, and says how long it was quiet.
func TestQuietWait(t *testing.T) {
	t.Parallel()
	c := start(t)
	_, pane := c.Tmx.NewSession("qw")
	var k keysOut
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "for i in 1 2 3 4 5; do echo tick $i; sleep 0.1; done"}, &k)
	began := time.Now()
	var w struct {
		Outcome string   `json:"outcome"`
		QuietMs int      `json:"quiet_ms"`
		Tail    []string `json:"tail"`
	}
	c.OK("wait_for_text", map[string]any{"pane_id": pane, "cursor": k.Cursor, "quiet_ms": 300, "timeout": 20}, &w)
	took := time.Since(began)
	if w.Outcome != "quiet" || w.QuietMs < 300 || !strings.Contains(strings.Join(w.Tail, "\n"), "tick 5") {
		t.Fatalf("%+v after %v", w, took)
	}
	// The busy-machine margin: the wait ends at most a scheduler slice or two after the quiet
	// time; the benchmark measures it precisely.
	if w.QuietMs > 300+500 {
		t.Errorf("quiet for %d ms when it returned, want about 300", w.QuietMs)
	}
	t.Logf("returned after %v, quiet for %d ms", took, w.QuietMs)
}

// TestPasteSubmit: paste_text submit=true presses Enter only once the program has taken the
// paste: a line reader gets the whole text, and the result says the screen changed.
func TestPasteSubmit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	c := start(t)
	_, pane := c.Tmx.NewSession("ps")
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": `python3 -c 'import sys; s = input("> "); print("got", len(s), s[-3:])'`}, nil)
	c.Tmx.WaitFor(pane, func(s string) bool {
		return strings.Contains(s, "\n> ") || strings.HasSuffix(strings.TrimSpace(s), ">")
	})
	text := strings.Repeat("abcdefghij", 30) + "END"
	var out struct {
		Submitted     bool   `json:"submitted"`
		ScreenChanged bool   `json:"screen_changed"`
		Cursor        string `json:"cursor"`
	}
	c.OK("paste_text", map[string]any{"pane_id": pane, "text": text, "submit": true}, &out)
	if !out.Submitted || !out.ScreenChanged {
		t.Errorf("%+v", out)
	}
	c.Tmx.WaitFor(pane, func(s string) bool { return strings.Contains(s, "got 303 END") })
}
