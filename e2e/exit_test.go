package e2e

import (
	"bufio"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// TestExitMidFloodLeavesNoClient: tmux-mcp ends (SIGTERM, or its stdin closed) while it follows
// a pane that floods; by the time the process is gone, every control client it started has
// ended, and tmux answers. A client left behind kept tmux from finishing kill-server and from
// taking new clients ("server exited unexpectedly") until it was killed by hand.
//
// tmux 3.3a itself crashes now and then (SIGSEGV in control_write, the crash tmux/gate.go
// describes) when control clients leave a flooding pane and others attach right after: a round
// whose tmux server is gone (its process, or its socket: a crashing server may not have been
// reaped yet) is told apart from one whose server is alive and does not answer,
// and the next round gets a server of its own.
func TestExitMidFloodLeavesNoClient(t *testing.T) {
	var serverPID int
	flood := func() (*testtmux.Server, string) {
		tmx := testtmux.New(t)
		_, pane := tmx.NewSession("flood")
		serverPID, _ = strconv.Atoi(strings.TrimSpace(tmx.Tmux("display-message", "-p", "#{pid}")))
		tmx.Tmux("respawn-pane", "-k", "-t", pane, "yes tmux-mcp-flood-line-0123456789")
		return tmx, pane
	}
	tmx, pane := flood()
	const rounds = 50
	begin := time.Now()
	crashes := 0
	for i := range rounds {
		how := exitHows[i%len(exitHows)]
		pids := exitMidFlood(t, tmx, pane, how)
		for _, pid := range append(pids, clientProcs(t, tmx.Socket)...) {
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("round %d (%s): control client %d still runs after tmux-mcp exited (%v)", i, how, pid, err)
				syscall.Kill(pid, syscall.SIGKILL) // so that the next rounds and the cleanup can run
			}
		}
		// tmux answers, and forgets the clients (its own bookkeeping may lag the exit a little).
		deadline := time.Now().Add(5 * time.Second)
		for {
			out, err := tmx.TryTmux("list-clients", "-F", "#{client_pid}")
			if err != nil && (serverGone(serverPID) || strings.Contains(out, "no server running")) && crashes < 3 {
				crashes++
				t.Logf("round %d (%s): the tmux server is gone (%v: %s), tmux 3.3a's own crash; a new one for the next rounds", i, how, err, out)
				tmx, pane = flood()
				break
			}
			if err != nil {
				t.Fatalf("round %d (%s): tmux does not answer: %v %s", i, how, err, out)
			}
			if strings.TrimSpace(out) == "" {
				break
			}
			if time.Now().After(deadline) {
				ps, _ := exec.Command("ps", "-o", "pid,ppid,stat,etime,args", "-p", strings.Join(strings.Fields(out), ",")).CombinedOutput()
				t.Fatalf("round %d (%s): clients left on the tmux server: %q (tmux-mcp's were %v)\n%s", i, how, out, pids, ps)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("%d rounds in %v", rounds, time.Since(begin).Round(time.Millisecond))
	if out, err := tmx.TryTmux("kill-server"); err != nil {
		t.Errorf("kill-server: %v %s", err, out)
	}
}

// exitHows are the ways tmux-mcp is ended: a signal, the client closing its stdin, and the
// client going away (stdin and stdout closed: a write to stdout then fails, and must not kill
// the process before it has ended its clients).
var exitHows = []string{"SIGTERM", "stdin closed", "client gone"}

// exitMidFlood runs tmux-mcp, has it follow pane (a content subscription), waits until both of
// its control clients (commands, and the pane's stream) are attached, then ends it as how says
// and waits for it. It returns the clients' pids.
func exitMidFlood(t *testing.T, tmx *testtmux.Server, pane, how string) []int {
	t.Helper()
	cmd := exec.Command(binary)
	cmd.Env = append(append([]string{}, tmx.Env...), "LIBTMUX_SOCKET_PATH="+tmx.Socket)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		// Drain stdout (resources/updated keeps coming) so that the server never blocks on it.
		r := bufio.NewReader(out)
		for {
			if _, err := r.ReadString('\n'); err != nil {
				break
			}
		}
		cmd.Wait()
		close(exited)
	}()
	defer func() {
		select {
		case <-exited:
		default:
			cmd.Process.Kill()
			<-exited
		}
	}()
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"tmux://panes/` + pane + `/content"}}`,
	} {
		if _, err := fmt.Fprintln(in, line); err != nil {
			t.Fatal(err)
		}
	}
	var pids []int
	deadline := time.Now().Add(20 * time.Second)
	for len(pids) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("tmux-mcp did not attach its two control clients in 20 s (clients: %v)", pids)
		}
		time.Sleep(10 * time.Millisecond)
		pids = pids[:0]
		list, _ := tmx.TryTmux("list-clients", "-F", "#{client_pid}")
		for _, f := range strings.Fields(list) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	switch how {
	case "SIGTERM":
		cmd.Process.Signal(syscall.SIGTERM)
	case "stdin closed":
		in.Close()
	default:
		out.Close()
		time.Sleep(300 * time.Millisecond) // a resources/updated is due (one each 250 ms at most)
		in.Close()
	}
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		t.Fatalf("tmux-mcp did not exit within 20 s")
	}
	return pids
}

// clientProcs lists the control-mode tmux clients of socket that run (ps, not /proc: it runs
// on macOS too).
func clientProcs(t *testing.T, socket string) []int {
	t.Helper()
	out, err := exec.Command("ps", "-A", "-o", "pid=,args=").Output()
	if err != nil {
		t.Fatalf("ps: %v", err)
	}
	var pids []int
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || !strings.Contains(l, " "+socket+" ") || !strings.Contains(l, " -C ") {
			continue
		}
		if pid, err := strconv.Atoi(f[0]); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// serverGone says whether the tmux server process pid has ended (as opposed to a server that
// runs and does not answer).
func serverGone(pid int) bool {
	return pid > 0 && errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
