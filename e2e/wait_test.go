package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

type waitResult struct {
	Found            bool     `json:"found"`
	Outcome          string   `json:"outcome"`
	MatchedIndex     *int     `json:"matched_index"`
	MatchedLines     []string `json:"matched_lines"`
	Tail             []string `json:"tail"`
	SawNewOutput     bool     `json:"saw_new_output"`
	MatchedAtEntry   bool     `json:"matched_at_entry"`
	PaneID           string   `json:"pane_id"`
	ElapsedSeconds   float64  `json:"elapsed_seconds"`
	EffectiveTimeout float64  `json:"effective_timeout"`
	Cursor           string   `json:"cursor"`
	LinesMissed      bool     `json:"lines_missed"`
	Note             string   `json:"note"`
	StartedFrom      string   `json:"started_from"`
}

// goWait runs wait_for_text in the background; the result arrives on the channel.
func goWait(c *Client, args map[string]any) <-chan waitResult {
	ch := make(chan waitResult, 1)
	go func() {
		var r waitResult
		res := c.Call("wait_for_text", args)
		if res.IsError {
			c.t.Errorf("wait_for_text(%v): %s", args, text(res))
		} else {
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &r)
		}
		ch <- r
	}()
	return ch
}

// waiting gives a background wait time to open its stream before the test acts.
func waiting() { time.Sleep(300 * time.Millisecond) }

// warm makes a short wait on pane, so that its session's stream connection is attached (and
// kept) before a test races a background wait against the pane's output.
func warm(c *Client, pane string) {
	c.t.Helper()
	c.OK("wait_for_text", map[string]any{"pane_id": pane, "timeout": 0.05}, nil)
}

func TestWaitForTextOnlyNewOutput(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	// Printed before the call (typed by tmux directly, so no echo record): on screen, not new.
	c.Tmx.Tmux("send-keys", "-t", pane, "echo OLD$((1))TEXT", "Enter")
	screenHas(c, pane, "OLD1TEXT")
	var r waitResult
	c.OK("wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{"old1text"}, "timeout": 0.5}, &r)
	if r.Found || r.Outcome != "timeout" || !r.MatchedAtEntry || r.PaneID != pane || r.EffectiveTimeout != 0.5 || r.Cursor == "" || !strings.Contains(r.Note, "capture_pane") {
		t.Errorf("text on screen before the call: %+v", r)
	}
	if r.ElapsedSeconds < 0.5 || r.ElapsedSeconds > 2 {
		t.Errorf("elapsed %v for a 0.5 s timeout", r.ElapsedSeconds)
	}
	// match_case: the same text arriving later, in the wrong case, does not match.
	ch := goWait(c, map[string]any{"pane_id": pane, "patterns": []string{"old1text"}, "match_case": true, "timeout": 1})
	waiting()
	c.Tmx.Tmux("send-keys", "-t", pane, "echo OLD$((1))TEXT", "Enter")
	if r := <-ch; r.Found || r.Outcome != "timeout" || !r.SawNewOutput {
		t.Errorf("match_case: %+v", r)
	}
}

func TestWaitForTextIgnoresOwnEcho(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	warm(c, pane)
	// The wait starts first; then we type the command without running it: the pane echoes
	// "echo MARKER", which must not match.
	ch := goWait(c, map[string]any{"pane_id": pane, "patterns": []string{"MARKER"}, "timeout": 1.5})
	waiting()
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "echo MARKER", "enter": false}, nil)
	r := <-ch
	if r.Found || r.Outcome != "timeout" || r.SawNewOutput || r.MatchedAtEntry {
		t.Fatalf("the echo of our typing matched: %+v", r)
	}
	// Typed and on screen: a new wait does not count it at entry either.
	var r2 waitResult
	c.OK("wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{"MARKER"}, "timeout": 0.2}, &r2)
	if r2.Found || r2.MatchedAtEntry {
		t.Errorf("echo on screen at entry: %+v", r2)
	}
	// Enter runs it: the output matches. The cursor of the first wait resumes right after
	// what it saw, so output printed between the calls is not lost.
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "Enter", "enter": false}, nil)
	screenHas(c, pane, "\nMARKER")
	var r3 waitResult
	c.OK("wait_for_text", map[string]any{"cursor": r.Cursor, "patterns": []string{"MARKER"}, "timeout": 2}, &r3)
	if !r3.Found || r3.Outcome != "matched" || !slices.Equal(r3.MatchedLines, []string{"MARKER"}) || r3.PaneID != pane {
		t.Errorf("with the cursor: %+v", r3)
	}
	// Typing a command with Enter: its echo "$ echo READY" is ignored, its output matches.
	ch = goWait(c, map[string]any{"pane_id": pane, "patterns": []string{"READY"}, "timeout": 3})
	waiting()
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "echo READY"}, nil)
	if r := <-ch; !r.Found || !slices.Equal(r.MatchedLines, []string{"READY"}) {
		t.Errorf("typed command: %+v", r)
	}
}

