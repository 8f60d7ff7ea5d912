package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/filter"
	"github.com/tmux-mcp/tmux-mcp/server/policy"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/format"
)

// inventoryTools: listing and creating servers, sessions, windows and panes.
func inventoryTools() []*Tool {
	return []*Tool{
		define(spec{Name: "list_servers", Title: "List tmux Servers", Tier: policy.ReadOnly, Ann: annRO,
			Description: "List this user's live tmux servers, then extra_socket_paths.",
			HostsNote:   "Then those of every configured host (host says where; an unreachable host is in unreachable_hosts)."},
			listServers),
		define(spec{Name: "list_sessions", Title: "List tmux Sessions", Tier: policy.ReadOnly, Ann: annRO,
			Description: "List sessions: ids, names, window counts, attached clients, active window and pane.",
			Input:       edits(objectOrJSON("filters", filtersDesc))},
			listSessions),
		define(spec{Name: "get_server_info", Title: "Get tmux Server Info", Tier: policy.ReadOnly, Ann: annRO,
			Description: "Whether tmux runs on the socket: version, pid, session/window/pane/client counts. Never starts one."},
			getServerInfo),
		define(spec{Name: "create_session", Title: "Create tmux Session", Tier: policy.Mutating, Toolsets: []string{policy.Execute}, Ann: annCREATE,
			Description: "Create a detached session (starting tmux if needed); its active_pane_id is ready for run_shell_command.",
			Input:       edits(objectOrJSON("environment", envDesc), def("suppress_persistent_history", false), minimum("x", 1), minimum("y", 1))},
			createSession),
		define(spec{Name: "list_windows", Title: "List tmux Windows", Tier: policy.ReadOnly, Ann: annRO,
			Description: "List windows of a session, else all: layout, size, active pane.",
			Input:       edits(objectOrJSON("filters", filtersDesc))},
			listWindows),
		define(spec{Name: "get_session_info", Title: "Get tmux Session Info", Tier: policy.ReadOnly, Ann: annRO,
			Description: "Describe a session and its windows."},
			getSessionInfo),
		define(spec{Name: "create_window", Title: "Create tmux Window", Tier: policy.Mutating, Toolsets: []string{policy.Execute}, Ann: annCREATE,
			Description: "Create a window in a session, detached unless attach: at the next free index, or next to the current one.",
			Input:       edits(objectOrJSON("environment", envDesc), def("suppress_persistent_history", false), def("attach", false), enum("direction", "before", "after"))},
			createWindow),
		define(spec{Name: "list_panes", Title: "List tmux Panes", Tier: policy.ReadOnly, Ann: annRO,
			Description: "List panes of a window, else a session, else all, with get_pane_info's fields.",
			Input:       edits(objectOrJSON("filters", filtersDesc))},
			listPanes),
		define(spec{Name: "get_window_info", Title: "Get tmux Window Info", Tier: policy.ReadOnly, Ann: annRO,
			Description: "Describe a window and its panes."},
			getWindowInfo),
		define(spec{Name: "get_pane_info", Title: "Get tmux Pane Info", Tier: policy.ReadOnly, Ann: annRO,
			Description: "Describe a pane: geometry, tty, command, path, pid, title, flags; is_caller: this server's; is_watched: on a person's screen."},
			getPaneInfo),
		define(spec{Name: "split_window", Title: "Split tmux Window", Tier: policy.Mutating, Toolsets: []string{policy.Execute}, Ann: annCREATE,
			Description: "Split a pane into a new detached pane, optionally sized and running shell.",
			Input:       edits(objectOrJSON("environment", envDesc), def("suppress_persistent_history", false), enum("direction", "above", "below", "left", "right"), def("direction", "below"), oneOfTypes("size", "string", "integer"))},
			splitWindow),
	}
}

const (
	// filtersDesc is short: the handshake instructions list the ops once, for the three tools.
	filtersDesc = "ANDed {field[__op]: value}; ops: see the instructions"
	envDesc     = "An object of strings, or its JSON"
)

// ---- list_servers

