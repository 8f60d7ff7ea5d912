package cli

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/server"
	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

// settings are the command line's view of the configuration: every variable has a flag of the
// same meaning, and flags win.
type settings struct {
	socketName, socketPath, tmuxBin, safety, suppress, waitMax, tools, audit, pipeRoot string
	http, tokenFile                                                                    string
}

// envKeys maps each setting to its environment variable.
var envKeys = []struct {
	key, flag, usage string
	field            func(*settings) *string
}{
	{"LIBTMUX_SOCKET", "socket-name", "tmux socket name (tmux -L) for calls without socket_name", func(s *settings) *string { return &s.socketName }},
	{"LIBTMUX_SOCKET_PATH", "socket-path", "tmux socket path (tmux -S); a call's socket_name still wins", func(s *settings) *string { return &s.socketPath }},
	{"LIBTMUX_TMUX_BIN", "tmux-bin", "the tmux executable", func(s *settings) *string { return &s.tmuxBin }},
	{"LIBTMUX_SAFETY", "safety", "safety tier: readonly, mutating or destructive", func(s *settings) *string { return &s.safety }},
	{"LIBTMUX_SUPPRESS_HISTORY", "suppress-history", "default of run_command's suppress_history: 0 or 1", func(s *settings) *string { return &s.suppress }},
	{"LIBTMUX_MCP_WAIT_MAX_SECONDS", "wait-max-seconds", "ceiling of every blocking wait, 1..600", func(s *settings) *string { return &s.waitMax }},
	{"LIBTMUX_MCP_TOOLS", "tools", "comma list of the tools to offer (narrows the tier)", func(s *settings) *string { return &s.tools }},
	{"LIBTMUX_MCP_AUDIT", "audit", "audit log: stderr or a file path", func(s *settings) *string { return &s.audit }},
	{"LIBTMUX_MCP_PIPE_ROOT", "pipe-root", "pipe_pane writes only below this directory", func(s *settings) *string { return &s.pipeRoot }},
}

func lookup(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v, true
		}
	}
	return "", false
}

// addFlags registers the configuration flags, with the environment as defaults.
func addFlags(fs *flag.FlagSet, env []string) *settings {
	s := &settings{}
	for _, e := range envKeys {
		if e.flag == "" {
			continue
		}
		v, _ := lookup(env, e.key)
		fs.StringVar(e.field(s), e.flag, v, e.usage+" ("+e.key+")")
	}
	return s
}

// options turns settings into server options; warnings go to stderr, fatal problems are errors.
func (s *settings) options(env []string, version string, stderr io.Writer) (server.Options, error) {
	o := server.Options{Version: version, TmuxBin: s.tmuxBin, SocketName: s.socketName, SocketPath: s.socketPath, Audit: s.audit, PipeRoot: s.pipeRoot, Env: env}
	tier, ok := policy.ParseTier(s.safety)
	if !ok {
		fmt.Fprintf(stderr, "tmux-mcp: LIBTMUX_SAFETY=%q is not readonly, mutating or destructive; using readonly\n", s.safety)
	}
	o.Safety = tier
	switch s.suppress {
	case "", "1":
		o.SuppressHistory = true
	case "0":
	default:
		return o, fmt.Errorf("LIBTMUX_SUPPRESS_HISTORY must be unset, 0 or 1")
	}
	if s.waitMax != "" {
		f, err := strconv.ParseFloat(s.waitMax, 64)
		if err != nil || f != f {
			fmt.Fprintf(stderr, "tmux-mcp: LIBTMUX_MCP_WAIT_MAX_SECONDS=%q is not a number; using 30\n", s.waitMax)
		} else {
			if f < 1 || f > 600 {
				fmt.Fprintf(stderr, "tmux-mcp: LIBTMUX_MCP_WAIT_MAX_SECONDS=%s is outside 1..600; clamped\n", s.waitMax)
			}
			f = min(max(f, 1), 600)
			o.WaitMax = time.Duration(f * float64(time.Second))
		}
	}
	for _, t := range strings.Split(s.tools, ",") {
		if t = strings.TrimSpace(t); t != "" {
			o.Tools = append(o.Tools, t)
		}
	}
	return o, nil
}

// socketLabel describes the default socket for the start-up line.
func (o settings) socketLabel() string {
	switch {
	case o.socketName != "":
		return "-L " + o.socketName
	case o.socketPath != "":
		return "-S " + o.socketPath
	}
	return "tmux's default socket"
}
