package e2e

// An agent's ordinary day, each trap driven through the built binary as an agent
// would meet it.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// TestVimQuitWithKeysAndText: "Escape :q! Enter" quits vim (keys and text mixed as tmux's
// send-keys reads them), key names alone get no Enter, and ordinary text that holds a key word
// is typed as it is.
func TestVimQuitWithKeysAndText(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	file := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(file, []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "vim -u NONE -N " + file}, nil)
	screenHas(c, pane, "original")
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "i", "enter": false}, nil)
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "damage", "enter": false}, nil)
	screenHas(c, pane, "damageoriginal")
	var r sendResult
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "Escape :q! Enter", "enter": false}, &r)
	if r.Sent != `keys Escape + text ":q!" + keys Enter` {
		t.Errorf("sent = %q", r.Sent)
	}
	c.Tmx.WaitFor(pane, func(string) bool {
		return c.Tmx.Tmux("display-message", "-p", "-t", pane, "#{pane_current_command}") == "bash"
	})
	if b, _ := os.ReadFile(file); string(b) != "original\n" {
		t.Errorf("the file was changed: %q", b)
	}

	// A key name alone: no Enter after it (the default enter=true is for text).
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "clear"}, nil)
	// Once clear has run: keys typed while it runs are in the terminal's queue, which the C-c
	// below flushes, and bash then drew its prompt after the ^C and lost the next key.
	c.Tmx.WaitFor(pane, func(s string) bool { return strings.TrimSpace(s) == "$" })
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "echo one", "enter": false}, nil)
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "Escape"}, &r)
	if r.Sent != "keys Escape" {
		t.Errorf("Escape sent %q", r.Sent)
	}
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "C-c"}, &r)
	if r.Sent != "keys C-c" {
		t.Errorf("C-c sent %q", r.Sent)
	}
	// Text with key words is text, followed by Enter; one character is text too.
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "echo Up to date"}, &r)
	if r.Sent != `text "echo Up to date" + Enter` {
		t.Errorf("sent %q", r.Sent)
	}
	screenHas(c, pane, "\nUp to date")
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "read -p 'Proceed? ' x; echo \"got=$x\""}, nil)
	screenHas(c, pane, "Proceed? ")
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "y"}, &r)
	if r.Sent != `text "y" + Enter` {
		t.Errorf("y sent %q", r.Sent)
	}
	screenHas(c, pane, "got=y")
	// literal=true types key names as text.
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "echo Escape", "literal": true}, nil)
	screenHas(c, pane, "\nEscape")
	// A look-alike among keys and text is refused with the tmux spelling.
	if msg := c.Fail("send_keys", map[string]any{"pane_id": pane, "keys": "Esc :wq Enter"}); !strings.Contains(msg, "Escape") {
		t.Errorf("look-alike refusal: %s", msg)
	}
}

// TestResultTextNotHTMLEscaped: the text half of a result keeps <, > and & as they are.
func TestResultTextNotHTMLEscaped(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	res := c.Call("run_command", map[string]any{"pane_id": pane, "command": `echo '<a href="x">&amp;</a>' 2>&1`})
	if res.IsError {
		t.Fatal(text(res))
	}
	got := text(res)
	if strings.Contains(got, `\u003c`) || strings.Contains(got, `\u0026`) || !strings.Contains(got, `<a href=\"x\">&amp;</a>`) {
		t.Errorf("text = %s", got)
	}
}

type startedWait struct {
	waitResult
	StartedFrom string `json:"started_from"`
}