type listServersIn struct {
	ExtraSocketPaths []string `json:"extra_socket_paths,omitempty"`
}

type listServersOut struct {
	Servers []ServerInfo `json:"servers"`

	// Only when hosts are configured (hostOnly).
	Unreachable []hostFailure `json:"unreachable_hosts,omitempty" jsonschema:"configured hosts that could not be listed, with ssh's or the host's message"`
}

func listServers(ctx context.Context, c *Call, in *listServersIn) (listServersOut, error) {
	out := listServersOut{Servers: []ServerInfo{}}
	dir := filepath.Join(c.srv.env("TMUX_TMPDIR", "/tmp"), fmt.Sprintf("tmux-%d", os.Getuid()))
	var paths []string
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if e.Type()&os.ModeSocket != 0 {
				paths = append(paths, filepath.Join(dir, e.Name()))
			}
		}
	}
	sort.Strings(paths)
	for _, p := range in.ExtraSocketPaths {
		if strings.ContainsRune(p, 0) || p == "" {
			return out, fail("Pass absolute paths of tmux sockets.", "extra_socket_paths holds an empty path or a NUL byte")
		}
	}
	paths = append(paths, in.ExtraSocketPaths...)
	for _, p := range paths {
		conn, err := net.DialTimeout("unix", p, 100*time.Millisecond)
		if err != nil {
			continue // stale or not a socket
		}
		conn.Close()
		ts := tmux.NewServer(tmux.Config{Bin: c.srv.opts.TmuxBin, SocketPath: p, Env: c.srv.opts.Env, Timeout: time.Second})
		info, _ := serverInfo(ctx, c, ts, filepath.Base(p), p)
		ts.Close()
		if info.IsAlive {
			out.Servers = append(out.Servers, info)
		}
	}
	if len(c.srv.hosts) > 0 {
		servers, failed := c.listHosts(ctx)
		out.Servers = append(out.Servers, servers...)
		out.Unreachable = failed
	}
	return out, nil
}

// env reads a variable from the configured environment.
func (s *Server) env(key, def string) string {
	env := s.opts.Env
	if env == nil {
		env = os.Environ()
	}
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok && v != "" {
			return v
		}
	}
	return def
}

// ---- get_server_info

type socketOnly struct {
	Socket
}

func getServerInfo(ctx context.Context, c *Call, in *socketOnly) (ServerInfo, error) {
	ts, err := c.tmuxFor(in.SocketName)
	if err != nil {
		return ServerInfo{}, err
	}
	cfg := ts.Config()
	name := cfg.SocketName
	if name == "" && cfg.SocketPath == "" {
		name = "default"
	}
	return serverInfo(ctx, c, ts, name, cfg.SocketPath)
}

// serverInfo describes the server ts; it fails only when its host cannot be reached (on this
// machine, a server that does not answer is simply not alive).
func serverInfo(ctx context.Context, c *Call, ts *tmux.Server, name, path string) (ServerInfo, error) {
	info := ServerInfo{SocketName: name, SocketPath: path, Host: c.srv.hostLabel(ts)}
	if path == "" && ts.Local() {
		info.SocketPath = filepath.Join(c.srv.env("TMUX_TMPDIR", "/tmp"), fmt.Sprintf("tmux-%d", os.Getuid()), name)
	}
	out, err := ts.Query(ctx, []string{"display-message", "-p", "#{pid} #{version} #{socket_path}"})
	if he := (*tmux.HostError)(nil); errors.As(err, &he) {
		return info, err
	}
	if err != nil || len(out[0]) == 0 {
		if ts.Local() {
			info.Version = binaryVersion(ctx, c.srv.opts.TmuxBin)
		}
		return info, nil
	}
	f := strings.SplitN(out[0][0], " ", 3)
	if len(f) == 3 {
		info.PID, _ = strconv.Atoi(f[0])
		info.Version = f[1]
		info.SocketPath = f[2]
	}
	snap, err := ts.Snapshot(ctx, tmux.WithAll)
	if err != nil {
		return info, nil
	}
	info.IsAlive = true
	info.SessionCount = len(snap.Sessions)
	info.WindowCount = len(snap.Windows)
	info.PaneCount = len(snap.Panes)
	for _, cl := range snap.Clients {
		if !cl.ControlMode {
			info.AttachedClients++
		}
	}
	return info, nil
}

