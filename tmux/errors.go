package tmux

import (
	"errors"
	"fmt"
	"strings"
	"time"
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
		// set-option -p and a few others say "no such pane" where cmd-find says "can't find".
		return strings.Contains(e.Message, "can't find") || strings.HasPrefix(e.Message, "no such pane") ||
			strings.HasPrefix(e.Message, "no such window") || strings.HasPrefix(e.Message, "no such session")
	case ErrServerNotRunning:
		return isNoServer(e.Message)
	}
	return false
}

// serverExited reports whether err is a tmux client's "server exited unexpectedly": the
// server it reached exited before it answered.
func serverExited(err error) bool {
	return errors.Is(err, ErrServerNotRunning) && strings.Contains(err.Error(), "server exited unexpectedly")
}

func isNoServer(msg string) bool {
	return strings.Contains(msg, "no server running") ||
		strings.Contains(msg, "error connecting to") ||
		strings.Contains(msg, "server exited unexpectedly")
}

// ErrTmuxTooOld means the tmux found is older than the oldest one supported (3.2a).
var ErrTmuxTooOld = errors.New("tmux there is too old: tmux-mcp needs tmux 3.2a or newer")

// ErrUnreachable means ssh could not reach a host (it could not connect, or the host refused
// the key or failed the host key check).
var ErrUnreachable = errors.New("could not be reached over ssh")

// HostError is a failure to reach tmux on another host: ssh's own failure (ErrUnreachable),
// or a host whose tmux is missing (ErrNoTmux) or too old (ErrTmuxTooOld). Message is what ssh
// or the host said.
type HostError struct {
	Host, Destination string
	Err               error
	Message           string
	// Age, when not 0, says the error is that of an earlier attempt, this long ago, given again
	// without asking the host; RetryIn is when the host is asked again.
	Age, RetryIn time.Duration
}

func (e *HostError) Error() string {
	msg := strings.TrimSpace(e.Message)
	if len(msg) > 600 {
		msg = msg[:600] + "…"
	}
	if msg == "" {
		msg = "(no message)"
	}
	var note string
	if e.Age > 0 {
		note = fmt.Sprintf(" (remembered from an attempt %.2f s ago, which was slow, so that calls are not each held up by it; the host is asked again in %.2f s)",
			e.Age.Seconds(), e.RetryIn.Seconds())
	}
	return fmt.Sprintf("host %q (%s): %v%s: %s", e.Host, e.Destination, e.Err, note, msg)
}

// remembered returns a copy of e that says it is given again, age after it was found, and that
// the host is asked again in retryIn.
func (e *HostError) remembered(age, retryIn time.Duration) *HostError {
	c := *e
	c.Age, c.RetryIn = max(age, time.Millisecond), retryIn
	return &c
}

func (e *HostError) Unwrap() error { return e.Err }
