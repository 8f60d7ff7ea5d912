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
	toolsets, exclude                                                                  string
	hosts, defaultHost, sshConfig, sshConnectTimeout                                   string
	http, tokenFile, maxSessions, sessionIdle                                          string
	allowWatched                                                                       string
	shellIntegration, secrets, confirm                                                 string
	// toolsetsGiven says LIBTMUX_TOOLSETS or --toolsets was given: an empty list offers no
	// toolset, as in the libtmux servers, where an unset one offers all.
	toolsetsGiven bool
}

// envKeys maps each setting to its flag and environment variable (none for key "").
var envKeys = []struct {
	key, flag, usage string
	field            func(*settings) *string
	serveOnly        bool // a setting of serve, refused with the other commands
}{
	{"LIBTMUX_SOCKET", "socket-name", "tmux socket name (tmux -L) for calls without socket_name", func(s *settings) *string { return &s.socketName }, false},
	{"LIBTMUX_SOCKET_PATH", "socket-path", "tmux socket path (tmux -S); a call's socket_name still wins", func(s *settings) *string { return &s.socketPath }, false},
	{"LIBTMUX_TMUX_BIN", "tmux-bin", "the tmux executable", func(s *settings) *string { return &s.tmuxBin }, false},
	{"LIBTMUX_SAFETY", "safety", "safety tier: readonly, mutating or destructive", func(s *settings) *string { return &s.safety }, false},
	{"LIBTMUX_SUPPRESS_HISTORY", "suppress-history", "default of run_command's suppress_history: 0 or 1", func(s *settings) *string { return &s.suppress }, false},
	{"LIBTMUX_MCP_WAIT_MAX_SECONDS", "wait-max-seconds", "ceiling of every blocking wait, 1..600", func(s *settings) *string { return &s.waitMax }, false},
	{"LIBTMUX_MCP_TOOLS", "tools", "comma list of the tools to offer (narrows the tier)", func(s *settings) *string { return &s.tools }, false},
	{"LIBTMUX_TOOLSETS", "toolsets", "comma list of the toolsets to offer: inspect, manage, execute, teardown (narrows the tier; empty: none)", func(s *settings) *string { return &s.toolsets }, false},
	{"LIBTMUX_EXCLUDE_TOOLS", "exclude-tools", "comma list of tools never to offer, nor to call in a batch", func(s *settings) *string { return &s.exclude }, false},
	{"LIBTMUX_MCP_AUDIT", "audit", "audit log: stderr or a file path", func(s *settings) *string { return &s.audit }, false},
	{"LIBTMUX_MCP_PIPE_ROOT", "pipe-root", "pipe_pane writes only below this directory", func(s *settings) *string { return &s.pipeRoot }, false},
	{"LIBTMUX_MCP_ALLOW_WATCHED", "allow-watched", "1: runs may type into panes a person has on screen (0, the default: refused)", func(s *settings) *string { return &s.allowWatched }, false},
	{"LIBTMUX_MCP_SHELL_INTEGRATION", "shell-integration", "default of shell_integration when a tool starts a pane's shell: 0 (the default) or 1", func(s *settings) *string { return &s.shellIntegration }, false},
	{"LIBTMUX_MCP_SECRETS", "secrets", "ask (the default): a run waiting for a password has the person type it on a one-time page (URL elicitation); off: it does not", func(s *settings) *string { return &s.secrets }, false},
	{"LIBTMUX_MCP_CONFIRM", "confirm", "comma list of tiers or tools whose calls first ask the person (form elicitation)", func(s *settings) *string { return &s.confirm }, false},
	{"LIBTMUX_MCP_HOSTS", "hosts", "other hosts to reach over ssh: comma list of name=destination (user@host, an ssh config alias, ssh://user@host:port)", func(s *settings) *string { return &s.hosts }, false},
	{"LIBTMUX_MCP_DEFAULT_HOST", "default-host", "host of calls without one (the seeded tools included): a name from --hosts, or local", func(s *settings) *string { return &s.defaultHost }, false},
	{"LIBTMUX_MCP_SSH_CONFIG", "ssh-config", "ssh client config file for the hosts (ssh -F); default: the user's ~/.ssh/config", func(s *settings) *string { return &s.sshConfig }, false},
	{"LIBTMUX_MCP_SSH_CONNECT_TIMEOUT", "ssh-connect-timeout", "seconds to wait for a host's TCP connection (ssh -o ConnectTimeout), default 10", func(s *settings) *string { return &s.sshConnectTimeout }, false},
	{"", "http", "serve streamable HTTP on this address (e.g. 127.0.0.1:8765) instead of stdio", func(s *settings) *string { return &s.http }, true},
	{"", "token-file", "file holding the HTTP bearer token (else TMUX_MCP_TOKEN, else one is generated)", func(s *settings) *string { return &s.tokenFile }, true},
	{"TMUX_MCP_HTTP_MAX_SESSIONS", "http-max-sessions", "HTTP sessions held at once; a new one closes the longest idle", func(s *settings) *string { return &s.maxSessions }, true},
	{"TMUX_MCP_HTTP_SESSION_IDLE", "http-session-idle", "close an HTTP session after this long without a request (e.g. 30m; 0: never)", func(s *settings) *string { return &s.sessionIdle }, true},
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
		v, usage := "", e.usage
		if e.key != "" {
			v, _ = lookup(env, e.key)
			usage += " (" + e.key + ")"
		}
		fs.StringVar(e.field(s), e.flag, v, usage)
	}
	_, s.toolsetsGiven = lookup(env, "LIBTMUX_TOOLSETS")
	return s
}