func binaryVersion(ctx context.Context, bin string) string {
	if bin == "" {
		bin = "tmux"
	}
	b, err := exec.CommandContext(ctx, bin, "-V").Output()
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(strings.TrimSpace(string(b)), "tmux ")
}

// ---- list_sessions

// parseFilters reads a filters argument (an object, a JSON string of one, or null) against the
// fields of model's JSON form.
func parseFilters(arg any, model any) ([]filter.Filter, error) {
	m, err := objectArg("filters", arg, `{"session_name__startswith": "dev"}`)
	if err != nil {
		return nil, err
	}
	return filter.Parse(m, model)
}

type listIn struct {
	Filters any `json:"filters,omitempty"`
	Socket
}

type listSessionsOut struct {
	Sessions []tmux.Session `json:"sessions"`
}

func listSessions(ctx context.Context, c *Call, in *listIn) (listSessionsOut, error) {
	fs, err := parseFilters(in.Filters, tmux.Session{})
	if err != nil {
		return listSessionsOut{}, err
	}
	ts, err := c.tmuxFor(in.SocketName)
	if err != nil {
		return listSessionsOut{}, err
	}
	snap, err := ts.Snapshot(ctx, tmux.WithSessions|tmux.WithClients)
	if err != nil {
		if errors.Is(err, tmux.ErrServerNotRunning) && in.SocketName == nil {
			// The default server simply has no sessions yet; a named socket must exist.
			return listSessionsOut{Sessions: []tmux.Session{}}, nil
		}
		return listSessionsOut{}, err
	}
	return listSessionsOut{Sessions: filter.Apply(fs, snap.Sessions)}, nil
}

// ---- create_session

type createSessionIn struct {
	SessionName               *string `json:"session_name,omitempty" jsonschema:"Unique; no ':' or '.'"`
	WindowName                *string `json:"window_name,omitempty"`
	StartDirectory            *string `json:"start_directory,omitempty"`
	X                         *int    `json:"x,omitempty" jsonschema:"Width (cells)"`
	Y                         *int    `json:"y,omitempty" jsonschema:"Height (cells)"`
	Environment               any     `json:"environment,omitempty"`
	SuppressPersistentHistory bool    `json:"suppress_persistent_history,omitempty"`
	ShellIntegration          *bool   `json:"shell_integration,omitempty"`
	Socket
}

func createSession(ctx context.Context, c *Call, in *createSessionIn) (tmux.Session, error) {
	if err := errors.Join(checkSessionName(in.SessionName), checkWindowName("window_name", in.WindowName), checkDir(in.StartDirectory)); err != nil {
		return tmux.Session{}, err
	}
	if err := errors.Join(checkSize("x", in.X), checkSize("y", in.Y)); err != nil {
		return tmux.Session{}, err
	}
	envArgs, err := spawnEnv(in.Environment, in.SuppressPersistentHistory)
	if err != nil {
		return tmux.Session{}, err
	}
	ts, err := c.tmuxFor(in.SocketName)
	if err != nil {
		return tmux.Session{}, err
	}
	args := []string{"new-session", "-d", "-P", "-F", "#{session_id}"}
	if in.SessionName != nil {
		args = append(args, "-s", format.Escape(*in.SessionName))
	}
	if in.WindowName != nil {
		args = append(args, "-n", format.Escape(*in.WindowName))
	}
	if in.StartDirectory != nil {
		args = append(args, "-c", format.Escape(*in.StartDirectory))
	}
	if in.X != nil {
		args = append(args, "-x", strconv.Itoa(*in.X))
	}
	if in.Y != nil {
		args = append(args, "-y", strconv.Itoa(*in.Y))
	}
	args = append(args, envArgs...)
	l, err := c.integration(ctx, ts, in.ShellIntegration, nil, envArgs)
	if err != nil {
		return tmux.Session{}, err
	}
	if l != nil {
		args = append(args, placeholder...)
	}
	// Spawned, not over control mode: new-session may have to start the server.
	out, err := ts.Spawn(ctx, nil, args...)
	if err != nil {
		var ce *tmux.CommandError
		if errors.As(err, &ce) && strings.Contains(ce.Message, "duplicate session") {
			return tmux.Session{}, fail("Choose another session_name, or use the existing session (list_sessions).", "a session named %q already exists", str(in.SessionName))
		}
		return tmux.Session{}, err
	}
	if len(out) == 0 {
		return tmux.Session{}, fmt.Errorf("new-session printed no session id")
	}
	markCreated(ctx, ts, out[0])
	c.srv.kickTopology(c.host, in.SocketName)
	if l != nil {
		pane, err := activePane(ctx, ts, out[0]+":")
		if err == nil {
			err = c.startIntegrated(ctx, ts, pane, l, in.StartDirectory)
		}
		if err != nil {
			return tmux.Session{}, fmt.Errorf("session %s was made, but starting its shell with shell_integration failed: %w", out[0], err)
		}
	}
	return findSession(ctx, ts, out[0])
}

