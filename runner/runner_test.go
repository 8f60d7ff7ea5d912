package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/termstate"
	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// pane starts a private tmux server with one pane running shell and returns the engine handle
// and the pane as Check sees it.
func pane(t testing.TB, shell []string) (*tmux.Server, tmux.Pane, Request) {
	t.Helper()
	testtmux.RequireShell(t, shell)
	tmx := testtmux.New(t)
	_, id := tmx.NewSession("s", shell...)
	ts := tmux.NewServer(tmux.Config{SocketPath: tmx.Socket, Env: tmx.Env})
	t.Cleanup(ts.Close)
	snap, err := ts.Snapshot(context.Background(), tmux.WithPanes|tmux.WithClients)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Check(snap, id, Guard{})
	if err != nil {
		t.Fatal(err)
	}
	return ts, p, Request{Snapshot: snap, PaneID: id, Timeout: 10 * time.Second}
}

// keyOf is pane p's key on ts.
func keyOf(t testing.TB, ts *tmux.Server, p tmux.Pane) Key {
	t.Helper()
	id, err := ts.Identity(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return Key{Daemon: id, Pane: p.PaneID}
}

func TestRunScriptFiles(t *testing.T) {
	t.Parallel()
	ts, p, req := pane(t, testtmux.Bash)
	r := New()
	var dir string
	var mode os.FileMode
	r.beforeSend = func(path string) {
		dir = filepath.Dir(path)
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
		if strings.Contains(filepath.Base(path), "tmx") {
			t.Errorf("the script's name %q looks like a run id", path)
		}
	}
	req.Command = "echo hi; exit 3"
	res, err := r.Run(context.Background(), ts, req)
	_, held := r.Holder(keyOf(t, ts, p))
	if err != nil || res.Outcome != Completed || *res.ExitStatus != 3 || res.Output != "hi" || held {
		t.Fatalf("%+v %v held=%v", res, err, held)
	}
	if mode != 0o600 {
		t.Errorf("script mode %o, want 600", mode)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("script dir: %v %v", fi.Mode(), err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files left after the run: %v", ents)
	}
	r.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("script dir left after Close: %v", err)
	}
	if _, err := r.Run(context.Background(), ts, req); err == nil {
		t.Error("a closed runner ran")
	}
}

// TestRunScriptDirRemoved: a script directory removed between runs (a cleaner of old
// temporary files) is made again.
func TestRunScriptDirRemoved(t *testing.T) {
	t.Parallel()
	ts, _, req := pane(t, testtmux.Bash)
	r := New()
	defer r.Close()
	var dirs []string
	r.beforeSend = func(path string) { dirs = append(dirs, filepath.Dir(path)) }
	for i := range 2 {
		req.Command = "echo hi"
		if res, err := r.Run(context.Background(), ts, req); err != nil || res.Outcome != Completed || res.Output != "hi" {
			t.Fatalf("run %d: %+v %v", i, res, err)
		}
		if err := os.RemoveAll(dirs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if dirs[0] == dirs[1] {
		t.Errorf("the removed directory %s was used again", dirs[0])
	}
}

// TestRunInlineFallback: when the pane's shell cannot read the script (it runs elsewhere), the
// wrapper is typed inline once.
func TestRunInlineFallback(t *testing.T) {
	for _, sh := range []struct {
		name string
		argv []string
	}{{"bash", testtmux.Bash}, {"dash", testtmux.Dash}, {"zsh", testtmux.Zsh}, {"fish", testtmux.Fish}} {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			ts, _, req := pane(t, sh.argv)
			r := New()
			defer r.Close()
			r.beforeSend = func(path string) { os.Remove(path) } // as if on another machine
			req.Command = "echo 'inline ✓'; exit 5"
			res, err := r.Run(context.Background(), ts, req)
			if err != nil || res.Outcome != Completed || *res.ExitStatus != 5 || res.Output != "inline ✓" {
				t.Fatalf("%+v %v", res, err)
			}
		})
	}
}

// TestRunLostLine: a typed line the shell ran without starting the wrapper (a definition of
// the user's caught it) is noticed as soon as the shell is back at its prompt: the run fails
// with a *NotRun quoting the shell, and the pane is given back.
func TestRunLostLine(t *testing.T) {
	ts, p, req := pane(t, testtmux.Bash)
	r := New()
	defer r.Close()
	r.retype = func(string) string { return " echo caught" } // the wrapper never runs
	req.Command = "true"
	_, err := r.Run(context.Background(), ts, req)
	var nr *NotRun
	_, held := r.Holder(keyOf(t, ts, p))
	if !errors.As(err, &nr) || !strings.Contains(nr.Reason, "caught") || held {
		t.Fatalf("err %v held %v", err, held)
	}
}

func TestRunPreflight(t *testing.T) {
	t.Parallel()
	ts, p, _ := pane(t, testtmux.Bash)
	snap, err := ts.Snapshot(context.Background(), tmux.WithPanes|tmux.WithClients)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		pane string
		g    Guard
		want Reason
	}{
		{"%999", Guard{}, NoPane},
		{p.PaneID, Guard{CallerPane: p.PaneID}, Caller},
		{p.PaneID, Guard{CallerPane: p.PaneID, Force: true}, 0},
		{p.PaneID, Guard{Busy: func(string) (string, bool) { return "x", true }}, Busy},
		{p.PaneID, Guard{}, 0},
	}
	for _, tc := range cases {
		_, err := Check(snap, tc.pane, tc.g)
		var got Reason
		if r, ok := err.(*Refusal); ok {
			got = r.Reason
		}
		if got != tc.want {
			t.Errorf("%s %+v: %v, want reason %d", tc.pane, tc.g, err, tc.want)
		}
	}
}

