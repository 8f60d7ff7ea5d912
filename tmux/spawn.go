package tmux

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"
)

// spawnList runs each command as its own tmux process (argv, never a shell), stopping at the
// first failure. It is the path for when no control client can attach, for words control mode
// cannot carry (NUL, byte 0xFF), and for stdin.
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
	cmd, err := s.command(ctx, args...)
	if err != nil {
		return nil, err
	}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, s.spawnError(ctx, args, err, stderr.String(), stdout.String())
	}
	return splitLines(stdout.String()), nil
}

// spawnError explains a spawned tmux command that failed: the deadline, the process or host
// (processError), no server, or tmux's own refusal (its stderr, else its stdout).
func (s *Server) spawnError(ctx context.Context, args []string, err error, stderr, stdout string) error {
	if ctx.Err() != nil {
		return s.timeoutError(ctx, [][]string{args})
	}
	if perr := s.processError(err, stderr); perr != nil {
		return perr
	}
	msg := strings.TrimSpace(stderr)
	if msg == "" {
		msg = strings.TrimSpace(stdout)
	}
	if isNoServer(msg) {
		return fmt.Errorf("%w (%s)", ErrServerNotRunning, msg)
	}
	return &CommandError{Command: args, Message: msg}
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return []string{}
	}
	return strings.Split(s, "\n")
}
