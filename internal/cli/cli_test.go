package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

func runCLI(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), args, IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Env: env})
	return code, out.String(), errb.String()
}

func TestVersionAndHelp(t *testing.T) {
	if code, out, _ := runCLI(t, nil, "version"); code != 0 || !strings.HasPrefix(out, "tmux-mcp ") {
		t.Fatalf("version: %d %q", code, out)
	}
	if code, _, errs := runCLI(t, nil, "--help"); code != 0 || !strings.Contains(errs, "tmux-mcp call TOOL") {
		t.Fatalf("--help: %d %q", code, errs)
	}
	if code, _, errs := runCLI(t, nil, "frobnicate"); code != 2 || !strings.Contains(errs, "unknown command") {
		t.Fatalf("unknown command: %d %q", code, errs)
	}
}

func TestToolsByTier(t *testing.T) {
	code, out, _ := runCLI(t, []string{"LIBTMUX_SAFETY=readonly"}, "tools")
	if code != 0 || !strings.Contains(out, "list_sessions") || strings.Contains(out, "create_session") {
		t.Fatalf("readonly tools: %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, nil, "tools", "--tools", "list_sessions,get_pane_info")
	if code != 0 || strings.Count(out, "\n") != 2 {
		t.Fatalf("--tools narrowing: %d\n%s", code, out)
	}
	if code, _, errs := runCLI(t, nil, "tools", "--tools", "nope"); code != 2 || !strings.Contains(errs, `"nope"`) {
		t.Fatalf("unknown tool in LIBTMUX_MCP_TOOLS: %d %q", code, errs)
	}
	code, out, errs := runCLI(t, []string{"LIBTMUX_SAFETY=bogus"}, "tools")
	if code != 0 || !strings.Contains(errs, "readonly") || strings.Contains(out, "create_session") {
		t.Fatalf("bogus tier must fall back to readonly with a warning: %d %q\n%s", code, errs, out)
	}
}

func TestBadSuppressHistory(t *testing.T) {
	if code, _, errs := runCLI(t, []string{"LIBTMUX_SUPPRESS_HISTORY=yes"}, "tools"); code != 2 || !strings.Contains(errs, "LIBTMUX_SUPPRESS_HISTORY") {
		t.Fatalf("%d %q", code, errs)
	}
}

func TestCall(t *testing.T) {
	tmx := testtmux.New(t)
	env := append(tmx.Env, "LIBTMUX_SOCKET_PATH="+tmx.Socket)
	code, out, _ := runCLI(t, env, "call", "create_session", `{"session_name":"cli"}`)
	if code != 0 {
		t.Fatalf("create_session: %d %s", code, out)
	}
	// The result is printed once: its structured content, not its text as well.
	var res struct {
		SessionName string `json:"session_name"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.SessionName != "cli" {
		t.Fatalf("result %s (%v)", out, err)
	}
	if code, out, _ := runCLI(t, env, "call", "get_pane_info", `{"pane_id":"bad"}`); code != 1 || !strings.Contains(out, "pane_id") {
		t.Fatalf("tool error must exit 1: %d %s", code, out)
	}
	if code, _, errs := runCLI(t, env, "call", "list_sesions"); code != 2 || !strings.Contains(errs, `did you mean "list_sessions"`) {
		t.Fatalf("unknown tool: %d %s", code, errs)
	}
	if code, out, _ := runCLI(t, env, "call", "list_sessions", `{"pane_id":"%0"}`); code != 1 || !strings.Contains(out, "does not take") {
		t.Fatalf("unknown argument: %d %s", code, out)
	}
}

// TestToolsName: tmux-mcp tools NAME prints that tool's arguments, with types, defaults and
// descriptions; a misspelt name gets the closest.
func TestToolsName(t *testing.T) {
	code, out, _ := runCLI(t, nil, "tools", "send_keys")
	if code != 0 || !strings.Contains(out, "keys (string, required)") || !strings.Contains(out, "enter (boolean, default true)") || !strings.Contains(out, "suppress_history (boolean, default false): Prefix") {
		t.Fatalf("tools send_keys: %d\n%s", code, out)
	}
	if code, _, errs := runCLI(t, nil, "tools", "send_kyes"); code != 2 || !strings.Contains(errs, `did you mean "send_keys"`) {
		t.Fatalf("tools send_kyes: %d %s", code, errs)
	}
}

func TestNoTmuxBinary(t *testing.T) {
	code, _, errs := runCLI(t, []string{"LIBTMUX_TMUX_BIN=/nonexistent/tmux"}, "call", "list_sessions")
	if code != 1 || !strings.Contains(errs, "cannot find the tmux binary") {
		t.Fatalf("%d %q", code, errs)
	}
}

func TestTerminalHint(t *testing.T) {
	var out, errb bytes.Buffer
	code := Run(context.Background(), nil, IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, StdinIsTerminal: true, Env: []string{"LIBTMUX_SOCKET=tmux-mcp-cli-test-none"}})
	if code != 0 || !strings.Contains(errb.String(), "speaks MCP") || out.Len() != 0 {
		t.Fatalf("%d stderr=%q stdout=%q", code, errb.String(), out.String())
	}
}

func TestHTTPNeedsToken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	var errb bytes.Buffer
	go func() {
		done <- Run(ctx, []string{"serve", "--http", addr}, IO{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &lockedBuf{b: &errb}, Env: []string{"TMUX_MCP_TOKEN=s3cret", "LIBTMUX_SOCKET=tmux-mcp-cli-test-none"}})
	}()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
		}
	}
	defer stop()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	post := func(token, host string) int {
		req, _ := http.NewRequest("POST", "http://"+addr+"/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return -1
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	deadline := time.Now().Add(5 * time.Second)
	for post("", "") == -1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if c := post("", ""); c != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", c)
	}
	if c := post("wrong", ""); c != http.StatusUnauthorized {
		t.Errorf("wrong token: %d, want 401", c)
	}
	if c := post("s3cret", "evil.example"); c != http.StatusForbidden {
		t.Errorf("foreign Host: %d, want 403", c)
	}
	if c := post("s3cret", ""); c != http.StatusOK {
		t.Errorf("right token: %d, want 200", c)
	}
	stop()
	if !strings.Contains(errb.String(), "the bearer token is 6 characters; use at least 32") {
		t.Errorf("a short token must be warned of: %q", errb.String())
	}
}

// The collector is paused while the server is built and back on afterwards, with the setting
// found before, however the pauses of concurrent callers interleave.
func TestPauseGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(137))
	a := pauseGC()
	b := pauseGC()
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("paused: GC percent %d, want -1", got)
	}
	a()
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("one pause left: GC percent %d, want -1", got)
	}
	b()
	if got := debug.SetGCPercent(137); got != 137 {
		t.Errorf("resumed: GC percent %d, want 137", got)
	}
	for _, args := range [][]string{{"tools"}, nil} {
		runCLI(t, []string{"LIBTMUX_SOCKET=tmux-mcp-cli-test-none"}, args...)
		if got := debug.SetGCPercent(137); got != 137 {
			t.Errorf("after Run %q: GC percent %d, want 137", args, got)
		}
	}
}
