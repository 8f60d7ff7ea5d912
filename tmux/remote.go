package tmux

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/tmux/ssh"
)

// command returns the process that runs tmux with args: tmux itself, or ssh running it on the
// configured host. A nil ctx ties the process to no context (a control client).
func (s *Server) command(ctx context.Context, args ...string) (*exec.Cmd, error) {
	argv := s.argv(args...)
	if s.cfg.Host != nil {
		return s.hostCommand(ctx, append([]string{s.cfg.Bin}, argv...)...)
	}
	var cmd *exec.Cmd
	if ctx == nil {
		cmd = exec.Command(s.cfg.Bin, argv...)
	} else {
		cmd = exec.CommandContext(ctx, s.cfg.Bin, argv...)
	}
	cmd.Env = s.cfg.env()
	return cmd, nil
}

// remoteCommand returns the ssh process that runs a POSIX sh script on the host with args as
// $1, $2, ... (never part of the script's text).
func (s *Server) remoteCommand(ctx context.Context, script string, args ...string) (*exec.Cmd, error) {
	return s.hostCommand(ctx, append([]string{"sh", "-c", script, "sh"}, args...)...)
}

// hostCommand returns the ssh process that runs argv on the host, in the configured
// environment (Config.Env, else the Host's).
func (s *Server) hostCommand(ctx context.Context, argv ...string) (*exec.Cmd, error) {
	cmd, err := s.cfg.Host.Command(ctx, argv...)
	if err != nil {
		return nil, s.hostError(ErrUnreachable, err.Error())
	}
	if s.cfg.Env != nil {
		cmd.Env = s.cfg.Env
	}
	return cmd, nil
}

func (s *Server) hostError(kind error, msg string) *HostError {
	return &HostError{Host: s.cfg.Host.Name, Destination: s.cfg.Host.Destination, Err: kind, Message: msg}
}

// processError explains a tmux process that failed with err, having written stderr, when the
// failure is not tmux's own answer: the binary could not be run, ssh could not reach the host
// (exit status 255), the host has no such program (127: the remote shell's "not found", 126:
// not executable) or its tmux does not know our flags (it prints its usage: older than 3.2a,
// which added -N). It returns nil for tmux's own refusals, which the caller reports.
func (s *Server) processError(err error, stderr string) error {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		if s.cfg.Host != nil {
			return s.hostError(ErrUnreachable, fmt.Sprintf("running %s: %v", cmdName(s.cfg.Host.Bin, "ssh"), err))
		}
		return fmt.Errorf("%w (%s): %v", ErrNoTmux, s.cfg.Bin, err)
	}
	if s.cfg.Host == nil {
		return nil
	}
	msg := strings.TrimSpace(stderr)
	switch {
	case ee.ExitCode() == ssh.ExitSSH:
		return s.hostError(ErrUnreachable, msg)
	case ee.ExitCode() == 127 || ee.ExitCode() == 126:
		return s.hostError(fmt.Errorf("%w (%s on that host, run by a non-interactive ssh command)", ErrNoTmux, s.cfg.Bin), msg)
	case strings.Contains(msg, "usage: tmux"):
		return s.hostError(ErrTmuxTooOld, msg)
	}
	return nil
}

func cmdName(bin, def string) string {
	if bin == "" {
		return def
	}
	return bin
}
