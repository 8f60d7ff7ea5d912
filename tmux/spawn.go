package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// spawnList runs each command as its own tmux process (argv, never a shell), stopping at the
// first failure. It is the path for when no control client can attach, for words control mode
// cannot carry (LF), and for stdin.
func (s *Server) spawnList(ctx context.Context, cmds [][]string) ([][]string, error) {
	out := make([][]string, 0, len(cmds))
	for _, c := range cmds {
		lines, err := s.spawn(ctx, nil, c...)
		if err != nil {
			return out, err
		}
		out = append(out, lines)
	}
	return out, nil
}

// Spawn runs one command in its own tmux process, feeding it stdin when not nil. It counts as
// a mutation (see attachGate).
func (s *Server) Spawn(ctx context.Context, stdin []byte, args ...string) ([]string, error) {
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	out, err := s.locked(ctx, true, [][]string{args}, func() ([][]string, error) {
		lines, err := s.spawn(ctx, stdin, args...)
		return [][]string{lines}, err
	})
	if err == nil {
		s.mu.Lock()
		s.noConnUntil = time.Time{}
		s.mu.Unlock()
		return out[0], nil
	}
	return nil, err
}

func (s *Server) spawn(ctx context.Context, stdin []byte, args ...string) ([]string, error) {
	cmd := exec.CommandContext(ctx, s.cfg.Bin, s.argv(args...)...)
	cmd.Env = s.cfg.env()
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err != nil {
		if ctx.Err() != nil {
			return nil, s.timeoutError(ctx, [][]string{args})
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return nil, fmt.Errorf("%w (%s): %v", ErrNoTmux, s.cfg.Bin, err)
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = strings.TrimSpace(stdout.String())
		}
		if isNoServer(msg) {
			return nil, fmt.Errorf("%w (%s)", ErrServerNotRunning, msg)
		}
		return nil, &CommandError{Command: args, Message: msg}
	}
	return splitLines(stdout.String()), nil
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return []string{}
	}
	return strings.Split(s, "\n")
}