// BenchmarkRunTrue measures a whole run of `true` in a bash pane (engine side: no MCP).
func BenchmarkRunTrue(b *testing.B) {
	ts, _, req := pane(b, testtmux.Bash)
	r := New()
	defer r.Close()
	req.Command = "true"
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		if res, err := r.Run(ctx, ts, req); err != nil || res.Outcome != Completed {
			b.Fatal(res, err)
		}
	}
}

// TestRunLostMarker: a command that kills its own wrapper (as one that replaced the wrapper's
// EXIT trap out of sight would lose it) ends without an end marker (but in bash and zsh, whose
// shell prints it after the subshell: with status 137); the pane is given back when the
// wrapper's process ends, not held until the pane or server goes, and the run is completed
// with its status lost, not pane_died.
func TestRunLostMarker(t *testing.T) {
	for _, sh := range [][]string{testtmux.Bash, testtmux.Dash, testtmux.Mksh, testtmux.Zsh} {
		t.Run(sh[0], func(t *testing.T) {
			t.Parallel()
			ts, p, req := pane(t, sh)
			r := New()
			defer r.Close()
			// "; :" keeps sh from being the subshell's last command, which a shell may exec in
			// place of the subshell: $PPID must be the wrapper's subshell.
			req.Command, req.Timeout = "sleep 1; sh -c 'kill -9 $PPID'; :", 300*time.Millisecond
			start := time.Now()
			res, err := r.Run(context.Background(), ts, req)
			if err != nil || res.Outcome != TimedOut || !res.StillRunning {
				t.Fatalf("%+v %v", res, err)
			}
			rec := r.Last(keyOf(t, ts, p))
			select {
			case <-rec.Done():
				if d := time.Since(start); d < 900*time.Millisecond {
					t.Errorf("the pane was given back after %v, while the command still ran", d)
				}
				// bash and zsh print the end marker again after the subshell; in the others
				// the pane lives on, so the run completed without a status.
				fin := rec.Result()
				switch {
				case sh[0] == "bash" || sh[0] == "zsh":
					if fin.Outcome != Completed || fin.ExitStatus == nil || *fin.ExitStatus != 137 {
						t.Errorf("final result %+v, want completed with status 137", fin)
					}
				case fin.Outcome != Completed || !fin.StatusLost || fin.ExitStatus != nil:
					t.Errorf("final result %+v, want completed with its status lost", fin)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the pane was never given back")
			}
			q := req
			q.Command = "echo next"
			res, err = r.Run(context.Background(), ts, q)
			if err != nil || res.Outcome != Completed || res.Output != "next" {
				t.Fatalf("next run: %+v %v", res, err)
			}
		})
	}
}

// TestRunLostMarkerInCall: a wrapper killed while the call waits returns once its processes
// are gone (the shell is back at its prompt), not at the call's timeout: completed, with the
// status (bash, zsh: their shell prints the marker again) or with it lost, not as a command
// waiting for input.
func TestRunLostMarkerInCall(t *testing.T) {
	for _, sh := range [][]string{testtmux.Bash, testtmux.Dash, testtmux.Mksh, testtmux.Zsh} {
		t.Run(sh[0], func(t *testing.T) {
			t.Parallel()
			ts, _, req := pane(t, sh)
			r := New()
			defer r.Close()
			req.Command, req.Timeout = "echo before; sh -c 'kill -9 $PPID'; :", time.Minute
			res, err := r.Run(context.Background(), ts, req)
			lost := sh[0] != "bash" && sh[0] != "zsh"
			if err != nil || res.Outcome != Completed || res.StillRunning || res.WaitingForInput || res.StatusLost != lost ||
				lost != (res.ExitStatus == nil) || !strings.HasPrefix(res.Output, "before") || res.Elapsed > 30*time.Second {
				t.Fatalf("%+v %v", res, err)
			}
			if last := strings.TrimSpace(res.Lines[len(res.Lines)-1]); last == "$" || last == "#" {
				t.Errorf("the shell's prompt after is in the output: %q", res.Output)
			}
			if !lost && *res.ExitStatus != 137 {
				t.Errorf("status %d, want 137", *res.ExitStatus)
			}
		})
	}
}

// TestRunLostMarkerTimesOutInGrace: a call whose timeout comes after the wrapper ended without
// its end marker, before lostEndGrace said its status is lost, times out still running, not
// waiting for input: the raw mode it finds is the shell's line editor at its prompt, not a
// program of the command reading keys (which would have the agent send q or Escape there).
func TestRunLostMarkerTimesOutInGrace(t *testing.T) {
	t.Parallel()
	ts, _, req := pane(t, testtmux.Mksh)
	r := New()
	defer r.Close()
	req.Command, req.Timeout = "echo before; sh -c 'kill -9 $PPID'; :", 1500*time.Millisecond
	res, err := r.Run(context.Background(), ts, req)
	if err != nil || res.WaitingForInput || res.InputHint != "" {
		t.Fatalf("%+v %v", res, err)
	}
}

// TestRunTimeoutShorterThanTyping: a timeout shorter than typing the line takes (1 ms) still
// types the line whole; the run times out while the command goes on, and its record then
// holds its real end.
func TestRunTimeoutShorterThanTyping(t *testing.T) {
	ts, p, req := pane(t, testtmux.Bash)
	r := New()
	defer r.Close()
	req.Command, req.Timeout = "sleep 0.5; echo late", time.Millisecond
	res, err := r.Run(context.Background(), ts, req)
	if err != nil || res.Outcome != TimedOut || !res.StillRunning {
		t.Fatalf("%+v %v", res, err)
	}
	rec := r.Last(keyOf(t, ts, p))
	select {
	case <-rec.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the run never ended")
	}
	if got := rec.Result(); got.Outcome != Completed || got.Output != "late" {
		t.Fatalf("final result %+v", got)
	}
}

// TestRunRecordElapsed: a run that ended within its call keeps how long it took in its record,
// as one that outlived its call does: wait_for_run reports the record's elapsed_seconds, which
// read 0 for every run that ended before its timeout.
func TestRunRecordElapsed(t *testing.T) {
	ts, p, req := pane(t, testtmux.Bash)
	r := New()
	defer r.Close()
	req.Command = "sleep 0.3; echo slept"
	res, err := r.Run(context.Background(), ts, req)
	if err != nil || res.Outcome != Completed || res.Output != "slept" {
		t.Fatalf("%+v %v", res, err)
	}
	got := r.Last(keyOf(t, ts, p)).Result()
	if got.Elapsed < 300*time.Millisecond || got.Elapsed > res.Elapsed {
		t.Errorf("the record says the run took %v; the call said %v, and the command sleeps 300ms", got.Elapsed, res.Elapsed)
	}
}

// TestRunShellDiesPaneStays: the pane outlives its shell (remain-on-exit keeps it dead, or
// respawn-pane -k, a person's key binding, starts a new one): the stream never ends and a
// dead pane prints nothing, so the run must notice the shell's end itself, both while the
// call waits and once it timed out (the pane would stay reserved forever).
func TestRunShellDiesPaneStays(t *testing.T) {
	for _, tc := range []struct {
		name    string
		shell   []string
		command string
		timeout time.Duration
		respawn bool // respawn-pane -k once the command runs
		// noproc: without a process table (shellDied cannot tell), the dead pane's stream end
		// (which can also come first with one, on a loaded machine) must say the shell ended.
		noproc bool
	}{
		{"bash kills its shell", testtmux.Bash, "echo bye; kill -9 $$; sleep 5", 20 * time.Second, false, false},
		{"zsh kills its shell", testtmux.Zsh, "echo bye; kill -9 $$; sleep 5", 20 * time.Second, false, false},
		{"bash kills its shell, no process table", testtmux.Bash, "echo bye; kill -9 $$; sleep 5", 20 * time.Second, false, true},
		{"zsh kills its shell, no process table", testtmux.Zsh, "echo bye; kill -9 $$; sleep 5", 20 * time.Second, false, true},
		{"bash respawned while waited for", testtmux.Bash, "echo bye; sleep 30", 20 * time.Second, true, false},
		{"bash respawned after its timeout", testtmux.Bash, "echo bye; sleep 30", 300 * time.Millisecond, true, false},
		{"fish respawned while waited for", testtmux.Fish, "echo bye; sleep 30", 20 * time.Second, true, false},
		{"fish respawned after its timeout", testtmux.Fish, "echo bye; sleep 30", 300 * time.Millisecond, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts, p, req := pane(t, tc.shell)
			ctx := context.Background()
			if _, err := ts.Query(ctx, []string{"set-option", "-g", "remain-on-exit", "on"}); err != nil {
				t.Fatal(err)
			}
			r := New()
			defer r.Close()
			if tc.noproc {
				r.table = termstate.Hide()
			}
			if tc.respawn {
				go func() {
					time.Sleep(time.Second)
					ts.Query(ctx, []string{"respawn-pane", "-k", "-t", p.PaneID})
				}()
			}
			req.Command, req.Timeout = tc.command, tc.timeout
			res, err := r.Run(ctx, ts, req)
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome == TimedOut {
				select {
				case <-r.Last(keyOf(t, ts, p)).Done():
				case <-time.After(15 * time.Second):
					t.Fatal("the run still held the pane 15 s after its shell ended")
				}
				res = r.Last(keyOf(t, ts, p)).Result()
			}
			// The shell's end races the wrapper's subshell, which it hangs up: the end marker may
			// still come out (completed, the shell ended with it) or not (pane_died, no status).
			ended := res.Outcome == PaneDied && res.ExitStatus == nil ||
				res.Outcome == Completed && res.ExitStatus != nil
			if !ended || !res.ShellEnded {
				t.Errorf("want the run ended with its shell (pane_died, or completed when the end marker made it out), got %+v", res)
			}
			if _, held := r.Holder(keyOf(t, ts, p)); held {
				t.Error("the pane is still held")
			}
		})
	}
}