func findSession(ctx context.Context, ts *tmux.Server, id string) (tmux.Session, error) {
	snap, err := ts.Snapshot(ctx, tmux.WithSessions|tmux.WithClients)
	if err != nil {
		return tmux.Session{}, err
	}
	for _, s := range snap.Sessions {
		if s.SessionID == id {
			return s, nil
		}
	}
	return tmux.Session{}, fmt.Errorf("session %s: %w", id, tmux.ErrNotFound)
}

// ---- list_windows

type listWindowsIn struct {
	SessionTarget
	Filters any `json:"filters,omitempty"`
	Socket
}

type listWindowsOut struct {
	Windows []tmux.Window `json:"windows"`
}

func listWindows(ctx context.Context, c *Call, in *listWindowsIn) (listWindowsOut, error) {
	fs, err := parseFilters(in.Filters, tmux.Window{})
	if err != nil {
		return listWindowsOut{}, err
	}
	if err := checkIDs(nil, nil, in.SessionID); err != nil {
		return listWindowsOut{}, err
	}
	_, snap, err := c.snapshot(ctx, in.SocketName)
	if err != nil {
		return listWindowsOut{}, err
	}
	windows := snap.Windows
	if in.SessionID != nil || in.SessionName != nil {
		sess, err := resolveSession(snap, in.SessionID, in.SessionName)
		if err != nil {
			return listWindowsOut{}, err
		}
		windows = snap.SessionWindows(sess.SessionID)
	}
	if windows == nil {
		windows = []tmux.Window{}
	}
	return listWindowsOut{Windows: filter.Apply(fs, windows)}, nil
}

// ---- get_session_info

// sessionIn names a session as SessionTarget does, in the order libtmux-mcp advertises
// get_session_info's arguments (session_id first).
type sessionIn struct {
	SessionID   *string `json:"session_id,omitempty"`
	SessionName *string `json:"session_name,omitempty"`
	Socket
}

type sessionInfoOut struct {
	tmux.Session
	Windows []tmux.Window `json:"windows"`
}

func getSessionInfo(ctx context.Context, c *Call, in *sessionIn) (sessionInfoOut, error) {
	t, err := c.sessionWith(ctx, in.SessionID, in.SessionName, in.SocketName, readWindows)
	if err != nil {
		return sessionInfoOut{}, err
	}
	return sessionInfoOut{Session: t.session, Windows: t.snap.SessionWindows(t.session.SessionID)}, nil
}

// ---- create_window

type createWindowIn struct {
	SessionTarget
	WindowName                *string `json:"window_name,omitempty"`
	StartDirectory            *string `json:"start_directory,omitempty"`
	Attach                    bool    `json:"attach,omitempty"`
	Direction                 *string `json:"direction,omitempty"`
	Environment               any     `json:"environment,omitempty"`
	SuppressPersistentHistory bool    `json:"suppress_persistent_history,omitempty"`
	ShellIntegration          *bool   `json:"shell_integration,omitempty"`
	Socket
}