// TestWaitStartsAtLastInput: a wait without a cursor sees what the pane printed between the
// send_keys and the wait (python's answer and its next prompt), says where it started, and a
// second wait does not match the same output again; an explicit cursor still wins.
func TestWaitStartsAtLastInput(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "python3 -q"}, nil)
	var w startedWait
	c.OK("wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{">>> "}, "timeout": 20}, &w)
	if !w.Found || w.StartedFrom != "last_input" {
		t.Fatalf("python's prompt: %+v", w)
	}
	var sent struct {
		Cursor string `json:"cursor"`
	}
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "print(sum(range(101)))"}, &sent)
	screenHas(c, pane, "5050\n>>>") // the answer and the prompt are printed before the wait
	c.OK("wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{">>> "}, "timeout": 10}, &w)
	if !w.Found || w.StartedFrom != "last_input" || !strings.Contains(strings.Join(w.Tail, "\n"), "5050") {
		t.Errorf("wait after the answer: %+v", w)
	}
	// The next wait starts where that one ended: the same prompt is not matched again.
	c.OK("wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{"5050"}, "timeout": 0.5}, &w)
	if w.Found || w.StartedFrom != "last_wait" {
		t.Errorf("second wait: %+v", w)
	}
	// An explicit cursor wins: the one from before the input sees the answer again.
	c.OK("wait_for_text", map[string]any{"cursor": sent.Cursor, "patterns": []string{"5050"}, "timeout": 10}, &w)
	if !w.Found || w.StartedFrom != "cursor" {
		t.Errorf("wait with the send's cursor: %+v", w)
	}
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "exit()"}, nil)
}

// TestWaitOnVimShowsScreenRows: a wait on a pane in vim shows the screen's rows, not the raw
// output's cursor motion.
func TestWaitOnVimShowsScreenRows(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("first line\nsecond line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "vim -u NONE -N " + file}, nil)
	var w startedWait
	c.OK("wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{"second line"}, "timeout": 20}, &w)
	if !w.Found {
		t.Fatalf("vim's text: %+v", w)
	}
	screenHas(c, pane, "notes.txt")
	c.OK("wait_for_text", map[string]any{"pane_id": pane, "timeout": 0.3}, &w)
	tail := strings.Join(w.Tail, "\n")
	if !strings.Contains(tail, "first line\nsecond line") || strings.Contains(tail, "\uFFFD") || strings.Contains(tail, "~") {
		t.Errorf("tail on the alternate screen: %q", w.Tail)
	}
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "Escape :q! Enter"}, nil)
}

// TestSearchFindsScrollback: search_panes reads the scrollback by default, and each match's
// line number is capture_pane's own: start and end at it return that line.
func TestSearchFindsScrollback(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "echo needle-$((40+2)); seq 1 50"}, nil)
	screenHas(c, pane, "\n50\n")
	var out struct {
		Matches []struct {
			PaneID       string   `json:"pane_id"`
			MatchedLines []string `json:"matched_lines"`
			LineNumbers  []int    `json:"line_numbers"`
		} `json:"matches"`
	}
	c.OK("search_panes", map[string]any{"pattern": "needle-42"}, &out)
	if len(out.Matches) != 1 || len(out.Matches[0].LineNumbers) != 1 || out.Matches[0].MatchedLines[0] != "needle-42" {
		t.Fatalf("search: %+v", out)
	}
	n := out.Matches[0].LineNumbers[0]
	if n >= 0 {
		t.Errorf("needle-42 is in the scrollback, got line %d", n)
	}
	var cap struct {
		Lines []string `json:"lines"`
	}
	res := c.Call("capture_pane", map[string]any{"pane_id": pane, "start": n, "end": n})
	if res.IsError {
		t.Fatal(text(res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &cap)
	if !strings.Contains(string(b), "needle-42") {
		t.Errorf("capture_pane start=end=%d: %s", n, b)
	}
}

// TestAnswerKeepsLineStructure: the echo of an answer is left out of a run's output, and the
// line break after it stays: the prompt and the next line stay two lines.
func TestAnswerKeepsLineStructure(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	out := c.run(pane, `read -p 'Proceed? ' x; echo "got $x"`, "timeoutMs", 500)
	if out.Outcome != "timed_out" {
		t.Fatalf("%+v", out)
	}
	c.OK("send_keys", map[string]any{"pane_id": pane, "keys": "y", "to_running_command": true}, nil)
	var w waitRunOut
	c.OK("wait_for_run", map[string]any{"pane_id": pane, "timeout": 10}, &w)
	if len(w.Output) != 2 || strings.TrimRight(w.Output[0], " ") != "Proceed?" || w.Output[1] != "got y" {
		t.Fatalf("output %q, want [\"Proceed? \", \"got y\"]", w.Output)
	}
}

// TestUnknownArgumentSuggests: every tool names the argument an unknown one most likely meant.
func TestUnknownArgumentSuggests(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"run_shell_command", map[string]any{"pane_id": pane, "command": "true"}, `did you mean "paneId"?`},
		{"send_keys", map[string]any{"paneId": pane, "keys": "true"}, `did you mean "pane_id"?`},
		{"wait_for_text", map[string]any{"pane_id": pane, "pattern": "x"}, `did you mean "patterns"?`},
		{"capture_pane", map[string]any{"pane_id": pane, "maxLines": 3}, `did you mean "max_lines"?`},
	} {
		if msg := c.Fail(tc.tool, tc.args); !strings.Contains(msg, tc.want) {
			t.Errorf("%s(%v): %s", tc.tool, tc.args, msg)
		}
	}
}

