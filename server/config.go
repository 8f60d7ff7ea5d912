package server

import (
	"io"
	"log/slog"
	"math"
	"os"
	"time"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

// Options configure a Server. The zero value serves the default tmux socket at the mutating tier.
type Options struct {
	Version         string
	TmuxBin         string        // LIBTMUX_TMUX_BIN
	SocketName      string        // LIBTMUX_SOCKET: socket of calls without socket_name
	SocketPath      string        // LIBTMUX_SOCKET_PATH: used when SocketName is empty
	Safety          policy.Tier   // LIBTMUX_SAFETY
	Tools           []string      // LIBTMUX_MCP_TOOLS: narrows the tier; empty means all
	Toolsets        []string      // LIBTMUX_TOOLSETS: narrows the tier to these toolsets; nil means all, empty none
	ExcludeTools    []string      // LIBTMUX_EXCLUDE_TOOLS: never offered, nor called by a batch
	WaitMax         time.Duration // LIBTMUX_MCP_WAIT_MAX_SECONDS, clamped to 1s..600s
	SuppressHistory bool          // LIBTMUX_SUPPRESS_HISTORY: run_command's default
	Audit           string        // LIBTMUX_MCP_AUDIT: "stderr" or a file path
	PipeRoot        string        // LIBTMUX_MCP_PIPE_ROOT
	AllowWatched    bool          // LIBTMUX_MCP_ALLOW_WATCHED: runs may type into watched panes
	// ShellIntegration is the default of shell_integration on the tools that start a pane
	// (LIBTMUX_MCP_SHELL_INTEGRATION).
	ShellIntegration bool
	// Secrets is LIBTMUX_MCP_SECRETS: "off" keeps runs from asking the person for a secret
	// themselves; anything else ("ask", the default) lets them (secret.go).
	Secrets string
	// Confirm is LIBTMUX_MCP_CONFIRM: tiers and tool names whose calls first ask the person
	// (confirm.go).
	Confirm     []string
	Env         []string      // environment for tmux and for caller detection; nil: this process's
	TmuxTimeout time.Duration // deadline of one tmux request; tmux.DefaultTimeout (plus the connect timeout on another host) when 0
	// Hosts are the other machines calls may reach (LIBTMUX_MCP_HOSTS); with none, no tool
	// advertises a host argument.
	Hosts []HostConfig
	// DefaultHost is the host of calls without one (LIBTMUX_MCP_DEFAULT_HOST): "" or "local"
	// for this machine, else a name in Hosts. The seeded tools, which take no host, reach it.
	DefaultHost       string
	SSHConfig         string        // LIBTMUX_MCP_SSH_CONFIG: ssh -F file; "" for the user's ~/.ssh/config
	SSHConnectTimeout time.Duration // LIBTMUX_MCP_SSH_CONNECT_TIMEOUT; ssh.DefaultConnectTimeout when 0
	// Logger receives the go-sdk's own warnings and errors (a failed notification, a session
	// that ended with an error); nil: a text log of warnings and errors on stderr. The audit
	// log (Audit) is separate.
	Logger *slog.Logger
}

// Wait ceiling bounds.
const (
	MinWait     = time.Second
	MaxWait     = 600 * time.Second
	DefaultWait = 30 * time.Second
)

func (o *Options) normalize() error {
	if o.Logger == nil {
		o.Logger = WarningLog(os.Stderr)
	}
	switch {
	case o.WaitMax == 0:
		o.WaitMax = DefaultWait
	case o.WaitMax < MinWait:
		o.WaitMax = MinWait
	case o.WaitMax > MaxWait:
		o.WaitMax = MaxWait
	}
	if err := o.offer().CheckTools(knownTool); err != nil {
		return err
	}
	if err := o.checkConfirm(); err != nil {
		return err
	}
	if err := o.checkHosts(); err != nil {
		return err
	}
	return o.offer().CheckSets(knownTool)
}

// waitFor is the one rule of a wait's length, for every tool that waits: the duration asked
// (seconds or millis convert it), or dflt when none was asked (not positive), never above the
// wait ceiling. It never refuses.
func (s *Server) waitFor(d, dflt time.Duration) time.Duration {
	if d <= 0 {
		d = dflt
	}
	return min(d, s.opts.WaitMax)
}

// clampWait is waitFor without a default: a wait not asked for is none.
func (s *Server) clampWait(d time.Duration) time.Duration { return s.waitFor(d, 0) }

// seconds converts a wait asked in seconds, saturating: not positive (or NaN) is 0, more than
// MaxWait is MaxWait (a huge value would overflow a Duration).
func seconds(s float64) time.Duration {
	if s <= 0 || math.IsNaN(s) {
		return 0
	}
	if s > MaxWait.Seconds() {
		return MaxWait
	}
	return time.Duration(s * float64(time.Second))
}

// millis converts a wait asked in milliseconds, as seconds does.
func millis(ms int64) time.Duration {
	if ms <= 0 {
		return 0
	}
	return time.Duration(min(ms, MaxWait.Milliseconds())) * time.Millisecond
}

// WarningLog is a text log of warnings and errors on w, for Options.Logger.
func WarningLog(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