func createWindow(ctx context.Context, c *Call, in *createWindowIn) (tmux.Window, error) {
	if err := errors.Join(checkWindowName("window_name", in.WindowName), checkDir(in.StartDirectory)); err != nil {
		return tmux.Window{}, err
	}
	envArgs, err := spawnEnv(in.Environment, in.SuppressPersistentHistory)
	if err != nil {
		return tmux.Window{}, err
	}
	t, err := c.session(ctx, in.SessionID, in.SessionName, in.SocketName)
	if err != nil {
		return tmux.Window{}, err
	}
	args := []string{"new-window", "-P", "-F", "#{window_id}"}
	if !in.Attach {
		args = append(args, "-d")
	}
	target := t.session.SessionID + ":"
	switch str(in.Direction) {
	case "after":
		args = append(args, "-a")
		target = t.session.ActiveWindowID
	case "before":
		args = append(args, "-b")
		target = t.session.ActiveWindowID
	}
	args = append(args, "-t", target)
	if in.WindowName != nil {
		args = append(args, "-n", format.Escape(*in.WindowName))
	}
	if in.StartDirectory != nil {
		args = append(args, "-c", format.Escape(*in.StartDirectory))
	}
	args = append(args, envArgs...)
	l, err := c.integration(ctx, t.ts, in.ShellIntegration, nil, envArgs)
	if err != nil {
		return tmux.Window{}, err
	}
	if l != nil {
		args = append(args, placeholder...)
	}
	out, err := t.ts.Command(ctx, args...)
	if err != nil {
		return tmux.Window{}, err
	}
	if len(out) == 0 {
		return tmux.Window{}, fmt.Errorf("new-window printed no window id")
	}
	markCreated(ctx, t.ts, out[0])
	if l != nil {
		pane, err := activePane(ctx, t.ts, out[0])
		if err == nil {
			err = c.startIntegrated(ctx, t.ts, pane, l, in.StartDirectory)
		}
		if err != nil {
			return tmux.Window{}, fmt.Errorf("window %s was made, but starting its shell with shell_integration failed: %w", out[0], err)
		}
	}
	return findWindowNow(ctx, t.ts, out[0])
}

func findWindowNow(ctx context.Context, ts *tmux.Server, id string) (tmux.Window, error) {
	snap, err := ts.Snapshot(ctx, tmux.WithWindows)
	if err != nil {
		return tmux.Window{}, err
	}
	if w, ok := findWindow(snap, id); ok {
		return w, nil
	}
	return tmux.Window{}, fmt.Errorf("window %s: %w", id, tmux.ErrNotFound)
}

// ---- list_panes

type listPanesIn struct {
	WindowTarget
	Filters any `json:"filters,omitempty"`
	Socket
}

type listPanesOut struct {
	Panes []PaneInfo `json:"panes"`
}

func listPanes(ctx context.Context, c *Call, in *listPanesIn) (listPanesOut, error) {
	fs, err := parseFilters(in.Filters, PaneInfo{})
	if err != nil {
		return listPanesOut{}, err
	}
	if err := checkIDs(nil, in.WindowID, in.SessionID); err != nil {
		return listPanesOut{}, err
	}
	var ts *tmux.Server
	var snap *tmux.Snapshot
	var panes []tmux.Pane
	switch {
	case in.WindowID != nil || in.WindowIndex != nil:
		t, err := c.windowWith(ctx, in.WindowTarget, in.SocketName, readPanes|readClients)
		if err != nil {
			return listPanesOut{}, err
		}
		ts, snap, panes = t.ts, t.snap, t.snap.WindowPanes(t.window)
	case in.SessionID != nil || in.SessionName != nil:
		t, err := c.session(ctx, in.SessionID, in.SessionName, in.SocketName)
		if err != nil {
			return listPanesOut{}, err
		}
		if ts, snap = t.ts, t.snap; snap.Parts&tmux.WithPanes == 0 {
			if snap, _, err = ts.SnapshotOf(ctx, t.session.SessionID, tmux.WithPanes|tmux.WithClients); err != nil {
				return listPanesOut{}, err
			}
		}
		for _, p := range snap.Panes {
			if p.SessionID == t.session.SessionID {
				panes = append(panes, p)
			}
		}
	default:
		// Every pane: the panes and the clients (is_watched), not the sessions and windows.
		var err error
		if ts, err = c.tmuxFor(in.SocketName); err != nil {
			return listPanesOut{}, err
		}
		if snap, err = ts.Snapshot(ctx, tmux.WithPanes|tmux.WithClients); err != nil {
			return listPanesOut{}, err
		}
		panes = snap.Panes
	}
	return listPanesOut{Panes: filter.Apply(fs, c.paneInfos(ctx, ts, snap, panes))}, nil
}