// TestRunTerminalLeftUnusable: a command that leaves the terminal so that the shell cannot
// draw a typed line as typed (echo off, a size that is not the pane's) makes the next run fail
// with a *NotRun that names the cause and the keys that undo it, not vi command mode; those
// keys, sent as the hint says, make the run after work.
func TestRunTerminalLeftUnusable(t *testing.T) {
	long := "echo " + strings.Repeat("abcdefghij", 8)
	for _, tc := range []struct {
		name        string
		shell       []string
		left, cause string
		undo        string
	}{
		{"dash echo off", testtmux.Dash, "stty -echo", "echo off", "stty echo"},
		{"bash size", testtmux.Bash, "stty cols 10 rows 5", "says it is 10x5", "stty cols "},
		{"zsh size", testtmux.Zsh, "stty cols 10 rows 5", "says it is 10x5", "stty cols "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts, p, req := pane(t, tc.shell)
			r := New()
			defer r.Close()
			req.Command = tc.left
			if res, err := r.Run(context.Background(), ts, req); err != nil || res.Outcome != Completed {
				t.Fatalf("%s: %+v %v", tc.left, res, err)
			}
			req.Command = long
			_, err := r.Run(context.Background(), ts, req)
			var nr *NotRun
			if !errors.As(err, &nr) || !strings.Contains(nr.Hint, tc.cause) || !strings.Contains(nr.Hint, tc.undo) {
				t.Fatalf("after %s: %v, want a hint naming %q and %q", tc.left, err, tc.cause, tc.undo)
			}
			keys := nr.Hint[strings.Index(nr.Hint, `keys="`)+6:]
			keys = keys[:strings.IndexByte(keys, '"')]
			// The refusal came once the shell took the run's C-c (clearLine), so the keys
			// are sent at once, as an agent would; again, as an agent would, should they not
			// have taken (a machine so loaded that clearLine's wait ran out).
			for try := 1; ; try++ {
				if _, err := ts.Exec(context.Background(), []string{"send-keys", "-t", p.PaneID, "-l", keys}, []string{"send-keys", "-t", p.PaneID, "Enter"}); err != nil {
					t.Fatal(err)
				}
				if terminalLike(p, 3*time.Second) {
					break
				}
				if try == 5 {
					waitTerminalLike(t, p)
				}
			}
			if res, err := r.Run(context.Background(), ts, req); err != nil || res.Output != long[5:] {
				t.Fatalf("after the hint (%s): %+v %v", nr.Hint, res, err)
			}
		})
	}
}