// TestKillWhatItCreated: at the default tier an agent removes the sessions, windows and panes
// it created, also after a restart of the server (the mark lives in tmux), and nothing else;
// at destructive anything.
func TestKillWhatItCreated(t *testing.T) {
	tmx := testtmux.New(t)
	c := startOn(t, tmx)
	_, theirs := tmx.NewSession("theirs")
	var s struct {
		SessionID    string `json:"session_id"`
		ActivePaneID string `json:"active_pane_id"`
	}
	c.OK("create_session", map[string]any{"session_name": "mine"}, &s)
	var w struct {
		WindowID string `json:"window_id"`
	}
	c.OK("create_window", map[string]any{"session_name": "mine"}, &w)
	var p struct {
		PaneID string `json:"pane_id"`
	}
	c.OK("split_window", map[string]any{"pane_id": s.ActivePaneID}, &p)

	// Another server process, as after a client restart.
	c2 := startOn(t, tmx)
	if msg := c2.Fail("kill_pane", map[string]any{"pane_id": theirs}); !strings.Contains(msg, "not created by this server") || !strings.Contains(msg, "LIBTMUX_SAFETY=destructive") {
		t.Errorf("killing a pane it did not create: %s", msg)
	}
	if msg := c2.Fail("kill_session", map[string]any{"session_name": "theirs"}); !strings.Contains(msg, "not created by this server") {
		t.Errorf("killing a session it did not create: %s", msg)
	}
	c2.OK("kill_pane", map[string]any{"pane_id": p.PaneID}, nil)
	c2.OK("kill_window", map[string]any{"window_id": w.WindowID}, nil)
	c.OK("create_session", map[string]any{"session_name": "mine2"}, nil)
	c2.OK("kill_session", map[string]any{"session_name": "mine2"}, nil)
	// A pane a person split into the server's session makes it theirs too.
	tmx.Tmux("split-window", "-d", "-t", s.ActivePaneID)
	if msg := c2.Fail("kill_session", map[string]any{"session_name": "mine"}); !strings.Contains(msg, "did not create") {
		t.Errorf("a session holding a person's pane: %s", msg)
	}
	d := startOn(t, tmx, "LIBTMUX_SAFETY=destructive")
	d.OK("kill_session", map[string]any{"session_name": "mine"}, nil)
	if out := tmx.Tmux("list-sessions", "-F", "#{session_name}"); strings.TrimSpace(out) != "theirs" {
		t.Errorf("sessions left: %q", out)
	}
}

// TestStopRecordingByPathAndPane: stop_recording with both output_path and pane_id naming the
// same recording stops it; naming two different ones is refused.
func TestStopRecordingByPathAndPane(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	_, other := c.Tmx.NewSession("o")
	path := filepath.Join(t.TempDir(), "a.cast")
	c.OK("start_recording", map[string]any{"pane_id": pane, "output_path": path}, nil)
	if msg := c.Fail("stop_recording", map[string]any{"pane_id": other, "output_path": path}); !strings.Contains(msg, "no recording") {
		t.Errorf("path and pane of different recordings: %s", msg)
	}
	var sum recSummary
	c.OK("stop_recording", map[string]any{"pane_id": pane, "output_path": path}, &sum)
	if sum.OutputPath != path || sum.Running {
		t.Errorf("stop_recording = %+v", sum)
	}
}

