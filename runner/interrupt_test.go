package runner

import (
	"context"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// TestRunCtrlC interrupts a running command with Ctrl-C typed into the pane, in every POSIX
// shell, with the one-subshell frame (bash, dash, mksh, zsh) and the nested one (sh, ksh): the
// end marker still comes, with 130, and the pane takes the next run. ksh93 runs the nested
// frame's inner subshell without a fork and reports an interrupted builtin loop as 2 (the
// 256+SIGINT status cut to 8 bits) or, when the signal lands between two builtins, 0; its
// statuses are logged, not checked. Both a builtin loop and an external program are interrupted.
func TestRunCtrlC(t *testing.T) {
	for _, sh := range [][]string{testtmux.Bash, testtmux.Dash, testtmux.Mksh, testtmux.Zsh, testtmux.Sh, testtmux.Ksh} {
		t.Run(sh[0], func(t *testing.T) {
			t.Parallel()
			ts, p, req := pane(t, sh)
			r := New()
			defer r.Close()
			for _, cmd := range []string{"while :; do :; done", "sleep 30; echo not reached"} {
				done := make(chan Result, 1)
				go func() {
					q := req
					q.Command = cmd
					res, err := r.Run(context.Background(), ts, q)
					if err != nil {
						t.Error(err)
					}
					done <- res
				}()
				time.Sleep(500 * time.Millisecond)
				if _, err := ts.Exec(context.Background(), []string{"send-keys", "-t", p.PaneID, "C-c"}); err != nil {
					t.Fatal(err)
				}
				res := <-done
				if res.Outcome != Completed || res.ExitStatus == nil || (*res.ExitStatus != 130 && sh[0] != "ksh") {
					t.Fatalf("%q: status %v: %+v", cmd, deref(res.ExitStatus), res)
				}
				if res.ExitStatus != nil && *res.ExitStatus != 130 {
					t.Logf("%q: status %d", cmd, *res.ExitStatus)
				}
				q := req
				q.Command = "echo next"
				res, err := r.Run(context.Background(), ts, q)
				if err != nil || res.Outcome != Completed || res.Output != "next" {
					t.Fatalf("after %q: %+v %v", cmd, res, err)
				}
			}
		})
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
