package cli

import (
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/server"
	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

// Flags work before and after the subcommand and its arguments: `--safety destructive call …`
// used to start the stdio server, which read the empty stdin and exited 0 without a word.
func TestFlagsAroundTheSubcommand(t *testing.T) {
	tmx := testtmux.New(t)
	tmx.NewSession("s")
	env := append(tmx.Env, "LIBTMUX_SOCKET_PATH="+tmx.Socket)
	for _, args := range [][]string{
		{"--safety", "destructive", "call", "list_sessions"},
		{"call", "--safety", "destructive", "list_sessions"},
		{"call", "list_sessions", "{}", "--safety", "destructive"},
		{"--safety=readonly", "call", "list_sessions", "--tools", "list_sessions"},
	} {
		code, out, errs := runCLI(t, env, args...)
		if code != 0 || !strings.Contains(out, `"session_name": "s"`) || strings.Contains(errs, "serving MCP") {
			t.Errorf("%q: %d stdout=%q stderr=%q", args, code, out, errs)
		}
	}
	if code, out, _ := runCLI(t, env, "--safety", "readonly", "tools"); code != 0 || strings.Contains(out, "create_session") {
		t.Errorf("--safety before tools: %d\n%s", code, out)
	}
	// After "--" everything is an argument.
	if code, _, errs := runCLI(t, env, "call", "--", "--safety"); code != 2 || !strings.Contains(errs, `"--safety"`) {
		t.Errorf("call -- --safety: %d %q", code, errs)
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"doctor", "extra"}, "takes no arguments"},
		{[]string{"--http", "127.0.0.1:0", "tools"}, "--http is a flag of serve"},
		{[]string{"doctor", "--token-file", "x"}, "--token-file is a flag of serve"},
		{[]string{"tools", "--no-such-flag"}, "flag provided but not defined"},
	} {
		if code, _, errs := runCLI(t, env, c.args...); code != 2 || !strings.Contains(errs, c.says) {
			t.Errorf("%q: %d %q, want %q", c.args, code, errs, c.says)
		}
	}
}

func toolNames(out string) []string {
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	return names
}

// LIBTMUX_TOOLSETS and LIBTMUX_EXCLUDE_TOOLS narrow the tier, as flags too, and flags win.
func TestToolsetsAndExclusions(t *testing.T) {
	code, out, _ := runCLI(t, []string{"LIBTMUX_TOOLSETS=inspect", "LIBTMUX_SAFETY=destructive"}, "tools")
	names := toolNames(out)
	readonly := 0
	for _, tl := range server.Catalog() {
		if tl.Tier == policy.ReadOnly {
			readonly++
		}
	}
	if code != 0 || len(names) != readonly || strings.Contains(out, "pipe_pane") || !strings.Contains(out, "capture_pane") {
		t.Fatalf("LIBTMUX_TOOLSETS=inspect: %d %d tools\n%s", code, len(names), out)
	}
	_, out, _ = runCLI(t, []string{"LIBTMUX_TOOLSETS=teardown"}, "tools", "--toolsets", "manage,execute", "--exclude-tools", "pipe_pane,send_keys")
	if !strings.Contains(out, "run_shell_command") || !strings.Contains(out, "rename_window") || strings.Contains(out, "pipe_pane") ||
		strings.Contains(out, "send_keys ") || strings.Contains(out, "clear_pane") || strings.Contains(out, "list_sessions") {
		t.Fatalf("--toolsets manage,execute --exclude-tools pipe_pane,send_keys:\n%s", out)
	}
	if code, out, _ := runCLI(t, []string{"LIBTMUX_TOOLSETS="}, "tools"); code != 0 || out != "" {
		t.Fatalf("empty LIBTMUX_TOOLSETS offers no tool: %d\n%s", code, out)
	}
	if code, out, _ := runCLI(t, []string{"LIBTMUX_TOOLSETS=inspect"}, "tools", "--toolsets="); code != 0 || out != "" {
		t.Fatalf("empty --toolsets offers no tool: %d\n%s", code, out)
	}
	for _, env := range []string{"LIBTMUX_TOOLSETS=inspect,read", "LIBTMUX_EXCLUDE_TOOLS=nope"} {
		if code, _, errs := runCLI(t, []string{env}, "tools"); code != 2 || !strings.Contains(errs, "is not a") {
			t.Errorf("%s: %d %q", env, code, errs)
		}
	}
}