// terminalLike reports whether pane p's terminal has echo on and the pane's size, or gets
// them within d.
func terminalLike(p tmux.Pane, d time.Duration) bool {
	for end := time.Now().Add(d); ; time.Sleep(50 * time.Millisecond) {
		m, err := termstate.ReadMode(p.PaneTTY)
		cols, rows, err2 := termstate.ReadSize(p.PaneTTY)
		if err == nil && err2 == nil && !m.Hidden() && cols == p.PaneWidth && rows == p.PaneHeight {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

// waitTerminalLike waits until pane p's terminal has echo on and the pane's size.
func waitTerminalLike(t *testing.T, p tmux.Pane) {
	t.Helper()
	if terminalLike(p, 10*time.Second) {
		return
	}
	m, _ := termstate.ReadMode(p.PaneTTY)
	cols, rows, _ := termstate.ReadSize(p.PaneTTY)
	t.Fatalf("the terminal did not get its echo and size back: %+v %dx%d, pane %dx%d", m, cols, rows, p.PaneWidth, p.PaneHeight)
}

// TestRunLeftOnAlternate: a command that switches the terminal to the alternate screen and
// never back (a full-screen program killed before it could leave it) returns no output from
// there, and says so (OnAlternate), as the pane goes on showing that screen; one that leaves
// it (as vim does) does not.
func TestRunLeftOnAlternate(t *testing.T) {
	for _, tc := range []struct {
		cmd   string
		out   string
		onAlt bool
	}{
		{`printf '\033[?1049h'; echo drawn`, "", true},
		{`tput smcup; echo drawn`, "", true},
		{`printf '\033[?1049h'; echo drawn; printf '\033[?1049l'; echo after`, "after", false},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			t.Parallel()
			ts, _, req := pane(t, testtmux.Bash)
			r := New()
			defer r.Close()
			req.Command = tc.cmd
			res, err := r.Run(context.Background(), ts, req)
			if err != nil || res.Outcome != Completed || res.Output != tc.out || res.OnAlternate != tc.onAlt {
				t.Fatalf("%+v %v, want output %q and OnAlternate %v", res, err, tc.out, tc.onAlt)
			}
		})
	}
}

// TestWithoutPrompt: the prompt a shell drew after a run whose end marker was lost leaves its
// output; the command's own unterminated output before it stays, and so does a line that
// ends otherwise (a prompt that changed) or that ended in a line break (the command's).
func TestWithoutPrompt(t *testing.T) {
	for _, tc := range []struct {
		body, prompt, want string
	}{
		{"before\nKilled\n# ", "#", "before\nKilled"},
		{"before\nfoo$ ", "$", "before\nfoo"},
		{"before\n~/src 10:02 $ ", "~/src 10:01 $", "before\n~/src 10:02 $ "},
		{"before\nrun #\n", "#", "before\nrun #\n"},
		{"before\n# ", "", "before\n# "},
	} {
		s := shape([]byte(tc.body), 0, 100, 1000)
		res := Result{Lines: s.lines, Output: join(s.lines)}
		withoutPrompt(&res, []byte(tc.body), tc.prompt)
		if res.Output != tc.want || join(res.Lines) != tc.want {
			t.Errorf("%q at prompt %q: %q, want %q", tc.body, tc.prompt, res.Output, tc.want)
		}
	}
}