func TestWaitForTextWakeUpLatency(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	// The first wait of a session attaches its stream connection (kept afterwards): do it
	// before measuring, so that the sleep below always outlasts the setup.
	c.OK("wait_for_text", map[string]any{"pane_id": pane, "timeout": 0.1}, nil)
	var lat, rtt []time.Duration
	for i := range 10 {
		// $EPOCHREALTIME is read by bash right before echo writes the line. The sleep
		// outlasts the wait's setup even on a loaded machine.
		c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "sleep 0.5; echo WOKE$EPOCHREALTIME"}, nil)
		var r waitResult
		c.OK("wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{`WOKE\d+\.\d+`}, "regex": true, "timeout": 5}, &r)
		got := time.Now()
		if !r.Found || len(r.MatchedLines) != 1 {
			t.Fatalf("run %d: %+v", i, r)
		}
		stamp := strings.TrimPrefix(r.MatchedLines[0], "WOKE")
		f, err := strconv.ParseFloat(stamp, 64)
		if err != nil {
			t.Fatalf("stamp %q: %v", stamp, err)
		}
		printed := time.Unix(0, int64(f*1e9))
		lat = append(lat, got.Sub(printed))
		if r.ElapsedSeconds < 0.2 {
			t.Errorf("run %d matched after %.3fs: the sleep is 0.5 s", i, r.ElapsedSeconds)
		}
		// The MCP round trip of a call that does not reach tmux.
		b := time.Now()
		c.Call("wait_for_text", map[string]any{"patterns": []string{"("}, "regex": true})
		rtt = append(rtt, time.Since(b))
	}
	slices.Sort(lat)
	slices.Sort(rtt)
	t.Logf("wake-up latency (print -> result in the client), %d runs: min %v, median %v, max %v; MCP round trip median %v",
		len(lat), lat[0], lat[len(lat)/2], lat[len(lat)-1], rtt[len(rtt)/2])
	// A bound only when asked (TMUX_MCP_TEST_LATENCY=1): a loaded machine fails any bound.
	if med := lat[len(lat)/2]; os.Getenv("TMUX_MCP_TEST_LATENCY") == "1" && med > 50*time.Millisecond {
		t.Errorf("median wake-up latency %v", med)
	}
}