// ---- get_window_info

type windowIn struct {
	WindowTarget
	Socket
}

type windowInfoOut struct {
	tmux.Window
	Panes []PaneInfo `json:"panes"`
}

func getWindowInfo(ctx context.Context, c *Call, in *windowIn) (windowInfoOut, error) {
	t, err := c.windowWith(ctx, in.WindowTarget, in.SocketName, readPanes|readClients)
	if err != nil {
		return windowInfoOut{}, err
	}
	return windowInfoOut{Window: t.window, Panes: c.paneInfos(ctx, t.ts, t.snap, t.snap.WindowPanes(t.window))}, nil
}

// ---- get_pane_info

type paneIn struct {
	PaneTarget
	Socket
}

func getPaneInfo(ctx context.Context, c *Call, in *paneIn) (PaneInfo, error) {
	t, err := c.paneWith(ctx, in.PaneTarget, in.SocketName, readClients, nil)
	if err != nil {
		return PaneInfo{}, err
	}
	info := c.paneInfo(ctx, t.ts, t.snap, t.pane)
	info.InputHidden = inputHidden(t.ts, t.pane)
	return info, nil
}

// ---- split_window

type splitWindowIn struct {
	PaneID *string `json:"pane_id,omitempty"`
	WindowTarget
	Direction                 *string `json:"direction,omitempty"`
	Size                      any     `json:"size,omitempty" jsonschema:"\"50%\" or cells"`
	StartDirectory            *string `json:"start_directory,omitempty"`
	Shell                     *string `json:"shell,omitempty" jsonschema:"Instead of the default shell"`
	Environment               any     `json:"environment,omitempty"`
	SuppressPersistentHistory bool    `json:"suppress_persistent_history,omitempty"`
	ShellIntegration          *bool   `json:"shell_integration,omitempty"`
	Socket
}

// maxShell bounds the shell command of split_window and respawn_pane.
const maxShell = 64 << 10

// checkShell checks the command a new pane process runs; omit says what leaving it out does.
func checkShell(p *string, omit string) error {
	switch {
	case p == nil:
		return nil
	case strings.TrimSpace(*p) == "":
		return fail("Give a command, or "+omit+".", "shell is empty")
	case strings.ContainsRune(*p, 0):
		return fail("Remove the NUL byte: a command line cannot hold one.", "shell contains a NUL byte")
	case len(*p) > maxShell:
		return fail("Write a long script to a file and run that file; or "+omit+".", "shell is %d bytes long; at most %d are taken", len(*p), maxShell)
	}
	return nil
}

// parseSize reads split_window's size: a whole number of cells, or a percentage in the form
// "50%" (digits with no sign, space or leading zero).
func parseSize(v any) (string, error) {
	bad := fail("Pass a percentage such as \"50%\" (1 to 100), or a whole number of cells such as 20 or \"20\" (1 to 10000).", "size got %s, which is not a percentage or a number of cells", describeValue(v))
	switch x := v.(type) {
	case nil:
		return "", nil
	case float64:
		if x < 1 || x != float64(int(x)) || x > 10000 {
			return "", bad
		}
		return strconv.Itoa(int(x)), nil
	case string:
		num, pct := strings.CutSuffix(x, "%")
		n, ok := parseIndex(num)
		if !ok || n < 1 || (pct && n > 100) || n > 10000 {
			return "", bad
		}
		if pct {
			return strconv.Itoa(n) + "%", nil
		}
		return strconv.Itoa(n), nil
	}
	return "", bad
}

