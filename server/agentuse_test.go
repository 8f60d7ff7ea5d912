package server

// Calls that agents made in exploratory use and that went wrong (a wedge, a file changed by the
// wrong keys, an error without a way forward): each as the agent made it.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

// callText runs a tool in-process and returns its text and whether it failed.
func callText(t *testing.T, srv *Server, tool, args string) (string, bool) {
	t.Helper()
	res, err := srv.Call(context.Background(), tool, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

// A window index is taken as results give it (a number) and as libtmux's servers take it (a
// string); a window's name passed as its index is refused with the index and id to pass.
func TestWindowIndexForms(t *testing.T) {
	srv, tmx, _ := newTestServer(t, policy.Mutating)
	win := strings.TrimSpace(tmx.Tmux("new-window", "-d", "-t", "s:", "-n", "editor", "-P", "-F", "#{window_id} #{window_index}"))
	id, idx, _ := strings.Cut(win, " ")
	for _, arg := range []string{idx, `"` + idx + `"`} {
		text, failed := callText(t, srv, "get_window_info", `{"session_name":"s","window_index":`+arg+`}`)
		if failed || !strings.Contains(text, `"window_id":"`+id+`"`) {
			t.Errorf("window_index %s: want window %s, got %s", arg, id, text)
		}
	}
	text, failed := callText(t, srv, "get_window_info", `{"session_name":"s","window_index":"editor"}`)
	if !failed || !strings.Contains(text, "window's name") || !strings.Contains(text, "window_index "+idx) || !strings.Contains(text, id) {
		t.Errorf("window_index of a name: want the index and id to pass, got %s", text)
	}
	for _, arg := range []string{`1.5`, `-1`, `true`} {
		text, failed := callText(t, srv, "get_window_info", `{"session_name":"s","window_index":`+arg+`}`)
		if !failed || !strings.Contains(text, "window_index") {
			t.Errorf("window_index %s: want a refusal naming window_index, got %s", arg, text)
		}
	}
	text, failed = callText(t, srv, "move_window", `{"window_id":"`+id+`","destination_index":7}`)
	if failed || !strings.Contains(text, `"window_index":7`) {
		t.Errorf("destination_index 7: %s", text)
	}
}

// A tool the server does not offer is explained over MCP: the setting that offers a tool of
// the catalogue, the name meant by a misspelled one, by tmux's word for it or by another tmux
// server's (split_pane is split_window, not the nearer select_pane), and why the tool meant is
// not offered when it is not; the code stays Invalid params.
func TestUnknownToolExplained(t *testing.T) {
	srv, _, _ := newTestServer(t, policy.Mutating)
	cs := mcpSession(t, srv)
	for tool, want := range map[string]string{
		"kill_server":     "--safety destructive",
		"list_session":    `did you mean "list_sessions"?`,
		"no_such_tool":    "Offered at tier mutating: ",
		"split_pane":      `did you mean "split_window"?`,
		"new-window":      `did you mean "create_window"?`,
		"execute-command": `did you mean "run_shell_command"?`,
		"tmux_send_keys":  `did you mean "send_keys"?`,
		"read_pane":       `did you mean "capture_pane"?`,
		"stop_server":     `the tool for that is "kill_server", which this server does not offer: it is a destructive tool`,
	} {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want an error saying %q, got %v", tool, want, err)
		}
	}
}

// An agent's keys into a pane in copy mode: the result says the keys drove copy mode, and a
// key whose binding opens a prompt (g: goto line) leaves the server answering.
func TestSendKeysInCopyMode(t *testing.T) {
	srv, _, pane := newTestServer(t, policy.Mutating)
	if text, failed := callText(t, srv, "enter_copy_mode", `{"pane_id":"`+pane+`","scroll_up":10}`); failed {
		t.Fatal(text)
	}
	text, failed := callText(t, srv, "send_keys", `{"pane_id":"`+pane+`","keys":"g","enter":false}`)
	if failed || !strings.Contains(text, `"in_mode":true`) {
		t.Fatalf("send_keys into copy mode: %s", text)
	}
	if text, failed := callText(t, srv, "list_sessions", `{}`); failed {
		t.Fatalf("after copy mode's g: %s", text)
	}
}

// An Escape followed by text starting with O (vim's "open a line above") reaches the program as
// two reads, not as ESC O A, which a program takes for the Up key.
func TestEscapeBeforeO(t *testing.T) {
	srv, tmx, pane := newTestServer(t, policy.Mutating)
	// A program that reports whether the byte after ESC came within 0.2 s (a sequence).
	tmx.Tmux("respawn-pane", "-k", "-t", pane, `bash -c 'stty raw -echo; echo ready; IFS= read -rsn1 a; if IFS= read -rsn1 -t 0.2 b; then echo together; else echo apart; fi; sleep 60'`)
	tmx.WaitFor(pane, func(s string) bool { return strings.Contains(s, "ready") })
	text, failed := callText(t, srv, "send_keys", `{"pane_id":"`+pane+`","keys":"Escape OAbove","enter":false}`)
	if failed {
		t.Fatal(text)
	}
	screen := tmx.WaitFor(pane, func(s string) bool { return strings.Contains(s, "together") || strings.Contains(s, "apart") })
	if !strings.Contains(screen, "apart") {
		t.Fatalf("Escape and O reached the program together:\n%s", screen)
	}
}

// With no tmux server, run_shell_command (no socket_name among its seeded arguments) is not
// told to pass socket_name.
func TestNoServerHintWithoutSocketName(t *testing.T) {
	srv, err := New(Options{SocketPath: filepath.Join(t.TempDir(), "none"), Env: []string{"PATH=" + os.Getenv("PATH")}, Safety: policy.Mutating})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	text, failed := callText(t, srv, "run_shell_command", `{"paneId":"%0","command":"true"}`)
	if !failed || !strings.Contains(text, "takes no socket_name") || !strings.Contains(text, "run_command") {
		t.Errorf("run_shell_command without a server: %s", text)
	}
	text, _ = callText(t, srv, "run_command", `{"pane_id":"%0","command":"true"}`)
	if !strings.Contains(text, "pass the socket_name") {
		t.Errorf("run_command without a server: %s", text)
	}
}

// With no tmux server on the default socket, every list of everything on it is empty, whether
// the socket is named by socket_name or left out; another name without a server is refused.
func TestListsWithoutServer(t *testing.T) {
	env := []string{"PATH=" + os.Getenv("PATH"), "TMUX_TMPDIR=" + t.TempDir()}
	srv, err := New(Options{SocketName: "mine", Env: env, Safety: policy.Mutating})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	for _, c := range []struct{ tool, args, want string }{
		{"list_sessions", `{}`, `{"sessions":[]}`},
		{"list_sessions", `{"socket_name":"mine"}`, `{"sessions":[]}`},
		{"list_windows", `{"socket_name":"mine"}`, `{"windows":[]}`},
		{"list_panes", `{}`, ``},
	} {
		text, failed := callText(t, srv, c.tool, c.args)
		if failed || !strings.Contains(text, c.want) {
			t.Errorf("%s %s: want %s, got %s", c.tool, c.args, c.want, text)
		}
	}
	for _, c := range []struct{ tool, args string }{
		{"list_sessions", `{"socket_name":"other"}`},
		{"list_windows", `{"session_name":"s"}`},
	} {
		if text, failed := callText(t, srv, c.tool, c.args); !failed {
			t.Errorf("%s %s: want a refusal, got %s", c.tool, c.args, text)
		}
	}
}

// An id with arguments that name another place is refused, naming where the id is; arguments
// that agree are taken.
func TestTargetsAgree(t *testing.T) {
	srv, tmx, pane := newTestServer(t, policy.Mutating)
	_, other := tmx.NewSession("other")
	win := strings.TrimSpace(tmx.Tmux("display", "-p", "-t", other, "#{window_id}"))
	for _, c := range []struct {
		tool, args string
		ok         bool
	}{
		{"get_pane_info", `{"pane_id":"` + pane + `","session_name":"s"}`, true},
		{"get_pane_info", `{"pane_id":"` + pane + `","session_name":"other"}`, false},
		{"get_pane_info", `{"pane_id":"` + pane + `","session_name":"nope"}`, false},
		{"get_pane_info", `{"pane_id":"` + pane + `","window_id":"` + win + `"}`, false},
		{"capture_pane", `{"pane_id":"` + pane + `","session_name":"other"}`, false}, // reads the pane alone
		{"capture_pane", `{"pane_id":"` + pane + `","session_name":"s"}`, true},
		{"get_window_info", `{"window_id":"` + win + `","window_index":0,"session_name":"other"}`, true},
		{"get_window_info", `{"window_id":"` + win + `","window_index":"1"}`, false},
		{"rename_window", `{"window_id":"` + win + `","session_name":"nope","new_name":"x"}`, false},
	} {
		text, failed := callText(t, srv, c.tool, c.args)
		if failed == c.ok || !c.ok && !strings.Contains(text, "is in ") {
			t.Errorf("%s %s: want ok=%v, got %s", c.tool, c.args, c.ok, text)
		}
	}
	if name := tmx.Tmux("display", "-p", "-t", win, "#{window_name}"); name == "x" {
		t.Error("rename_window renamed a window its arguments disagree about")
	}
}

// split_window's size: more cells than the pane has are refused (tmux would leave a pane of one
// line), a percentage over 99 too, each with what to pass.
func TestSplitSizeRoom(t *testing.T) {
	srv, _, pane := newTestServer(t, policy.Mutating)
	for _, c := range []struct {
		args, want string
	}{
		{`"size":1000`, "at most 22"},
		{`"size":"150%"`, "1% to 99%"},
		{`"size":30,"direction":"right"`, ""},
		{`"size":"40%"`, ""},
	} {
		text, failed := callText(t, srv, "split_window", `{"pane_id":"`+pane+`",`+c.args+`}`)
		if failed != (c.want != "") || !strings.Contains(text, c.want) {
			t.Errorf("split_window %s: want %q, got %s", c.args, c.want, text)
		}
	}
}

// A run waiting for a line says how to answer once, not twice.
func TestRunWaitingHintOnce(t *testing.T) {
	srv, _, pane := newTestServer(t, policy.Mutating)
	text, failed := callText(t, srv, "run_shell_command", `{"paneId":"`+pane+`","command":"cat","timeoutMs":8000}`)
	if failed || strings.Count(strings.ToLower(text), "answer with send_keys") != 1 {
		t.Errorf("a run waiting for input: %s", text)
	}
	callText(t, srv, "send_keys", `{"pane_id":"`+pane+`","keys":"C-c","enter":false}`)
}

// A window with synchronize-panes on passes keys sent to one pane to all of them: a run there
// would type its line, and run its command, in every pane of the window. It is refused, with
// the window to turn it off in; send_keys says its keys went to the other panes too.
func TestSynchronizedWindow(t *testing.T) {
	srv, tmx, pane := newTestServer(t, policy.Mutating)
	other := tmx.SplitWindow(pane)
	window := strings.TrimSpace(tmx.Tmux("display-message", "-p", "-t", pane, "#{window_id}"))
	tmx.Tmux("set-option", "-w", "-t", window, "synchronize-panes", "on")
	text, failed := callText(t, srv, "run_shell_command", `{"paneId":"`+pane+`","command":"echo ran-by-agent"}`)
	if !failed || !strings.Contains(text, "synchronize-panes") || !strings.Contains(text, "target="+window) {
		t.Errorf("a run in a synchronized window: want a refusal naming the window, got %s", text)
	}
	text, failed = callText(t, srv, "send_keys", `{"pane_id":"`+pane+`","keys":"echo sent-to-one"}`)
	if failed || !strings.Contains(text, `"synchronized":true`) {
		t.Errorf("send_keys in a synchronized window: want synchronized true, got %s", text)
	}
	waitScreen(t, tmx, other, "sent-to-one") // tmux's own behaviour, which the result reports
	if screen := tmx.Tmux("capture-pane", "-p", "-t", other); strings.Contains(screen, "ran-by-agent") {
		t.Errorf("the refused run typed into the other pane:\n%s", screen)
	}
	tmx.Tmux("set-option", "-w", "-t", window, "synchronize-panes", "off")
	text, failed = callText(t, srv, "run_shell_command", `{"paneId":"`+pane+`","command":"echo ran-by-agent"}`)
	if failed || !strings.Contains(text, "ran-by-agent") {
		t.Errorf("a run once synchronize-panes is off: %s", text)
	}
	if screen := tmx.Tmux("capture-pane", "-p", "-t", other); strings.Contains(screen, "ran-by-agent") {
		t.Errorf("the run typed into the other pane:\n%s", screen)
	}
}

// A command that left the terminal on the alternate screen returns no output from there:
// run_command's note and run_shell_command's text say why and how to get the screen back.
func TestRunLeftOnAlternateSaysSo(t *testing.T) {
	srv, _, pane := newTestServer(t, policy.Mutating)
	text, failed := callText(t, srv, "run_command", `{"pane_id":"`+pane+`","command":"tput smcup; echo drawn"}`)
	if failed || !strings.Contains(text, `"note":"the command left the terminal on the alternate screen`) || !strings.Contains(text, "tput rmcup") {
		t.Errorf("run_command: %s", text)
	}
	text, failed = callText(t, srv, "run_shell_command", `{"paneId":"`+pane+`","command":"echo next"}`)
	if failed || strings.Contains(text, "alternate") {
		t.Errorf("a run that does not switch screens: %s", text)
	}
	text, failed = callText(t, srv, "run_shell_command", `{"paneId":"`+pane+`","command":"printf '\\033[?1049h'; echo drawn"}`)
	if failed || !strings.Contains(text, "[exit 0]\n[the command left the terminal on the alternate screen") {
		t.Errorf("run_shell_command: %s", text)
	}
}

// Keys whose text ends in a line break, with enter (the default), press Enter once: a second
// would answer a program's next question with its default.
func TestSendKeysTrailingNewline(t *testing.T) {
	srv, tmx, pane := newTestServer(t, policy.Mutating)
	tmx.Tmux("respawn-pane", "-k", "-t", pane, `bash -c 'echo ready; while IFS= read -r l; do echo "got[$l]"; done'`)
	tmx.WaitFor(pane, func(s string) bool { return strings.Contains(s, "ready") })
	text, failed := callText(t, srv, "send_keys", `{"pane_id":"`+pane+`","keys":"y\n"}`)
	if failed || !strings.Contains(text, `text \"y\" + Enter`) {
		t.Fatalf("send_keys y\\n: %s", text)
	}
	// A control character typed as its byte is a key: no Enter after it (a tab completes, an
	// ETX interrupts).
	if text, failed := callText(t, srv, "send_keys", `{"pane_id":"`+pane+`","keys":"x\t"}`); failed || strings.Contains(text, "+ Enter") {
		t.Fatalf("send_keys x\\t: %s", text)
	}
	if text, failed := callText(t, srv, "send_keys", `{"pane_id":"`+pane+`","keys":"z"}`); failed {
		t.Fatal(text)
	}
	screen := tmx.WaitFor(pane, func(s string) bool { return strings.Contains(s, "z]") })
	if !strings.Contains(screen, "got[y]") || strings.Contains(screen, "got[]") || !regexp.MustCompile(`got\[x\s*z\]`).MatchString(screen) {
		t.Fatalf("y\\n with Enter was not one line:\n%s", screen)
	}
}

// Input right after a wait saw a run's last output (the run ends a moment later: its end
// marker, the prompt) waits for that end rather than being refused as busy: send_keys, and a
// new run.
func TestInputRightAfterRunsOutput(t *testing.T) {
	srv, _, pane := newTestServer(t, policy.Mutating)
	for _, next := range []struct{ tool, args string }{
		{"send_keys", `{"pane_id":"` + pane + `","keys":"echo next"}`},
		{"run_shell_command", `{"paneId":"` + pane + `","command":"echo next"}`},
	} {
		// The command's text does not hold the word waited for (fin''ished).
		if text, failed := callText(t, srv, "run_shell_command", `{"paneId":"`+pane+`","command":"sleep 0.3; echo fin''ished; sleep 0.1","timeoutMs":1}`); failed {
			t.Fatal(text)
		}
		if text, failed := callText(t, srv, "wait_for_text", `{"pane_id":"`+pane+`","patterns":["finished"],"timeout":30}`); failed || !strings.Contains(text, `"found":true`) {
			t.Fatalf("wait_for_text: %s", text)
		}
		if text, failed := callText(t, srv, next.tool, next.args); failed {
			t.Errorf("%s right after the run's last output: %s", next.tool, text)
		}
		callText(t, srv, "wait_for_run", `{"pane_id":"`+pane+`","timeout":30}`)
	}
}

// A run into a pane whose foreground program holds a shell elsewhere (ssh, docker exec) is
// told how to reach that shell, not only to drive the program.
func TestRunIntoRemoteShellPane(t *testing.T) {
	srv, tmx, pane := newTestServer(t, policy.Mutating)
	ssh := filepath.Join(t.TempDir(), "ssh") // a stand-in named ssh: cat, which waits for input
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat")
	}
	if err := os.Symlink(cat, ssh); err != nil {
		t.Fatal(err)
	}
	tmx.Tmux("respawn-pane", "-k", "-t", pane, ssh)
	tmx.WaitFor(pane, func(string) bool {
		return strings.TrimSpace(tmx.Tmux("display-message", "-p", "-t", pane, "#{pane_current_command}")) == "ssh"
	})
	text, failed := callText(t, srv, "run_shell_command", `{"paneId":"`+pane+`","command":"true"}`)
	if !failed || !strings.Contains(text, `running "ssh"`) || !strings.Contains(text, "LIBTMUX_MCP_HOSTS") {
		t.Fatalf("run into an ssh pane: %s", text)
	}
}