func TestWaitForTextStopAndAnyOutput(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	warm(c, pane)
	ch := goWait(c, map[string]any{"pane_id": pane, "patterns": []string{"DONE"}, "stop": []string{"warn", "ERROR"}, "timeout": 5})
	waiting()
	// (typed by tmux directly: no echo record, so the typed line must not hold the words)
	c.Tmx.Tmux("send-keys", "-t", pane, "echo progress; sleep 0.1; echo ERR''OR: boo$((1)); sleep 0.5; echo DO''NE", "Enter")
	r := <-ch
	if r.Found || r.Outcome != "stopped" || r.MatchedIndex == nil || *r.MatchedIndex != 1 || !slices.Equal(r.MatchedLines, []string{"ERROR: boo1"}) {
		t.Errorf("stop: %+v", r)
	}
	if !slices.Contains(r.Tail, "progress") {
		t.Errorf("tail %q lacks the earlier output", r.Tail)
	}
	// stop is checked first on the same line.
	ch = goWait(c, map[string]any{"pane_id": pane, "patterns": []string{"both"}, "stop": []string{"both"}, "timeout": 5})
	waiting()
	c.Tmx.Tmux("send-keys", "-t", pane, "echo bo''th", "Enter")
	if r := <-ch; r.Outcome != "stopped" {
		t.Errorf("stop wins a tie: %+v", r)
	}
	// patterns null: any new output.
	c.Tmx.WaitFor(pane, func(s string) bool { return strings.HasSuffix(strings.TrimSpace(s), "$") })
	ch = goWait(c, map[string]any{"pane_id": pane, "timeout": 5})
	waiting()
	c.Tmx.Tmux("send-keys", "-t", pane, "echo some output", "Enter")
	if r := <-ch; !r.Found || r.Outcome != "any_output" || len(r.MatchedLines) == 0 || r.MatchedIndex != nil {
		t.Errorf("any output: %+v", r)
	}
	// Regular expressions.
	ch = goWait(c, map[string]any{"pane_id": pane, "patterns": []string{`^code=(\d{3})$`}, "regex": true, "timeout": 5})
	waiting()
	c.Tmx.Tmux("send-keys", "-t", pane, "echo code=$((400+4))", "Enter")
	if r := <-ch; !r.Found || !slices.Equal(r.MatchedLines, []string{"code=404"}) || *r.MatchedIndex != 0 {
		t.Errorf("regex: %+v", r)
	}
	// Literal patterns are not regular expressions.
	ch = goWait(c, map[string]any{"pane_id": pane, "patterns": []string{"a.c", "[x]"}, "timeout": 5})
	waiting()
	c.Tmx.Tmux("send-keys", "-t", pane, "echo abc; echo '[x]'", "Enter")
	if r := <-ch; !r.Found || *r.MatchedIndex != 1 {
		t.Errorf("literal: %+v", r)
	}
}

func TestWaitForTextPaneDied(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	other := c.Tmx.SplitWindow(pane)
	warm(c, other)
	ch := goWait(c, map[string]any{"pane_id": other, "patterns": []string{"never"}, "timeout": 10})
	waiting()
	killed := time.Now()
	c.Tmx.Tmux("kill-pane", "-t", other)
	r := <-ch
	if r.Found || r.Outcome != "pane_died" {
		t.Errorf("killed pane: %+v", r)
	}
	if d := time.Since(killed); d > time.Second {
		t.Errorf("pane_died reported %v after the kill", d)
	}
	// A pane that exits under remain-on-exit stays as a dead pane, which tmux does not
	// announce (and whose program tmux may leave a zombie): the wait looks at the program in
	// the process table and reports it then, not at its deadline.
	p3 := c.Tmx.SplitWindow(pane)
	c.Tmx.Tmux("set-option", "-p", "-t", p3, "remain-on-exit", "on")
	ch = goWait(c, map[string]any{"pane_id": p3, "patterns": []string{"never"}, "timeout": 30})
	waiting()
	c.Tmx.Tmux("send-keys", "-t", p3, "exit", "Enter")
	if r := <-ch; r.Outcome != "pane_died" || r.ElapsedSeconds > 15 {
		t.Errorf("pane that exited under remain-on-exit: want pane_died well before the 30 s timeout, got %+v", r)
	}
	// A dead pane at entry: at once.
	var r2 waitResult
	c.OK("wait_for_text", map[string]any{"pane_id": p3, "timeout": 5}, &r2)
	if r2.Outcome != "pane_died" || r2.ElapsedSeconds > 1 {
		t.Errorf("dead at entry: %+v", r2)
	}
}

func TestWaitForTextAlternateScreen(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	warm(c, pane)
	ch := goWait(c, map[string]any{"pane_id": pane, "patterns": []string{"never"}, "timeout": 1.5})
	waiting()
	c.Tmx.Tmux("send-keys", "-t", pane, `printf '\033[?1049h'; sleep 5; printf '\033[?1049l'`, "Enter")
	if r := <-ch; r.Outcome != "alternate_screen" || r.Found {
		t.Errorf("alternate screen: %+v", r)
	}
}