// TestCLIToolsAndCall: the built binary's tools NAME prints a tool's arguments, call prints a
// result once, and a misspelt tool name gets the closest one.
func TestCLIToolsAndCall(t *testing.T) {
	tmx := testtmux.New(t)
	tmx.NewSession("s")
	run := func(args ...string) (string, string, error) {
		cmd := exec.Command(binary, args...)
		cmd.Env = append(append([]string{}, tmx.Env...), "LIBTMUX_SOCKET_PATH="+tmx.Socket)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		return out.String(), errb.String(), err
	}
	out, _, err := run("tools", "wait_for_text")
	if err != nil || !strings.Contains(out, "patterns (array") || !strings.Contains(out, "timeout (number, default 8)") {
		t.Errorf("tools wait_for_text: %v\n%s", err, out)
	}
	out, _, err = run("call", "list_sessions")
	if err != nil || strings.Count(out, `"session_name": "s"`) != 1 || strings.Contains(out, "structuredContent") {
		t.Errorf("call list_sessions: %v\n%s", err, out)
	}
	if _, errs, err := run("call", "list_sesions"); err == nil || !strings.Contains(errs, `did you mean "list_sessions"`) {
		t.Errorf("call list_sesions: %v %s", err, errs)
	}
}

// adoptCase is one shell of the restart tests, with the process table or without it (noProc:
// macOS without /proc).
type adoptCase struct {
	name string
	argv []string
	env  []string
}

// adoptCases are the shells of the restart tests, each with and without the process table.
// bash and mksh run the wrapper in a subshell of their own group, fish its child fish in the
// shell's own group; without the table tmux names the shell in both. dash edits no line:
// without the table its prompt and a run look alike, so it has only the table's case.
func adoptCases(t *testing.T) []adoptCase {
	var out []adoptCase
	for _, shell := range []string{"bash", "zsh", "mksh", "ksh", "fish", "ash", "dash"} {
		argv := testtmux.Config(shell, "clean").Argv
		if _, err := exec.LookPath(argv[0]); err != nil {
			t.Logf("%s not installed", argv[0])
			continue
		}
		out = append(out, adoptCase{shell, argv, nil})
		if shell != "dash" {
			out = append(out, adoptCase{shell + "-noproc", argv, []string{noProc}})
		}
	}
	return out
}

// TestRunOutlivesItsServer: a run that timed out, then the client restarted the server: the
// next server process refuses a new run there at once as busy, naming wait_for_run, and
// wait_for_run waits for the old run and returns its exit status and output.
func TestRunOutlivesItsServer(t *testing.T) {
	for _, sc := range adoptCases(t) {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			runOutlivesItsServer(t, sc)
		})
	}
}

func runOutlivesItsServer(t *testing.T, sc adoptCase) {
	tmx := testtmux.New(t)
	_, pane := tmx.NewSession("s", sc.argv...)
	a := startOn(t, tmx, sc.env...)
	out := a.run(pane, "sleep 6; echo fin; exit 7", "timeoutMs", 1000)
	if out.Outcome != "timed_out" {
		t.Fatalf("first run: %+v", out)
	}
	a.CS.Close() // the client restarts the server
	b := startOn(t, tmx, sc.env...)
	if msg := b.Fail("run_shell_command", map[string]any{"paneId": pane, "command": "echo next"}); !strings.Contains(msg, "busy") || !strings.Contains(msg, "wait_for_run") {
		t.Errorf("a new run beside the old one: %s", msg)
	}
	var w waitRunOut
	b.OK("wait_for_run", map[string]any{"pane_id": pane, "timeout": 30}, &w)
	if w.Outcome != "completed" || w.ExitStatus == nil || *w.ExitStatus != 7 || strings.Join(w.Output, "\n") != "fin" {
		t.Fatalf("wait_for_run in the next server: %+v", w)
	}
	if !strings.Contains(w.Note, "earlier tmux-mcp process") {
		t.Errorf("wait_for_run of an earlier process's run: no note says its output before is missing: %+v", w)
	}
	// The pane is free again.
	if out := b.run(pane, "echo next"); out.Outcome != "completed" || out.Output != "next" {
		t.Errorf("the next run: %+v", out)
	}
}