// parseArgs parses flags wherever they stand, before or after the subcommand and its arguments
// (the flag package alone stops at the first argument), and returns the arguments. After "--"
// everything is an argument. It then checks that serve's own flags came with serve.
func parseArgs(fs *flag.FlagSet, st *settings, args []string) (cmd string, rest []string, err error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return "", nil, err
		}
		left := fs.Args()
		if len(left) == 0 {
			break
		}
		if n := len(args) - len(left); n > 0 && args[n-1] == "--" {
			pos = append(pos, left...)
			break
		}
		pos, args = append(pos, left[0]), left[1:]
	}
	cmd = "serve"
	if len(pos) > 0 {
		cmd, pos = pos[0], pos[1:]
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "toolsets" {
			st.toolsetsGiven = true
		}
		for _, e := range envKeys {
			if e.flag == f.Name && e.serveOnly && cmd != "serve" && err == nil {
				err = misuseError(fmt.Sprintf("--%s is a flag of serve, not of %s", f.Name, cmd))
			}
		}
	})
	return cmd, pos, err
}

// misuseError is a wrong command line that the flag package has not reported.
type misuseError string

func (e misuseError) Error() string { return string(e) }

// list splits a comma list, dropping blanks.
func list(s string) []string {
	var out []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// options turns settings into server options; warnings go to stderr, fatal problems are errors.
func (s *settings) options(env []string, version string, stderr io.Writer) (server.Options, error) {
	o := server.Options{Version: version, TmuxBin: s.tmuxBin, SocketName: s.socketName, SocketPath: s.socketPath, Audit: s.audit, PipeRoot: s.pipeRoot, Env: env,
		Logger: server.WarningLog(stderr)}
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
	o.Tools = list(s.tools)
	if s.toolsetsGiven {
		o.Toolsets = list(strings.ToLower(s.toolsets))
		if o.Toolsets == nil {
			o.Toolsets = []string{}
		}
	}
	o.ExcludeTools = list(s.exclude)
	if err := s.switchOptions(&o); err != nil {
		return o, err
	}
	o.Confirm = list(strings.ToLower(s.confirm))
	if err := s.hostOptions(&o); err != nil {
		return o, err
	}
	return o, nil
}

// switchOptions reads the settings that are a switch or a word: each takes only its listed values.
func (s *settings) switchOptions(o *server.Options) error {
	switch s.allowWatched {
	case "", "0":
	case "1":
		o.AllowWatched = true
	default:
		return fmt.Errorf("LIBTMUX_MCP_ALLOW_WATCHED must be unset, 0 or 1")
	}
	switch s.shellIntegration {
	case "", "0":
	case "1":
		o.ShellIntegration = true
	default:
		return fmt.Errorf("LIBTMUX_MCP_SHELL_INTEGRATION must be unset, 0 or 1")
	}
	switch s.secrets {
	case "", "ask", "off":
		o.Secrets = s.secrets
	default:
		return fmt.Errorf("LIBTMUX_MCP_SECRETS must be ask or off, not %q", s.secrets)
	}
	return nil
}

// hostOptions reads the host settings: LIBTMUX_MCP_HOSTS is a comma list of name=destination
// (a destination holds no comma: ssh takes none); the server checks names and destinations.
func (s *settings) hostOptions(o *server.Options) error {
	for _, item := range list(s.hosts) {
		name, dest, ok := strings.Cut(item, "=")
		if !ok {
			return fmt.Errorf("LIBTMUX_MCP_HOSTS: %q is not name=destination (e.g. build=me@build.example)", item)
		}
		o.Hosts = append(o.Hosts, server.HostConfig{Name: strings.TrimSpace(name), Destination: strings.TrimSpace(dest)})
	}
	o.DefaultHost = strings.TrimSpace(s.defaultHost)
	o.SSHConfig = s.sshConfig
	if s.sshConnectTimeout != "" {
		f, err := strconv.ParseFloat(s.sshConnectTimeout, 64)
		if err != nil || !(f > 0 && f <= 600) {
			return fmt.Errorf("LIBTMUX_MCP_SSH_CONNECT_TIMEOUT=%q must be a number of seconds, above 0 and at most 600", s.sshConnectTimeout)
		}
		o.SSHConnectTimeout = time.Duration(f * float64(time.Second))
	}
	return nil
}

// socketLabel describes the default socket (and host) for the start-up line.
func (o settings) socketLabel() string {
	if h := strings.TrimSpace(o.defaultHost); h != "" && h != server.LocalHost {
		sock := "tmux's default socket"
		if o.socketName != "" {
			sock = "-L " + o.socketName
		}
		return sock + " on host " + h
	}
	switch {
	case o.socketName != "":
		return "-L " + o.socketName
	case o.socketPath != "":
		return "-S " + o.socketPath
	}
	return "tmux's default socket"
}