// TestWaitForTextFullScreenRedraw: a full-screen program already on the alternate screen when
// the wait begins rewrites only what changed (as watch and top do: cursor motion and a digit),
// so its text never comes as a line; the wait reads the screen's rows and matches a row newly
// drawn, and never a row that was on screen at its start and stayed unchanged.
func TestWaitForTextFullScreenRedraw(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	warm(c, pane)
	c.Tmx.Tmux("send-keys", "-t", pane, `printf '\033[?1049h\033[H\033[2Jstatus: count 1\033[5;1Hfooter'; `+
		`for i in 2 3 4 5 6 7 8 9; do sleep 1; printf '\033[1;15H%s' $i; done; sleep 60`, "Enter")
	screenHas(c, pane, "status: count")
	var now struct{ Cursor string }
	c.OK("capture_since", map[string]any{"pane_id": pane}, &now) // the wait starts after the first draw
	var r waitResult
	c.OK("wait_for_text", map[string]any{"cursor": now.Cursor, "patterns": []string{"footer"}, "timeout": 1.5}, &r)
	if r.Found {
		t.Errorf("a row unchanged since the wait began matched: %+v", r)
	}
	c.OK("wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{"count 6"}, "timeout": 20}, &r)
	if !r.Found || r.Outcome != "matched" || len(r.MatchedLines) != 1 || r.MatchedLines[0] != "status: count 6" {
		t.Errorf("text redrawn on the alternate screen was not matched: %+v", r)
	}
	c.Tmx.Tmux("send-keys", "-t", pane, "C-c", "")
}

func TestWaitForTextCursor(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	other := c.Tmx.SplitWindow(pane)
	var r waitResult
	c.OK("wait_for_text", map[string]any{"pane_id": pane, "timeout": 0.1}, &r)
	// Printed between two calls: the cursor sees it.
	c.Tmx.Tmux("send-keys", "-t", pane, "echo between-$((1))", "Enter")
	screenHas(c, pane, "between-1\n")
	var r2 waitResult
	c.OK("wait_for_text", map[string]any{"cursor": r.Cursor, "patterns": []string{"between-1"}, "timeout": 1}, &r2)
	if !r2.Found {
		t.Errorf("output between the calls was lost: %+v", r2)
	}
	// Resuming from the match's cursor does not match the same line again.
	var r3 waitResult
	c.OK("wait_for_text", map[string]any{"cursor": r2.Cursor, "patterns": []string{"between-1"}, "timeout": 0.3}, &r3)
	if r3.Found {
		t.Errorf("matched the same line twice: %+v", r3)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"cursor": r.Cursor, "pane_id": other}, "belongs to pane " + pane},
		{map[string]any{"cursor": "garbage"}, "malformed"},
		{map[string]any{"cursor": forge(r.Cursor)}, "not issued by this server"},
		{map[string]any{"cursor": strings.Repeat("x", 1<<20)}, "malformed"},
	} {
		if msg := c.Fail("wait_for_text", tc.args); !strings.Contains(msg, tc.want) {
			t.Errorf("%.80v: %s", tc.args, msg)
		}
	}
	// A respawned pane voids the cursor.
	c.Tmx.Tmux("respawn-pane", "-k", "-t", pane, "bash --noprofile --norc")
	if msg := c.Fail("wait_for_text", map[string]any{"cursor": r3.Cursor}); !strings.Contains(msg, "respawned") {
		t.Errorf("respawned: %s", msg)
	}
}

// forge flips one bit of a cursor's payload.
func forge(cur string) string {
	b, err := base64.RawURLEncoding.DecodeString(cur)
	if err != nil || len(b) < 40 {
		return cur + "x"
	}
	b[len(b)-20] ^= 1 // the offset's last byte
	return base64.RawURLEncoding.EncodeToString(b)
}