// A tool that LIBTMUX_MCP_TOOLS names above the tier is reported at start-up (stderr) and by
// doctor; calling a tool above the tier names the setting that offers it.
func TestToolsAboveTheTierAreReported(t *testing.T) {
	env := []string{"LIBTMUX_MCP_TOOLS=list_sessions,kill_server", "LIBTMUX_SOCKET=tmux-mcp-cli-test-none"}
	code, out, errs := runCLI(t, env, "tools")
	if code != 0 || strings.TrimSpace(out) == "" || !strings.Contains(errs, "LIBTMUX_MCP_TOOLS names kill_server") || !strings.Contains(errs, "--safety destructive") {
		t.Fatalf("tools: %d %q\n%s", code, errs, out)
	}
	if _, out, _ := runCLI(t, env, "doctor"); !strings.Contains(out, "warning:       LIBTMUX_MCP_TOOLS names kill_server") {
		t.Fatalf("doctor:\n%s", out)
	}
	if code, _, errs := runCLI(t, []string{"LIBTMUX_SOCKET=tmux-mcp-cli-test-none"}, "call", "kill_server"); code != 2 ||
		!strings.Contains(errs, "LIBTMUX_SAFETY=destructive or --safety destructive") {
		t.Fatalf("call above the tier: %d %q", code, errs)
	}
	if code, _, errs := runCLI(t, []string{"LIBTMUX_SOCKET=tmux-mcp-cli-test-none", "LIBTMUX_TOOLSETS=inspect"}, "call", "pipe_pane", `{}`); code != 2 ||
		!strings.Contains(errs, "LIBTMUX_TOOLSETS (--toolsets)") {
		t.Fatalf("call outside the toolsets: %d %q", code, errs)
	}
}

// The host settings: LIBTMUX_MCP_HOSTS pairs, the default host, the ssh config and connect
// timeout, as variables and flags (flags win); bad values stop the start with the setting named.
func TestHostSettings(t *testing.T) {
	tmx := testtmux.New(t)
	env := append(tmx.Env, "LIBTMUX_SOCKET_PATH="+tmx.Socket, "LIBTMUX_MCP_HOSTS=build=me@build.example, gpu=ssh://me@gpu:2222")
	code, out, errs := runCLI(t, env, "--default-host", "gpu", "call", "list_sessions", `{"host":"nowhere"}`)
	if code != 1 || !strings.Contains(out+errs, "is not configured") || !strings.Contains(out+errs, "build, gpu, local") {
		t.Errorf("unknown host: %d %q %q", code, out, errs)
	}
	for _, c := range []struct {
		env  []string
		args []string
		says string
	}{
		{[]string{"LIBTMUX_MCP_HOSTS=build"}, nil, "is not name=destination"},
		{[]string{"LIBTMUX_MCP_HOSTS=a=-oProxyCommand=x"}, nil, "read as an option"},
		{[]string{"LIBTMUX_MCP_HOSTS=a=x", "LIBTMUX_MCP_DEFAULT_HOST=b"}, nil, "LIBTMUX_MCP_DEFAULT_HOST"},
		{[]string{"LIBTMUX_MCP_HOSTS=a=x"}, []string{"--ssh-connect-timeout", "0"}, "LIBTMUX_MCP_SSH_CONNECT_TIMEOUT"},
	} {
		code, out, errs := runCLI(t, append(append([]string{}, tmx.Env...), c.env...), append(c.args, "tools")...)
		if code == 0 || !strings.Contains(out+errs, c.says) {
			t.Errorf("%v %v: %d %q %q, want %q", c.env, c.args, code, out, errs, c.says)
		}
	}
}
