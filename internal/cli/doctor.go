package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/server"
)

// doctor prints what a person needs to check a set-up: the tmux binary, the socket, the
// servers it can reach, the caller pane and the tier.
func doctor(ctx context.Context, srv *server.Server, st *settings, opts server.Options, sio IO) int {
	w := sio.Stdout
	status := 0
	bin := opts.TmuxBin
	if bin == "" {
		bin = "tmux"
	}
	path, _ := exec.LookPath(bin)
	v, err := exec.CommandContext(ctx, bin, "-V").Output()
	if err != nil {
		fmt.Fprintf(w, "tmux binary:   %s: cannot run: %v\n", bin, err)
		status = 1
	} else {
		fmt.Fprintf(w, "tmux binary:   %s (%s)\n", path, strings.TrimSpace(string(v)))
	}
	fmt.Fprintf(w, "socket:        %s\n", st.socketLabel())
	if res, err := srv.Call(ctx, "get_server_info", json.RawMessage("{}")); err == nil && !res.IsError {
		var info server.ServerInfo
		json.Unmarshal(res.StructuredContent.(json.RawMessage), &info)
		if info.IsAlive {
			fmt.Fprintf(w, "server:        running (pid %d, tmux %s, %s): %d sessions, %d windows, %d panes, %d attached terminal clients\n",
				info.PID, info.Version, info.SocketPath, info.SessionCount, info.WindowCount, info.PaneCount, info.AttachedClients)
		} else {
			fmt.Fprintf(w, "server:        not running (create_session starts one)\n")
		}
	}
	if res, err := srv.Call(ctx, "list_servers", json.RawMessage("{}")); err == nil && !res.IsError {
		var out struct{ Servers []server.ServerInfo }
		json.Unmarshal(res.StructuredContent.(json.RawMessage), &out)
		fmt.Fprintf(w, "live servers:  %d\n", len(out.Servers))
		for _, s := range out.Servers {
			fmt.Fprintf(w, "  %-20s %s (%d sessions)\n", s.SocketName, s.SocketPath, s.SessionCount)
		}
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
	return status
}