func TestWaitForTextClampAndErrors(t *testing.T) {
	c := start(t, "LIBTMUX_MCP_WAIT_MAX_SECONDS=1")
	_, pane := c.Tmx.NewSession("s")
	var r waitResult
	c.OK("wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{"never"}, "timeout": 30}, &r)
	if r.EffectiveTimeout != 1 || r.Outcome != "timeout" || r.ElapsedSeconds > 2 {
		t.Errorf("clamp: %+v", r)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pane_id": pane, "patterns": []string{"a(b"}, "regex": true}, "not a valid regular expression"},
		{map[string]any{"pane_id": pane, "patterns": []string{`(?=x)`}, "regex": true}, "RE2"},
		{map[string]any{"pane_id": pane, "stop": []string{"[z"}, "regex": true}, "stop[0]"},
		{map[string]any{"pane_id": pane, "patterns": []string{}}, "patterns=null"},
		{map[string]any{"pane_id": pane, "patterns": []string{""}}, "patterns[0] is empty"},
		{map[string]any{"pane_id": pane, "patterns": []string{strings.Repeat("a", 5000)}}, "at most"},
		{map[string]any{"pane_id": pane, "timeout": -1}, "timeout"},
		{map[string]any{"pane_id": pane, "patterns": "x"}, "patterns"},
		{map[string]any{"pane_id": "%999"}, "no pane has id %999"},
		{map[string]any{"pane_id": "%1;x"}, "not a pane id"},
		{map[string]any{"pane_id": pane, "interval": -1}, "interval got -1"}, // libtmux-mcp's; any other value is taken and ignored
	} {
		if msg := c.Fail("wait_for_text", tc.args); !strings.Contains(msg, tc.want) {
			t.Errorf("%.80v: %s", tc.args, msg)
		}
	}
	// A NUL byte in a pattern is harmless: it just never matches.
	c.OK("wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{"a\x00b"}, "timeout": 0.1}, &r)
}

// startWithClient is start with client options (progress notifications).
func startWithClient(t *testing.T, opts *mcp.ClientOptions, env ...string) (*Client, *testtmux.Server) {
	t.Helper()
	tmx := testtmux.New(t)
	cmd := exec.Command(binary)
	cmd.Env = append(append([]string{}, tmx.Env...), "LIBTMUX_SOCKET_PATH="+tmx.Socket)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = &testWriter{t: t}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "0"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &Client{t: t, CS: cs, Tmx: tmx, cmd: cmd}, tmx
}

func TestWaitProgress(t *testing.T) {
	var n atomic.Int32
	c, _ := startWithClient(t, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		if req.Params.ProgressToken == "tok" && req.Params.Total > 0 {
			n.Add(1)
		}
	}})
	_, pane := c.Tmx.NewSession("s")
	params := &mcp.CallToolParams{Name: "wait_for_text", Arguments: map[string]any{"pane_id": pane, "patterns": []string{"never"}, "timeout": 2.6}}
	params.SetProgressToken("tok")
	res, err := c.CS.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("%v %v", err, res)
	}
	time.Sleep(50 * time.Millisecond)
	if got := n.Load(); got < 2 || got > 3 {
		t.Errorf("wait_for_text: %d progress notifications in 2.6 s, want 2", got)
	}
	n.Store(0)
	params = &mcp.CallToolParams{Name: "wait_for_channel", Arguments: map[string]any{"channel": "prog", "timeout": 2.6}}
	params.SetProgressToken("tok")
	if res, err := c.CS.CallTool(context.Background(), params); err != nil || res.IsError {
		t.Fatalf("%v %v", err, res)
	}
	time.Sleep(50 * time.Millisecond)
	if got := n.Load(); got < 2 || got > 3 {
		t.Errorf("wait_for_channel: %d progress notifications in 2.6 s, want 2", got)
	}
	// No token, no notifications.
	n.Store(0)
	c.OK("wait_for_text", map[string]any{"pane_id": pane, "timeout": 1.2}, nil)
	if got := n.Load(); got != 0 {
		t.Errorf("%d notifications without a progress token", got)
	}
}

type channelResult struct {
	Channel          string  `json:"channel"`
	Signalled        bool    `json:"signalled"`
	EffectiveTimeout float64 `json:"effective_timeout"`
}