// TestRunEndedWhileNoServerWatched: a run of an earlier server process that ended before the
// next one started is reported as such (its status is lost), and the pane is free.
func TestRunEndedWhileNoServerWatched(t *testing.T) {
	for _, sc := range adoptCases(t) {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			runEndedWhileNoServerWatched(t, sc)
		})
	}
}

func runEndedWhileNoServerWatched(t *testing.T, sc adoptCase) {
	tmx := testtmux.New(t)
	_, pane := tmx.NewSession("s", sc.argv...)
	a := startOn(t, tmx, sc.env...)
	dir := t.TempDir()
	gate, done := filepath.Join(dir, "gate"), filepath.Join(dir, "done")
	shell := tmx.Tmux("display-message", "-p", "-t", pane, "#{pane_current_command}")
	// The command ends only once the first server has exited (Close waits for its process):
	// a server still shutting down on a loaded machine would see the end itself.
	cmd := "sh -c 'while [ ! -e " + gate + " ]; do sleep 0.1; done'; touch " + done + "; exit 3"
	if out := a.run(pane, cmd, "timeoutMs", 300); out.Outcome != "timed_out" {
		t.Fatalf("first run: %+v", out)
	}
	a.CS.Close()
	os.WriteFile(gate, nil, 0o600)
	// Then until the wrapper is gone, its shell in the foreground again.
	deadline := time.Now().Add(20 * time.Second)
	for _, err := os.Stat(done); err != nil || tmx.Tmux("display-message", "-p", "-t", pane, "#{pane_current_command}") != shell; _, err = os.Stat(done) {
		if time.Now().After(deadline) {
			t.Fatal("the run did not end")
		}
		time.Sleep(50 * time.Millisecond)
	}
	b := startOn(t, tmx, sc.env...)
	if msg := b.Fail("wait_for_run", map[string]any{"pane_id": pane, "timeout": 5}); !strings.Contains(msg, "ended while no server watched") {
		t.Errorf("wait_for_run: %s", msg)
	}
	if out := b.run(pane, "echo free"); out.Outcome != "completed" || out.Output != "free" {
		t.Errorf("the next run: %+v", out)
	}
}

// TestRecordingHidesTypedWrapper: a cast of a pane holds the command as the run redrew it and
// its output, never the wrapper line the run typed (which a person's screen replaced).
func TestRecordingHidesTypedWrapper(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	path := filepath.Join(t.TempDir(), "run.cast")
	c.OK("start_recording", map[string]any{"pane_id": pane, "output_path": path}, nil)
	for i := 0; i < 3; i++ {
		if out := c.run(pane, "echo hi-$((40+2))"); out.Output != "hi-42" {
			t.Fatalf("run: %+v", out)
		}
	}
	c.OK("stop_recording", map[string]any{"output_path": path}, nil)
	_, evs := readCastFile(t, path)
	var all strings.Builder
	for _, e := range evs {
		if e.Code == "o" {
			all.WriteString(e.Data)
		}
	}
	cast := all.String()
	if !strings.Contains(cast, "echo hi-$((40+2))") || !strings.Contains(cast, "hi-42") {
		t.Errorf("the cast lacks the command or its output:\n%q", cast)
	}
	if strings.Contains(cast, `\. '`) || strings.Contains(cast, "tmux-mcp-") {
		t.Errorf("the cast holds the typed wrapper line:\n%q", cast)
	}
}