func splitWindow(ctx context.Context, c *Call, in *splitWindowIn) (PaneInfo, error) {
	size, err := parseSize(in.Size)
	if err != nil {
		return PaneInfo{}, err
	}
	if err := checkDir(in.StartDirectory); err != nil {
		return PaneInfo{}, err
	}
	if err := checkShell(in.Shell, "omit shell for the default shell"); err != nil {
		return PaneInfo{}, err
	}
	envArgs, err := spawnEnv(in.Environment, in.SuppressPersistentHistory)
	if err != nil {
		return PaneInfo{}, err
	}
	if err := checkIDs(in.PaneID, in.WindowID, in.SessionID); err != nil {
		return PaneInfo{}, err
	}
	ts, snap, err := c.snapshot(ctx, in.SocketName)
	if err != nil {
		return PaneInfo{}, err
	}
	var pane tmux.Pane
	if in.PaneID != nil {
		pane, err = resolvePaneIn(snap, PaneTarget{PaneID: in.PaneID})
	} else {
		var w tmux.Window
		if w, err = resolveWindowIn(snap, in.WindowTarget); err == nil {
			pane, err = resolvePaneIn(snap, PaneTarget{PaneID: &w.ActivePaneID})
		}
	}
	if err != nil {
		return PaneInfo{}, err
	}
	args := []string{"split-window", "-d", "-P", "-F", "#{pane_id}", "-t", pane.PaneID}
	switch str(in.Direction) {
	case "above":
		args = append(args, "-v", "-b")
	case "left":
		args = append(args, "-h", "-b")
	case "right":
		args = append(args, "-h")
	default:
		args = append(args, "-v")
	}
	if size != "" {
		args = append(args, "-l", size)
	}
	if in.StartDirectory != nil {
		args = append(args, "-c", format.Escape(*in.StartDirectory))
	}
	args = append(args, envArgs...)
	l, err := c.integration(ctx, ts, in.ShellIntegration, in.Shell, envArgs)
	switch {
	case err != nil:
		return PaneInfo{}, err
	case l != nil:
		args = append(args, placeholder...)
	case in.Shell != nil:
		args = append(args, *in.Shell)
	}
	out, err := ts.Command(ctx, args...)
	if err != nil {
		return PaneInfo{}, err
	}
	if len(out) == 0 {
		return PaneInfo{}, fmt.Errorf("split-window printed no pane id")
	}
	markCreated(ctx, ts, out[0])
	if l != nil {
		if err := c.startIntegrated(ctx, ts, out[0], l, in.StartDirectory); err != nil {
			return PaneInfo{}, fmt.Errorf("pane %s was made, but starting its shell with shell_integration failed: %w", out[0], err)
		}
	}
	return c.paneByID(ctx, ts, out[0])
}

// paneByID reads one pane afresh: that pane alone, unless its window is linked more than once
// (see tmux.ErrLinked).
func (c *Call) paneByID(ctx context.Context, ts *tmux.Server, id string) (PaneInfo, error) {
	snap, _, err := ts.SnapshotOf(ctx, id, tmux.WithPanes|tmux.WithClients)
	if errors.Is(err, tmux.ErrLinked) {
		snap, err = ts.Snapshot(ctx, tmux.WithAll)
	}
	if errors.Is(err, tmux.ErrNotFound) {
		return PaneInfo{}, fmt.Errorf("pane %s: %w", id, tmux.ErrNotFound)
	}
	if err != nil {
		return PaneInfo{}, err
	}
	p, ok := snap.Pane(id)
	if !ok {
		return PaneInfo{}, fmt.Errorf("pane %s: %w", id, tmux.ErrNotFound)
	}
	return c.paneInfo(ctx, ts, snap, p), nil
}