func TestWaitForChannel(t *testing.T) {
	c := start(t)
	c.Tmx.NewSession("s")
	// Signalled while waiting.
	ch := make(chan channelResult, 1)
	go func() {
		var r channelResult
		c.OK("wait_for_channel", map[string]any{"channel": "build.done:1", "timeout": 5}, &r)
		ch <- r
	}()
	waiting()
	c.Tmx.Tmux("wait-for", "-S", "build.done:1")
	signalled := time.Now() // the signal was delivered when the signalling client returned
	r := <-ch
	if !r.Signalled || r.Channel != "build.done:1" || r.EffectiveTimeout != 5 {
		t.Errorf("signalled: %+v", r)
	}
	t.Logf("wait_for_channel returned %v after the signal (signal done at %s)", time.Since(signalled), signalled.Format("15:04:05.000000"))

	// Timeout.
	begin := time.Now()
	c.OK("wait_for_channel", map[string]any{"channel": "late", "timeout": 0.3}, &r)
	if r.Signalled || time.Since(begin) > 2*time.Second {
		t.Errorf("timeout: %+v after %v", r, time.Since(begin))
	}
	// A signal sent while nobody waits is not lost (tmux latches it; a timed-out wait must
	// not swallow it).
	c.Tmx.Tmux("wait-for", "-S", "late")
	begin = time.Now()
	c.OK("wait_for_channel", map[string]any{"channel": "late", "timeout": 5}, &r)
	if !r.Signalled || time.Since(begin) > time.Second {
		t.Errorf("signal between waits lost: %+v after %v", r, time.Since(begin))
	}
	// signal_channel before the wait.
	var s struct{ Channel string }
	c.OK("signal_channel", map[string]any{"channel": "early"}, &s)
	if s.Channel != "early" {
		t.Errorf("signal_channel = %+v", s)
	}
	begin = time.Now()
	c.OK("wait_for_channel", map[string]any{"channel": "early", "timeout": 5}, &r)
	if !r.Signalled || time.Since(begin) > time.Second {
		t.Errorf("latched signal: %+v after %v", r, time.Since(begin))
	}
	// signal_channel wakes a waiter.
	go func() {
		var r channelResult
		c.OK("wait_for_channel", map[string]any{"channel": "ping", "timeout": 5}, &r)
		ch <- r
	}()
	waiting()
	c.OK("signal_channel", map[string]any{"channel": "ping"}, nil)
	if r := <-ch; !r.Signalled {
		t.Errorf("signal_channel did not wake the waiter: %+v", r)
	}
	// Names that could reach a shell or a tmux format are refused.
	for _, name := range []string{"a;b", "#{pane_id}", "a b", "", strings.Repeat("x", 129), "a'b", "$(x)", "a\x00b"} {
		for _, tool := range []string{"wait_for_channel", "signal_channel"} {
			if msg := c.Fail(tool, map[string]any{"channel": name}); !strings.Contains(msg, "channel") {
				t.Errorf("%s %q: %s", tool, name, msg)
			}
		}
	}
}

func TestWaitForChannelServerKilled(t *testing.T) {
	c := start(t)
	c.Tmx.NewSession("s")
	for _, how := range []string{"kill-server", "SIGKILL"} {
		if how == "SIGKILL" {
			c.Tmx.NewSession("again")
		}
		ch := make(chan string, 1)
		go func() { ch <- c.Fail("wait_for_channel", map[string]any{"channel": "never", "timeout": 10}) }()
		waiting()
		killed := time.Now()
		if how == "kill-server" {
			c.Tmx.Tmux("kill-server")
		} else {
			pid := atoi(c.Tmx.Tmux("display-message", "-p", "#{pid}"))
			exec.Command("kill", "-KILL", strconv.Itoa(pid)).Run()
		}
		msg := <-ch
		if !strings.Contains(msg, "exited") {
			t.Errorf("%s: %s", how, msg)
		}
		if d := time.Since(killed); d > 3*time.Second {
			t.Errorf("%s: reported after %v", how, d)
		}
	}
}

// TestWaitForTextEchoShells: in every shell, the echo of a typed command never matches, and
// its output does.
func TestWaitForTextEchoShells(t *testing.T) {
	c := start(t)
	first, _ := c.Tmx.NewSession("s")
	for _, sh := range [][]string{testtmux.Bash, testtmux.Dash, testtmux.Zsh, testtmux.Mksh, testtmux.Fish} {
		t.Run(sh[0], func(t *testing.T) {
			testtmux.RequireShell(t, sh)
			pane := c.Tmx.NewWindow(first, sh...)
			warm(c, pane)
			ch := goWait(c, map[string]any{"pane_id": pane, "patterns": []string{"MARKER"}, "timeout": 1})
			waiting()
			c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "echo MARKER", "enter": false}, nil)
			r := <-ch
			if r.Found {
				t.Fatalf("the typed line matched: %+v", r)
			}
			c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "Enter", "enter": false}, nil)
			var r2 waitResult
			c.OK("wait_for_text", map[string]any{"cursor": r.Cursor, "patterns": []string{"MARKER"}, "timeout": 3}, &r2)
			if !r2.Found || !slices.Equal(r2.MatchedLines, []string{"MARKER"}) {
				t.Errorf("output: %+v", r2)
			}
			// Typed with Enter while a wait runs: the output line matches, not the typed one.
			ch = goWait(c, map[string]any{"pane_id": pane, "patterns": []string{"READY"}, "timeout": 3})
			waiting()
			c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "echo READY"}, nil)
			if r := <-ch; !r.Found || !slices.Equal(r.MatchedLines, []string{"READY"}) {
				t.Errorf("typed with Enter: %+v", r)
			}
			// A typed line longer than the pane is wide (80 columns) wraps on screen.
			long := "echo " + strings.Repeat("abcdefghij", 12) + " LONGMARK"
			ch = goWait(c, map[string]any{"pane_id": pane, "patterns": []string{"LONGMARK", "abcdefghij"}, "timeout": 1})
			waiting()
			c.OK("send_keys", map[string]any{"pane_id": pane, "keys": long, "enter": false}, nil)
			if r := <-ch; r.Found {
				t.Errorf("a long typed line matched: %+v", r)
			}
			c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "C-c", "enter": false}, nil)
			c.Tmx.WaitFor(pane, func(s string) bool {
				return strings.Contains(s, "LONGMARK") && !strings.HasSuffix(strings.TrimSpace(s), "LONGMARK")
			})
			// The same long line run at once: its output matches, not the rows of its echo.
			ch = goWait(c, map[string]any{"pane_id": pane, "patterns": []string{"LONGMARK"}, "timeout": 3})
			waiting()
			c.OK("send_keys", map[string]any{"pane_id": pane, "keys": long}, nil)
			r = <-ch
			if !r.Found || !slices.Equal(r.MatchedLines, []string{long[len("echo "):]}) {
				t.Errorf("long line run at once: %+v", r)
			}
		})
	}
}

