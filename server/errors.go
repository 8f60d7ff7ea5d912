package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/internal/hint"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// toolError is a failure shown to the client as "<what went wrong>\n\n<what to do instead>";
// the packages that check input (tmux/keys, internal/listfilter, policy) return the same type.
type toolError = hint.Error

// fail builds a tool error from a hint and a formatted message.
func fail(h, format string, args ...any) error { return hint.New(h, format, args...) }

// truncate cuts a value the client sent to n bytes for quoting in a message.
func truncate(s string, n int) string { return hint.Truncate(s, n) }

// forTool words err for a tool whose arguments describe's hints would get wrong: no tmux
// server, for a tool that takes no socket_name (run_shell_command's seeded arguments).
func forTool(t *Tool, err error) error {
	if errors.Is(err, tmux.ErrServerNotRunning) && !slices.Contains(t.args, "socket_name") {
		return &toolError{Msg: err.Error(), Hint: t.Name + " takes no socket_name: it runs on the server's default socket (--socket-name, LIBTMUX_SOCKET). Start a tmux server there with create_session, or call run_command, which takes socket_name."}
	}
	return err
}

// describe turns an engine error into a message and a hint.
func describe(err error) *toolError {
	var te *toolError
	if errors.As(err, &te) {
		return te
	}
	msg := err.Error()
	if he := (*tmux.HostError)(nil); errors.As(err, &he) {
		return &toolError{Msg: msg, Hint: hostHint(he)}
	}
	switch {
	case errors.Is(err, tmux.ErrNoTmux):
		return &toolError{Msg: msg, Hint: "Install tmux 3.2a or newer, or point LIBTMUX_TMUX_BIN (--tmux-bin) at it."}
	case errors.Is(err, tmux.ErrServerNotRunning):
		return &toolError{Msg: msg, Hint: "Start one with create_session, or pass the socket_name of a running server (list_servers shows them)."}
	case errors.Is(err, tmux.ErrTimeout):
		return &toolError{Msg: msg, Hint: "tmux may be stopped or overloaded; check it (tmux-mcp doctor) and try again."}
	case errors.Is(err, tmux.ErrServerRestarted):
		return &toolError{Msg: msg, Hint: "Ids, cursors and streams of the old server are void; list again (list_panes) and start over."}
	case errors.Is(err, tmux.ErrNotFound):
		return &toolError{Msg: msg, Hint: "List what exists with list_sessions, list_windows or list_panes and use those ids."}
	case errors.Is(err, context.Canceled):
		return &toolError{Msg: "the call was cancelled", Hint: "Call again if you still need it."}
	}
	var ce *tmux.CommandError
	if errors.As(err, &ce) {
		for _, h := range tmuxHints {
			if strings.Contains(ce.Message, h.says) {
				return &toolError{Msg: msg, Hint: h.hint}
			}
		}
		return &toolError{Msg: msg, Hint: "Check the arguments; tmux's message above says what it refused."}
	}
	return &toolError{Msg: msg}
}

// tmuxHints say what to do about refusals of tmux's whose message does not.
var tmuxHints = []struct{ says, hint string }{
	{"no space for new pane", "The pane is too small to split: split a larger pane, make room with resize_pane or select_layout (tiled, even-vertical), or use a new window (create_window)."},
	{"pane too small", "The pane is too small for this: make room with resize_pane or select_layout, or use a new window (create_window)."},
}

// hostHint says what to do about a host that could not be used.
func hostHint(he *tmux.HostError) string {
	switch {
	case errors.Is(he, tmux.ErrNoTmux), errors.Is(he, tmux.ErrTmuxTooOld):
		return fmt.Sprintf("Install tmux 3.2a or newer on that host, on the PATH of a non-interactive ssh command (`ssh %s tmux -V` shows what it finds), or use another host.", he.Destination)
	}
	return fmt.Sprintf("Check that `ssh -o BatchMode=yes %s true` works from this machine: tmux-mcp never prompts, so the key must be in the agent or ~/.ssh and the host key in known_hosts. Or use another host (list_servers shows them).", he.Destination)
}

// firstLine is s up to its first line break, for quoting a command in a message.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