// resize_pane of a window's only pane, which tmux leaves as it is while answering success,
// says so and names resize_window.
func TestResizeLonePane(t *testing.T) {
	srv, _, pane := newTestServer(t, policy.Mutating)
	text, failed := callText(t, srv, "resize_pane", `{"pane_id":"`+pane+`","height":10}`)
	if !failed || !strings.Contains(text, "only pane of its window") || !strings.Contains(text, "resize_window") {
		t.Fatalf("resize_pane of a lone pane: %s", text)
	}
	if text, failed := callText(t, srv, "resize_pane", `{"pane_id":"`+pane+`","zoom":false}`); failed {
		t.Errorf("zoom of a lone pane: %s", text)
	}
}

// A run of cd (or export, source, an environment's activation) alone changes only its own
// subshell: models run it on its own and expect the next call to start there. The result says
// so, and how to make it count; a run that uses the change in the same call says nothing.
func TestRunStateOnlySaysSo(t *testing.T) {
	srv, _, pane := newTestServer(t, policy.Mutating)
	text, failed := callText(t, srv, "run_shell_command", `{"paneId":"`+pane+`","command":"cd /tmp"}`)
	if failed || !strings.Contains(text, "[exit 0]\n[cd changed only this run's subshell") || !strings.Contains(text, "cd /path && make") {
		t.Errorf("run_shell_command cd: %s", text)
	}
	text, failed = callText(t, srv, "run_command", `{"pane_id":"`+pane+`","command":"export A=1; cd /"}`)
	if failed || !strings.Contains(text, `"note":"export, cd changed only this run's subshell`) || !strings.Contains(text, "make them last") {
		t.Errorf("run_command export; cd: %s", text)
	}
	for _, cmd := range []string{"cd /tmp && pwd", "cd /nonexistent-dir"} {
		text, _ = callText(t, srv, "run_shell_command", `{"paneId":"`+pane+`","command":"`+cmd+`"}`)
		if strings.Contains(text, "subshell") {
			t.Errorf("run_shell_command %q: %s", cmd, text)
		}
	}
}

// A run whose wrapper was killed in a shell that cannot report the status itself (dash)
// returns once the shell is back at its prompt, completed with its status lost, saying so,
// not at its timeout as a command waiting for keys.
func TestRunStatusLostSaysSo(t *testing.T) {
	srv, tmx, pane := newTestServer(t, policy.Mutating)
	tmx.Tmux("respawn-pane", "-k", "-t", pane, "env PS1='$ ' dash -i")
	text, failed := callText(t, srv, "run_shell_command", `{"paneId":"`+pane+`","timeoutMs":60000,"command":"echo before; sh -c 'kill -9 $PPID'; :"}`)
	if failed || !strings.Contains(text, "before") || !strings.Contains(text, "its exit status is lost") || strings.Contains(text, "[exit") ||
		strings.Contains(text, "still running") {
		t.Errorf("run_shell_command: %s", text)
	}
	text, failed = callText(t, srv, "wait_for_run", `{"pane_id":"`+pane+`"}`)
	if failed || !strings.Contains(text, `"outcome":"completed"`) || !strings.Contains(text, `"exit_status":null`) || !strings.Contains(text, "status is lost") {
		t.Errorf("wait_for_run: %s", text)
	}
}
