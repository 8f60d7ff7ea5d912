package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/asciicast"
)

type recStarted struct {
	PaneID     string `json:"pane_id"`
	OutputPath string `json:"output_path"`
	Width      int    `json:"width"`
	Height     int    `json:"height"`
	Title      string `json:"title"`
	MaxBytes   int64  `json:"max_bytes"`
	Watch      string `json:"watch"`
}

type recSummary struct {
	PaneID          string  `json:"pane_id"`
	OutputPath      string  `json:"output_path"`
	Running         bool    `json:"running"`
	Ended           string  `json:"ended"`
	LimitReached    bool    `json:"limit_reached"`
	DurationSeconds float64 `json:"duration_seconds"`
	Bytes           int64   `json:"bytes"`
	Events          int     `json:"events"`
	OutputEvents    int     `json:"output_events"`
	ResizeEvents    int     `json:"resize_events"`
	MarkerEvents    int     `json:"marker_events"`
	Play            string  `json:"play"`
}

// asciinemaCat prints a recording with the real asciinema (Debian's), which reads the
// controlling terminal: script(1) gives it one.
func asciinemaCat(t *testing.T, path string) string {
	t.Helper()
	if _, err := exec.LookPath("asciinema"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("asciinema is not installed: .ci/run installs it")
		}
		t.Skip("asciinema is not installed (apt-get install asciinema)")
	}
	out := path + ".out"
	cmd := exec.Command("script", "-q", "-e", "-c", "asciinema cat "+path+" > "+out, "/dev/null")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("asciinema cat %s: %v\n%s", path, err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readCastFile(t *testing.T, path string) (asciicast.Header, []asciicast.Event) {
	t.Helper()
	h, evs, err := asciicast.ReadFile(path)
	if err != nil {
		t.Fatalf("%s is not a valid asciicast v2 file: %v", path, err)
	}
	return h, evs
}

func TestRecordScriptedSession(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := start(t, "LIBTMUX_MCP_PIPE_ROOT="+root)
	_, p := c.Tmx.NewSession("rec")
	// tmux's own log of every byte the pane receives, to compare the recording with.
	pipeLog := filepath.Join(root, "pipe.log")
	c.Tmx.Tmux("pipe-pane", "-t", p, "cat >> "+pipeLog)
	cast := filepath.Join(root, "session.cast")
	var st recStarted
	res := c.Call("start_recording", map[string]any{"output_path": cast, "pane_id": p})
	if res.IsError {
		t.Fatal(text(res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &st)
	if st.OutputPath != cast || st.PaneID != p || st.Width != 80 || st.Height != 24 || st.Title != "bash" || st.Watch != "asciinema play '"+cast+"'" || !strings.Contains(text(res), "asciinema play") {
		t.Errorf("start: %+v; %s", st, text(res))
	}

	playScript(t, c, p, pipeLog, cast)

	var sum recSummary
	c.OK("stop_recording", map[string]any{"output_path": cast}, &sum)
	fi, err := os.Stat(cast)
	if err != nil {
		t.Fatal(err)
	}
	if sum.OutputPath != cast || sum.Running || sum.Ended != "stopped" || sum.Bytes != fi.Size() || sum.DurationSeconds <= 0 || sum.ResizeEvents != 1 || sum.MarkerEvents != 3 || sum.Play == "" {
		t.Errorf("stop: %+v (file %d bytes)", sum, fi.Size())
	}

	checkCast(t, cast, pipeLog, sum)
	// Stopping again returns the same summary.
	var again recSummary
	c.OK("stop_recording", map[string]any{"pane_id": p}, &again)
	if again.Bytes != sum.Bytes || again.Ended != "stopped" {
		t.Errorf("second stop: %+v", again)
	}
}

// playScript types the scripted session into pane p: colours, a CR progress bar, a resize, a
// run_shell_command, and waits until the pipe log and the recording hold its end.
func playScript(t *testing.T, c *Client, p, pipeLog, cast string) {
	t.Helper()
	send := func(keys, want string) {
		t.Helper()
		c.OK("send_keys", map[string]any{"pane_id": p, "keys": keys}, nil)
		c.Tmx.WaitFor(p, func(s string) bool { return strings.Contains(s, want) })
	}
	send(`printf '\033[31mred\033[0m \033[1mbold\033[0m \033[38;5;208m256\033[0m\n'`, "red bold 256\n")
	send(`for i in 1 2 3 4; do printf '\rprogress %d%%' $((i*25)); sleep 0.05; done; echo`, "progress 100%\n")
	c.OK("resize_window", map[string]any{"window_id": c.fmt(p, "#{window_id}"), "width": 100, "height": 30}, nil)
	var run struct {
		ExitStatus *int   `json:"exitStatus"`
		Output     string `json:"output"`
	}
	c.OK("run_shell_command", map[string]any{"paneId": p, "command": "echo from-run; exit 3"}, &run)
	if run.ExitStatus == nil || *run.ExitStatus != 3 || run.Output != "from-run" {
		t.Errorf("run_shell_command: %+v", run)
	}
	send("echo the-end", "the-end\n$")
	// Both hold the prompt after the-end (bash may wrap it in bracketed-paste switches).
	waitFor(t, func() bool { b, _ := os.ReadFile(pipeLog); return promptAfterEnd(string(b)) })
	waitFor(t, func() bool {
		_, evs, _ := asciicast.ReadFile(cast)
		return promptAfterEnd(asciicast.OutputText(evs))
	})

}

// checkCast reads the recording line by line as asciicast v2 and checks it against what the
// pane received (pipeLog) and what the real asciinema prints.
func checkCast(t *testing.T, cast, pipeLog string, sum recSummary) {
	t.Helper()
	// Line by line, asciicast v2: the header, then the events in order.
	h, evs := readCastFile(t, cast)
	if h.Version != 2 || h.Width != 80 || h.Height != 24 || h.Title != "bash" || h.Timestamp == 0 || len(evs) != sum.Events {
		t.Errorf("header %+v, %d events (summary %d)", h, len(evs), sum.Events)
	}
	var labels []string
	var sizes []string
	var received strings.Builder // the output after the first frame
	for i, e := range evs {
		switch e.Code {
		case "m":
			labels = append(labels, e.Data)
		case "r":
			sizes = append(sizes, e.Data)
		case "o":
			if i > 0 {
				received.WriteString(e.Data)
			}
		}
	}
	want := []string{"run_shell_command began: echo from-run; exit 3", "run_shell_command ended: exit 3", "recording ended: stopped"}
	if strings.Join(labels, "|") != strings.Join(want, "|") || strings.Join(sizes, "|") != "100x30" {
		t.Errorf("markers %q, resizes %q", labels, sizes)
	}
	log, err := os.ReadFile(pipeLog)
	if err != nil {
		t.Fatal(err)
	}
	// What the pane received, but the wrapper line the run typed (then redrew as the command)
	// blanked: a cast holds what a person's screen kept.
	shown := blankTyped(string(log))
	if received.String() != shown {
		t.Errorf("the recording's output differs from what the pane received (wrapper blanked):\nrecorded %q\nreceived %q", received.String(), shown)
	}
	for _, s := range []string{"\x1b[31mred", "\rprogress 50%\rprogress 75%", "from-run"} {
		if !strings.Contains(received.String(), s) {
			t.Errorf("the recording lacks %q", s)
		}
	}
	// The real asciinema prints the same output: the first frame, then what the pane received.
	if got := asciinemaCat(t, cast); got != evs[0].Data+shown {
		t.Errorf("asciinema cat printed %q,\nwant the first frame and %q", got, log)
	}
}

// blankTyped blanks in s, as a recording does, the wrapper line a run typed, from its first
// key up to the erase of its redraw: printable characters become spaces, control characters
// and escape sequences stay.
func blankTyped(s string) string {
	from := strings.Index(s, "A\b\x1b[K { ")
	if from < 0 {
		return s
	}
	n := strings.Index(s[from:], "\x1b[J")
	if n < 0 {
		return s
	}
	b := []byte(s)
	inEsc := false
	for i := from; i < from+n+3; i++ {
		c := b[i]
		switch {
		case c == 0x1b:
			inEsc = true
		case inEsc:
			inEsc = c == '[' || c == '?' || c >= '0' && c <= '9' || c == ';'
		case c >= 0x20 && c < 0x7f:
			b[i] = ' '
		}
	}
	return string(b)
}

func promptAfterEnd(s string) bool {
	i := strings.Index(s, "the-end\r\n")
	return i >= 0 && strings.HasSuffix(s[i:], "$ ")
}

// waitFor waits until cond holds, at most 10 s (tests only: the recorder never polls).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRecordPaneKilled(t *testing.T) {
	c := destructive(t)
	_, p0 := c.Tmx.NewSession("rec")
	p := c.Tmx.SplitWindow(p0)
	cast := filepath.Join(t.TempDir(), "killed.cast")
	c.OK("start_recording", map[string]any{"output_path": cast, "pane_id": p}, nil)
	c.OK("send_keys", map[string]any{"pane_id": p, "keys": "yes | head -c 300000"}, nil)
	c.OK("kill_pane", map[string]any{"pane_id": p}, nil)
	var list struct{ Recordings []recSummary }
	waitFor(t, func() bool {
		c.OK("list_recordings", nil, &list)
		return len(list.Recordings) == 1 && !list.Recordings[0].Running
	})
	if r := list.Recordings[0]; r.Ended != "pane exited" || r.OutputPath != cast {
		t.Errorf("ended recording %+v", r)
	}
	_, evs := readCastFile(t, cast)
	if last := evs[len(evs)-1]; last.Data != "recording ended: pane exited" {
		t.Errorf("last event %+v", last)
	}
	asciinemaCat(t, cast) // plays to the end
	var sum recSummary
	c.OK("stop_recording", map[string]any{"output_path": cast}, &sum)
	if sum.Ended != "pane exited" || sum.Events != len(evs) {
		t.Errorf("stop after the end: %+v", sum)
	}
}

func TestRecordPaths(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	c := start(t, "LIBTMUX_MCP_PIPE_ROOT="+root)
	_, p := c.Tmx.NewSession("rec")
	wantErr(t, c, "start_recording", map[string]any{"output_path": "rel.cast", "pane_id": p}, "relative")
	wantErr(t, c, "start_recording", map[string]any{"output_path": filepath.Join(outside, "x.cast"), "pane_id": p}, "outside LIBTMUX_MCP_PIPE_ROOT")
	wantErr(t, c, "start_recording", map[string]any{"output_path": filepath.Join(root, "link", "x.cast"), "pane_id": p}, "outside LIBTMUX_MCP_PIPE_ROOT")
	wantErr(t, c, "start_recording", map[string]any{"output_path": filepath.Join(root, "no", "x.cast"), "pane_id": p}, "does not exist")
	os.Mkdir(filepath.Join(root, "dir"), 0o700)
	wantErr(t, c, "start_recording", map[string]any{"output_path": filepath.Join(root, "dir"), "pane_id": p}, "is a directory")
	wantErr(t, c, "start_recording", map[string]any{"output_path": filepath.Join(root, "x.cast"), "pane_id": "%9999"}, "no pane has id")
	wantErr(t, c, "start_recording", map[string]any{"output_path": filepath.Join(root, "x.cast"), "pane_id": p, "max_bytes": 10}, "max_bytes")
	existing := filepath.Join(root, "old.cast")
	os.WriteFile(existing, []byte("keep me"), 0o600)
	wantErr(t, c, "start_recording", map[string]any{"output_path": existing, "pane_id": p}, "exists")
	if b, _ := os.ReadFile(existing); string(b) != "keep me" {
		t.Errorf("a refused start changed the file: %q", b)
	}
	c.OK("start_recording", map[string]any{"output_path": existing, "pane_id": p, "overwrite": true}, nil)
	wantErr(t, c, "start_recording", map[string]any{"output_path": filepath.Join(root, "y.cast"), "pane_id": p}, "being recorded already")
	wantErr(t, c, "stop_recording", map[string]any{}, "output_path or pane_id")
	wantErr(t, c, "stop_recording", map[string]any{"output_path": filepath.Join(root, "none.cast")}, "no recording")
	var sum recSummary
	c.OK("stop_recording", map[string]any{"output_path": existing}, &sum)
	readCastFile(t, existing)
}
