package tmux

import (
	"errors"
	"fmt"
	"strings"
)

// Errors callers branch on. The MCP layer turns them into a message plus a hint.
var (
	// ErrServerNotRunning means no tmux server listens on the socket.
	ErrServerNotRunning = errors.New("no tmux server is running on this socket")
	// ErrNoTmux means the tmux binary could not be started.
	ErrNoTmux = errors.New("the tmux binary could not be run")
	// ErrTimeout means tmux did not answer within the request's deadline.
	ErrTimeout = errors.New("tmux did not answer in time")
	// ErrNotFound means a session, window or pane does not exist.
	ErrNotFound = errors.New("not found")
	// ErrServerRestarted means the tmux server behind a socket is not the one a value came from.
	ErrServerRestarted = errors.New("the tmux server was restarted")
)

// CommandError is a command tmux refused, with tmux's own message.
type CommandError struct {
	Command []string
	Message string
}

func (e *CommandError) Error() string {
	name := "tmux"
	if len(e.Command) > 0 {
		name = e.Command[0]
	}
	msg := strings.TrimSpace(e.Message)
	if msg == "" {
		msg = "failed"
	}
	return fmt.Sprintf("tmux %s: %s", name, msg)
}

// Is makes errors.Is(err, ErrNotFound) true for tmux's "can't find ..." messages and
// errors.Is(err, ErrServerNotRunning) for its connection failures.
func (e *CommandError) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return strings.Contains(e.Message, "can't find")
	case ErrServerNotRunning:
		return isNoServer(e.Message)
	}
	return false
}

func isNoServer(msg string) bool {
	return strings.Contains(msg, "no server running") ||
		strings.Contains(msg, "error connecting to") ||
		strings.Contains(msg, "server exited unexpectedly")
}