// TestWaitForTextCursorSharedWithCaptureSince: the two tools read the same cursors.
func TestWaitForTextCursorSharedWithCaptureSince(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	var cs struct {
		Cursor string   `json:"cursor"`
		Lines  []string `json:"lines"`
	}
	c.OK("capture_since", map[string]any{"pane_id": pane}, &cs)
	c.Tmx.Tmux("send-keys", "-t", pane, "echo first-$((1)); echo second-$((2))", "Enter")
	screenHas(c, pane, "second-2\n")
	var r waitResult
	c.OK("wait_for_text", map[string]any{"cursor": cs.Cursor, "patterns": []string{"first-1"}, "timeout": 2}, &r)
	if !r.Found || r.LinesMissed {
		t.Fatalf("wait_for_text from a capture_since cursor: %+v", r)
	}
	c.OK("capture_since", map[string]any{"cursor": r.Cursor}, &cs)
	if !slices.Contains(cs.Lines, "second-2") || slices.Contains(cs.Lines, "first-1") {
		t.Errorf("capture_since from a wait_for_text cursor: %q", cs.Lines)
	}
}

// TestWaitAfterRun: a run that outlived its call is input into its pane for the waits after
// it. An agent starts a server with run_shell_command (the call returns, still running),
// then waits for its "ready" line: what it printed in between is seen, not waited out, and the
// line showing the command, which holds the pattern too, is not taken for it. And after a run
// that completed, its output is seen as the waits after send_keys see theirs.
func TestWaitAfterRun(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	gate := filepath.Join(t.TempDir(), "gate")
	cmd := "while [ ! -e " + gate + " ]; do sleep 0.05; done; echo up-and-ready; sleep 30"
	if out := c.run(pane, cmd, "timeoutMs", 300); out.Outcome != "timed_out" {
		t.Fatalf("the run did not outlive its call: %+v", out)
	}
	os.WriteFile(gate, nil, 0o600)
	screenHas(c, pane, "\nup-and-ready")
	// The line showing the command comes first in the pane's output: matched_lines says
	// which line matched.
	var r waitResult
	c.OK("wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{"up-and-ready"}, "timeout": 30}, &r)
	if !r.Found || r.StartedFrom != "last_input" || !slices.Equal(r.MatchedLines, []string{"up-and-ready"}) {
		t.Errorf("the ready line printed between the run and the wait: %+v", r)
	}
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "C-c", "enter": false}, nil)
	c.OK("wait_for_run", map[string]any{"pane_id": pane, "timeout": 30}, nil)
	if out := c.run(pane, "echo done-$((40+2))"); out.Output != "done-42" {
		t.Fatalf("run: %+v", out)
	}
	c.OK("wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{"done-42"}, "timeout": 30}, &r)
	if !r.Found || !slices.Equal(r.MatchedLines, []string{"done-42"}) {
		t.Errorf("a completed run's output: %+v", r)
	}
}
