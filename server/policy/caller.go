package policy

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Caller is the tmux pane this MCP server runs in, from TMUX and TMUX_PANE.
type Caller struct {
	SocketPath string // from TMUX; empty when unknown
	ServerPID  int    // from TMUX; 0 when unknown
	PaneID     string // TMUX_PANE
}

// CallerFromEnv parses TMUX (socket_path,server_pid,session_id, read from the right because the
// path may hold commas) and TMUX_PANE. It returns nil when the server is not inside tmux.
func CallerFromEnv(env []string) *Caller {
	var tmuxVar, pane string
	var haveTmux, havePane bool
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "TMUX="); ok {
			tmuxVar, haveTmux = v, v != ""
		}
		if v, ok := strings.CutPrefix(kv, "TMUX_PANE="); ok {
			pane, havePane = v, v != ""
		}
	}
	if !haveTmux && !havePane {
		return nil
	}
	c := &Caller{PaneID: pane}
	if i := strings.LastIndex(tmuxVar, ","); i > 0 {
		rest := tmuxVar[:i]
		if j := strings.LastIndex(rest, ","); j > 0 {
			c.SocketPath = rest[:j]
			c.ServerPID, _ = strconv.Atoi(rest[j+1:])
		}
	}
	return c
}

// OnServer reports whether the caller runs inside the tmux server reached at socketPath whose
// daemon pid is pid. When unsure (no socket known) it says yes: guards refuse when unsure.
func (c *Caller) OnServer(socketPath string, pid int) bool {
	if c == nil {
		return false
	}
	if c.SocketPath == "" || socketPath == "" {
		return true
	}
	if !samePath(c.SocketPath, socketPath) {
		return false
	}
	return c.ServerPID == 0 || pid == 0 || c.ServerPID == pid
}

// IsPane reports whether paneID on that server is the caller's own pane. Unlike OnServer it
// needs certainty, because it feeds the is_caller field.
func (c *Caller) IsPane(socketPath string, pid int, paneID string) bool {
	if c == nil || c.PaneID == "" || c.PaneID != paneID || c.SocketPath == "" {
		return false
	}
	return samePath(c.SocketPath, socketPath) && (c.ServerPID == 0 || c.ServerPID == pid)
}

func samePath(a, b string) bool {
	if a == b {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 == nil && err2 == nil && ra == rb {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
