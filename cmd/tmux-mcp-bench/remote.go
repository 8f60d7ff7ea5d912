package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testssh"
)

// remoteRows measures tmux-mcp against a tmux server on "another host": this machine reached
// through a private sshd on 127.0.0.1 (internal/testssh), as the default host, beside the
// local rows of the same run (local list_sessions ls and run_shell_command rs). The floor is
// the ssh round trip itself: a line sent through an ssh session to cat and back. The target
// is 1.5× the local figure plus that floor.
func remoteRows(ctx context.Context, bin, dir string, n, runs int, ls, rs samples) ([]row, error) {
	if err := testssh.Available(); err != nil {
		return []row{{what: "host over loopback ssh", value: "skipped", target: err.Error()}}, nil
	}
	net, err := testssh.Open()
	if err != nil {
		return nil, err
	}
	defer net.Close()
	d, err := net.Launch("far")
	if err != nil {
		return nil, err
	}
	far, err := newTmuxAt(filepath.Join(dir, "far"), d.SocketPath("default"))
	if err != nil {
		return nil, err
	}
	defer far.kill()
	cmd := exec.Command(bin)
	cmd.Env = append(append([]string{}, far.env...), "LIBTMUX_MCP_HOSTS=far=far", "LIBTMUX_MCP_DEFAULT_HOST=far", "LIBTMUX_MCP_SSH_CONFIG="+net.Config)
	cl, err := connectCmd(ctx, cmd)
	if err != nil {
		return nil, err
	}
	defer cl.close()
	floor, err := sshFloor(net.Config, "far", n)
	if err != nil {
		return nil, err
	}
	remoteLS, err := timeSamples(warmup, n, func() error { _, err := cl.call(ctx, "list_sessions", map[string]any{}); return err })
	if err != nil {
		return nil, err
	}
	rows := []row{remoteRow(fmt.Sprintf("list_sessions, host over loopback ssh (n=%d)", n), remoteLS, ls, floor)}
	if cl.has("run_shell_command") && len(rs) > 0 {
		remoteRS, err := cl.timeCalls(ctx, "run_shell_command", map[string]any{"paneId": far.pane, "command": "true"}, runs)
		if err != nil {
			return nil, err
		}
		rows = append(rows, remoteRow(fmt.Sprintf("run_shell_command true, bash, host over loopback ssh (n=%d)", runs), remoteRS, rs, floor))
	}
	return rows, nil
}

// remoteRow compares a remote figure with 1.5× the local one plus the ssh floor.
func remoteRow(what string, remote, local, floor samples) row {
	limit := local.pct(0.5)*3/2 + floor.pct(0.5)
	return row{what: what, value: stat(remote), floor: "ssh round trip (a line through cat) " + stat(floor), ratio: ratio(remote, floor),
		target: fmt.Sprintf("≤ 1.5× local + ssh floor = %s", ms(limit)), met: yesNo(remote.pct(0.5) <= limit)}
}

// sshFloor times n round trips of a line through one ssh session (cat on the host), after
// warm-up ones.
func sshFloor(config, host string, n int) (samples, error) {
	cmd := exec.Command("ssh", "-F", config, "-T", "-e", "none", "-o", "BatchMode=yes", "--", host, "exec cat")
	cmd.Stderr = os.Stderr
	stdin, stdout, err := startPiped(cmd)
	if err != nil {
		return nil, err
	}
	defer func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	r := bufio.NewReader(stdout)
	return timeSamples(warmup, n, func() error {
		if _, err := io.WriteString(stdin, "ping\n"); err != nil {
			return err
		}
		l, err := r.ReadString('\n')
		if err == nil && strings.TrimSpace(l) != "ping" {
			err = fmt.Errorf("ssh floor: read %q", l)
		}
		return err
	})
}
