package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/server"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// doctor prints what a person needs to check a set-up: the tmux binary, the locale, the socket,
// the servers it can reach, the caller pane and the tier. Every check runs the way the server
// runs tmux (same binary, socket and environment), so what it reports is what the server will
// see; it exits 1 when something would fail.
func doctor(ctx context.Context, srv *server.Server, st *settings, opts server.Options, sio IO) int {
	w := sio.Stdout
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	ok := doctorBinary(ctx, w, opts.TmuxBin, env)
	doctorLocale(w, env)
	ts := tmux.NewServer(tmux.Config{Bin: opts.TmuxBin, SocketName: opts.SocketName, SocketPath: opts.SocketPath, Env: env, Timeout: opts.TmuxTimeout})
	defer ts.Close()
	if label, path := st.socketLabel(), ts.SocketPath(); strings.Contains(label, path) {
		fmt.Fprintf(w, "socket:        %s\n", label)
	} else {
		fmt.Fprintf(w, "socket:        %s (%s)\n", label, path)
	}
	ok = doctorServer(ctx, w, srv, ts) && ok
	doctorMarks(ctx, w, ts, opts.ShellIntegration)
	servers, unreachable := srv.Servers(ctx)
	fmt.Fprintf(w, "live servers:  %d\n", len(servers))
	for _, s := range servers {
		name := s.SocketName
		if s.Host != nil {
			name = *s.Host + ": " + name
		}
		fmt.Fprintf(w, "  %-20s %s (%d sessions)\n", name, s.SocketPath, s.SessionCount)
	}
	for _, u := range unreachable {
		fmt.Fprintf(w, "host %s:  FAILS: %s\n", u.Host, u.Error)
		ok = false
	}
	if p, ok := lookup(sio.Env, "TMUX_PANE"); ok && p != "" {
		t, _ := lookup(sio.Env, "TMUX")
		fmt.Fprintf(w, "caller pane:   %s (TMUX=%s): tools refuse to kill it or type into it without force\n", p, t)
	} else {
		fmt.Fprintf(w, "caller pane:   none (not running inside tmux)\n")
	}
	fmt.Fprintf(w, "safety tier:   %s (%d tools offered)\n", opts.Safety, len(srv.Tools()))
	if opts.Toolsets != nil {
		fmt.Fprintf(w, "toolsets:      %s (LIBTMUX_TOOLSETS narrows the tier)\n", cmp.Or(strings.Join(opts.Toolsets, ", "), "none"))
	}
	if len(opts.ExcludeTools) > 0 {
		fmt.Fprintf(w, "excluded:      %s (LIBTMUX_EXCLUDE_TOOLS)\n", strings.Join(opts.ExcludeTools, ", "))
	}
	for _, n := range srv.Notes() {
		fmt.Fprintf(w, "warning:       %s\n", n)
	}
	if !ok {
		return 1
	}
	return 0
}

// doctorBinary runs tmux -V in the server's environment: a tmux that finds no UTF-8 locale
// refuses to start at all ("need UTF-8 locale").
func doctorBinary(ctx context.Context, w io.Writer, bin string, env []string) bool {
	path, _ := exec.LookPath(cmp.Or(bin, "tmux"))
	v, err := tmux.BinaryVersion(ctx, bin, env)
	if err != nil {
		fmt.Fprintf(w, "tmux binary:   %s: FAILS in the server's environment: %v\n", cmp.Or(bin, "tmux"), err)
		return false
	}
	fmt.Fprintf(w, "tmux binary:   %s (tmux %s)\n", path, v)
	return true
}

