package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// viMode turns on each shell's vi editing mode.
var viMode = map[string]string{"bash": "set -o vi", "zsh": "bindkey -v", "ksh": "set -o vi", "mksh": "set -o vi", "busybox": "set -o vi"}

// TestRunPendingInput leaves text on the shell's command line (typed without Enter, as
// send_keys enter=false does), in emacs and vi mode, with the cursor at its end or moved left,
// or (vi) back in command mode, or back in insert mode at the line's end ("A", the text ending
// in "&&", so that a typed line after it would run it): the run must never run that text. It either succeeds with its
// own output or fails saying nothing ran; either way the pane takes the next run.
func TestRunPendingInput(t *testing.T) {
	shells := [][]string{testtmux.Bash, testtmux.Zsh, testtmux.Dash, testtmux.Mksh, testtmux.Ksh, testtmux.Fish, {"busybox", "ash"}}
	for _, sh := range shells {
		for _, mode := range []string{"emacs", "vi"} {
			if mode == "vi" && viMode[sh[0]] == "" {
				continue
			}
			for _, cursor := range []string{"end", "left", "command", "append"} {
				if (cursor == "command" || cursor == "append") && mode != "vi" {
					continue
				}
				t.Run(sh[0]+"/"+mode+"/"+cursor, func(t *testing.T) {
					t.Parallel()
					testPending(t, sh, mode, cursor)
				})
			}
		}
	}
}

func testPending(t *testing.T, sh []string, mode, cursor string) {
	ts, p, req := pane(t, sh)
	r := New()
	defer r.Close()
	send := func(args ...string) {
		t.Helper()
		if _, err := ts.Exec(context.Background(), append([]string{"send-keys", "-t", p.PaneID}, args...)); err != nil {
			t.Fatal(err)
		}
	}
	if mode == "vi" {
		// Typed at the prompt, as a person would: a run's command runs in a subshell, where
		// it would not change the line editor of the shell. The run after it is typed once
		// the shell read the line.
		send("-l", viMode[sh[0]])
		send("Enter")
		req.Command = "true"
		if res, err := r.Run(context.Background(), ts, req); err != nil || res.Outcome != Completed {
			t.Fatalf("vi mode: %+v %v", res, err)
		}
	}
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.Mkdir(victim, 0o700); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(victim, "touched")
	pending := "touch " + marker + "; rm -rf " + victim + " "
	if cursor == "append" {
		pending += "&&" // the typed line after it would run it
	}
	send("-l", pending)
	time.Sleep(200 * time.Millisecond)
	switch cursor {
	case "left":
		send("Left", "Left", "Left")
	case "command":
		send("Escape")
	case "append":
		// Back to insert mode at the line's end: a vi line editor's kill (C-u) then kills
		// only what is typed from there on.
		send("Escape")
		time.Sleep(200 * time.Millisecond)
		send("A")
	}
	time.Sleep(200 * time.Millisecond)
	req.Command = "echo hi"
	res, err := r.Run(context.Background(), ts, req)
	var nr *NotRun
	switch {
	case err == nil && res.Outcome == Completed && res.Output == "hi":
	case errors.As(err, &nr):
		t.Logf("refused: %v", err)
	default:
		t.Errorf("run: %+v %v", res, err)
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("the pending text ran: %v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the pending text ran: the marker file exists")
	}
	// The pane takes the next run.
	req.Command = "echo next"
	if res, err := r.Run(context.Background(), ts, req); err != nil || res.Output != "next" {
		out, _ := ts.Query(context.Background(), []string{"capture-pane", "-p", "-t", p.PaneID})
		t.Fatalf("next run: %+v %v; screen %q", res, err, out)
	}
}