// doctorLocale says which locale the server's environment sets. The server does not depend on
// it (tmux runs with -u), but the shells of the sessions it starts inherit it.
func doctorLocale(w io.Writer, env []string) {
	var set []string
	ctype := ""
	for _, k := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v, ok := lookup(env, k); ok && v != "" {
			set = append(set, k+"="+v)
			if ctype == "" {
				ctype = v
			}
		}
	}
	desc := "none set"
	if len(set) > 0 {
		desc = strings.Join(set, " ")
	}
	u := strings.ToUpper(ctype)
	if strings.Contains(u, "UTF-8") || strings.Contains(u, "UTF8") {
		fmt.Fprintf(w, "locale:        %s (UTF-8)\n", desc)
		return
	}
	fmt.Fprintf(w, "locale:        %s (not UTF-8): fine for tmux-mcp, which runs tmux with -u, but the shells of sessions it starts get this locale too (zsh, for one, cannot edit typed non-ASCII text then): set LANG=C.UTF-8 in the server's environment if they need one\n", desc)
}

// doctorProbe is text that must come back from tmux byte for byte: non-ASCII, and the field
// separator the engine parses formats with.
const doctorProbe = "tmux-mcp é 日本 ␞"

// doctorServer says whether the server runs and checks that what tmux prints reaches the
// server unchanged, over control mode and through a spawned tmux.
func doctorServer(ctx context.Context, w io.Writer, srv *server.Server, ts *tmux.Server) bool {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	id, err := ts.Identity(ctx)
	switch {
	case errors.Is(err, tmux.ErrServerNotRunning):
		fmt.Fprintf(w, "server:        not running (create_session starts one)\n")
		return true
	case err != nil:
		fmt.Fprintf(w, "server:        FAILS: cannot reach it: %v\n", err)
		return false
	}
	ok := true
	for _, via := range []struct {
		name string
		run  func() ([]string, error)
	}{
		{"control mode", func() ([]string, error) {
			return ts.Echo(ctx, doctorProbe)
		}},
		{"spawned tmux", func() ([]string, error) { return ts.EchoSpawned(ctx, doctorProbe) }},
	} {
		out, err := via.run()
		switch {
		case err != nil:
			fmt.Fprintf(w, "server:        FAILS: a command through %s failed: %v\n", via.name, err)
			ok = false
		case len(out) != 1 || out[0] != doctorProbe:
			fmt.Fprintf(w, "server:        FAILS: %s returned %q for %q: names, titles and pane text would not read back as they are\n", via.name, out, doctorProbe)
			ok = false
		}
	}
	info, err := ts.Status(ctx)
	if err == nil && !info.Alive {
		_, err = ts.Snapshot(ctx, tmux.WithAll)
	}
	if err != nil || !info.Alive {
		fmt.Fprintf(w, "server:        FAILS: running (pid %d) but its state cannot be read: %v\n", id.PID, err)
		return false
	}
	fmt.Fprintf(w, "server:        running (pid %d, tmux %s, %s): %d sessions, %d windows, %d panes, %d attached terminal clients\n",
		info.PID, info.Version, info.SocketPath, info.Sessions, info.Windows, info.Panes, info.AttachedClients)
	return ok
}

// doctorMarks says which panes have shell-integration marks (list_commands needs them): those
// a tmux-mcp started with its integration, and those whose marks a tmux-mcp has seen (pane
// options it sets, so that another process of it knows).
func doctorMarks(ctx context.Context, w io.Writer, ts *tmux.Server, setting bool) {
	op := &tmux.PaneOptions{Names: []string{"@tmux_mcp_shell_integration", "@tmux_mcp_marks_seen"}}
	if err := ts.Do(ctx, op); err != nil {
		return
	}
	var marked []string
	none := 0
	for _, p := range op.Panes {
		switch integration, seen := p.Values[0], p.Values[1]; {
		case integration != "":
			marked = append(marked, fmt.Sprintf("%s (%s, tmux-mcp's integration)", p.Pane, integration))
		case seen != "":
			marked = append(marked, p.Pane+" (its prompt's own)")
		default:
			none++
		}
	}
	def := "off"
	if setting {
		def = "on"
	}
	fmt.Fprintf(w, "shell marks:   %d panes with OSC 133 marks for list_commands%s; %d without any seen (shell_integration on new panes, default %s: LIBTMUX_MCP_SHELL_INTEGRATION)\n",
		len(marked), listSuffix(marked), none, def)
}

func listSuffix(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return ": " + strings.Join(s, ", ")
}
