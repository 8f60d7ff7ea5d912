package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/internal/listfilter"
	"github.com/tmux-mcp/tmux-mcp/server/policy"
	"github.com/tmux-mcp/tmux-mcp/tmux"
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
			Description: "List panes of a window, else a session, else all: id, place, title, command, path; pane_active, is_watched, is_caller, pane_dead only when true. detail full adds get_pane_info's other fields (in detail). Filters see every field.",
			Input:       edits(objectOrJSON("filters", filtersDesc), enum("detail", "brief", "full"), def("detail", "brief"))},
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
	Unreachable []HostFailure `json:"unreachable_hosts,omitempty" jsonschema:"configured hosts that could not be listed, with ssh's or the host's message"`
}

func listServers(ctx context.Context, c *Call, in *listServersIn) (listServersOut, error) {
	for _, p := range in.ExtraSocketPaths {
		if strings.ContainsRune(p, 0) || p == "" {
			return listServersOut{Servers: []ServerInfo{}}, fail("Pass absolute paths of tmux sockets.", "extra_socket_paths holds an empty path or a NUL byte")
		}
	}
	servers, failed := c.srv.Servers(ctx, in.ExtraSocketPaths...)
	return listServersOut{Servers: servers, Unreachable: failed}, nil
}

// Servers lists the live tmux servers on this machine (their sockets in this user's socket
// directory, then those at extra socket paths), then those of every configured host, with the
// hosts that could not be listed (nil when no hosts are configured).
func (s *Server) Servers(ctx context.Context, extra ...string) ([]ServerInfo, []HostFailure) {
	out := []ServerInfo{}
	probe := tmux.NewServer(tmux.Config{Bin: s.opts.TmuxBin, Env: s.opts.Env})
	local, _ := probe.Servers(ctx, extra...)
	probe.Close()
	for _, st := range local {
		out = append(out, s.serverInfo(st, probe))
	}
	if len(s.hosts) == 0 {
		return out, nil
	}
	servers, failed := s.listHosts(ctx)
	return append(out, servers...), failed
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
	st, err := ts.Status(ctx)
	return c.srv.serverInfo(st, ts), err
}

// serverInfo is a server's status as list_servers and get_server_info give it.
func (s *Server) serverInfo(st tmux.ServerStatus, ts *tmux.Server) ServerInfo {
	return ServerInfo{
		IsAlive: st.Alive, SocketName: st.SocketName, SocketPath: st.SocketPath, Version: st.Version, PID: st.PID,
		SessionCount: st.Sessions, WindowCount: st.Windows, PaneCount: st.Panes, AttachedClients: st.AttachedClients,
		Host: s.hostLabel(ts),
	}
}

// ---- list_sessions

// parseFilters reads a filters argument (an object, a JSON string of one, or null) against the
// fields of model's JSON form.
func parseFilters(arg any, model any) ([]listfilter.Filter, error) {
	m, err := objectArg("filters", arg, `{"session_name__startswith": "dev"}`)
	if err != nil {
		return nil, err
	}
	return listfilter.Parse(m, model)
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
		if c.emptyWithoutServer(err, in.SocketName) {
			return listSessionsOut{Sessions: []tmux.Session{}}, nil
		}
		return listSessionsOut{}, err
	}
	return listSessionsOut{Sessions: listfilter.Apply(fs, snap.Sessions)}, nil
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

func createSession(ctx context.Context, c *Call, in *createSessionIn) (createSessionOut, error) {
	if err := errors.Join(checkSessionName(in.SessionName), checkWindowName("window_name", in.WindowName), checkDir(in.StartDirectory),
		checkSize("x", in.X), checkSize("y", in.Y)); err != nil {
		return createSessionOut{}, err
	}
	env, err := spawnEnv(in.Environment, in.SuppressPersistentHistory)
	if err != nil {
		return createSessionOut{}, err
	}
	ts, err := c.tmuxFor(in.SocketName)
	if err != nil {
		return createSessionOut{}, err
	}
	l, err := c.integration(ctx, ts, in.ShellIntegration, nil, env)
	if err != nil {
		return createSessionOut{}, err
	}
	op := &tmux.NewSession{Name: in.SessionName, WindowName: in.WindowName, Width: in.X, Height: in.Y,
		Spawn: tmux.Spawn{Dir: in.StartDirectory, Env: env, Argv: launchArgv(l, nil)}}
	if err := ts.Create(ctx, op); err != nil {
		var ce *tmux.CommandError
		if errors.As(err, &ce) && strings.Contains(ce.Message, "duplicate session") {
			return createSessionOut{}, fail("Choose another session_name, or use the existing session (list_sessions).", "a session named %q already exists", str(in.SessionName))
		}
		return createSessionOut{}, err
	}
	markCreated(ctx, ts, op.SessionID)
	c.srv.kickTopology(c.host, in.SocketName)
	s, err := c.madeSession(ctx, ts, op, l, in)
	if errors.Is(err, tmux.ErrServerNotRunning) || errors.Is(err, tmux.ErrNotFound) {
		return createSessionOut{}, fail("Ask the user to turn it off where their tmux configuration sets it (set -g destroy-unattached off in ~/.tmux.conf); while the tmux server stays up (another session has a terminal attached), set_option option=destroy-unattached value=off global_=true turns it off until tmux restarts.",
			"tmux made session %s, then destroyed it at once: most likely the tmux configuration sets destroy-unattached on, which destroys every session no terminal is attached to, and a session made here is detached (when it was the last session, the tmux server exited with it)", op.SessionID)
	}
	return s, err
}

// madeSession finishes a session new-session made: its name kept against hooks, its shell
// started, and its record read.
func (c *Call) madeSession(ctx context.Context, ts *tmux.Server, op *tmux.NewSession, l *launch, in *createSessionIn) (createSessionOut, error) {
	if err := keepName(ctx, ts, op.WindowID, in.WindowName); err != nil {
		return createSessionOut{}, err
	}
	note, err := leaveConfigErrors(ctx, ts, op.PaneID)
	if err != nil {
		return createSessionOut{}, err
	}
	if err := c.startLaunch(ctx, ts, op.PaneID, l, in.StartDirectory); err != nil {
		return createSessionOut{}, fmt.Errorf("session %s was made, but starting its shell with shell_integration failed: %w", op.SessionID, err)
	}
	s, err := findSession(ctx, ts, op.SessionID)
	return createSessionOut{Session: s, Note: note}, err
}

// createSessionOut is the session made, with what tmux said about its configuration.
type createSessionOut struct {
	tmux.Session
	Note string `json:"note,omitempty"` // errors tmux found in its configuration as this call started it
}

// leaveConfigErrors reads and closes the view mode in which tmux shows the errors of its
// configuration in the first pane of a server it has just started, when no terminal was
// there to tell (a dotfiles tmux.conf on a machine without its plugins, or with an older
// tmux): left open, it made the pane of the new session refuse runs and keys. It returns a
// note naming the errors, "" when the pane was not in view mode.
func leaveConfigErrors(ctx context.Context, ts *tmux.Server, pane string) (string, error) {
	st := &tmux.Screen{Pane: pane}
	if err := ts.Do(ctx, st); err != nil || st.Mode != "view-mode" {
		return "", err
	}
	v := &tmux.ReadViewMode{Pane: pane}
	if err := ts.Do(ctx, v); err != nil {
		return "", fmt.Errorf("pane %s shows tmux's view mode (errors of its configuration, most likely), and leaving it failed: %w", pane, err)
	}
	return "tmux found errors in its configuration as it started (it showed them in this pane, which was cleared of them; tell the user): " + strings.Join(v.Lines, "; "), nil
}

// launchArgv is what a new pane runs: the placeholder when its shell gets the integration
// (startLaunch starts it), else shell when given, else tmux's default.
func launchArgv(l *launch, shell *string) []string {
	switch {
	case l != nil:
		return placeholder
	case shell != nil:
		return []string{*shell}
	}
	return nil
}

// startLaunch starts the integrated shell in a new pane, when it gets one.
func (c *Call) startLaunch(ctx context.Context, ts *tmux.Server, pane string, l *launch, dir *string) error {
	if l == nil {
		return nil
	}
	return c.startIntegrated(ctx, ts, pane, l, dir)
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
		if in.SessionID == nil && in.SessionName == nil && c.emptyWithoutServer(err, in.SocketName) {
			return listWindowsOut{Windows: []tmux.Window{}}, nil
		}
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
	return listWindowsOut{Windows: listfilter.Apply(fs, windows)}, nil
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
	env, err := spawnEnv(in.Environment, in.SuppressPersistentHistory)
	if err != nil {
		return tmux.Window{}, err
	}
	t, err := c.session(ctx, in.SessionID, in.SessionName, in.SocketName)
	if err != nil {
		return tmux.Window{}, err
	}
	l, err := c.integration(ctx, t.ts, in.ShellIntegration, nil, env)
	if err != nil {
		return tmux.Window{}, err
	}
	op := &tmux.NewWindow{Session: t.session.SessionID, Beside: t.session.ActiveWindowID, Attach: in.Attach, Name: in.WindowName,
		After: str(in.Direction) == "after", Before: str(in.Direction) == "before",
		Spawn: tmux.Spawn{Dir: in.StartDirectory, Env: env, Argv: launchArgv(l, nil)}}
	if err := t.ts.Do(ctx, op); err != nil {
		return tmux.Window{}, err
	}
	markCreated(ctx, t.ts, op.WindowID)
	if err := keepName(ctx, t.ts, op.WindowID, in.WindowName); err != nil {
		return tmux.Window{}, err
	}
	if err := c.startLaunch(ctx, t.ts, op.PaneID, l, in.StartDirectory); err != nil {
		return tmux.Window{}, fmt.Errorf("window %s was made, but starting its shell with shell_integration failed: %w", op.WindowID, err)
	}
	return findWindowNow(ctx, t.ts, op.WindowID)
}

// keepName names a new window name (when given) again once the hooks of its creation have
// run: a user's after-new-window or after-new-session hook (set-hook -g after-new-window
// 'rename-window work') renames every new window, undoing the name the call asked for. tmux
// runs a command's hooks before the next command of its client, so this rename comes after.
func keepName(ctx context.Context, ts *tmux.Server, window string, name *string) error {
	if name == nil {
		return nil
	}
	if err := ts.Do(ctx, &tmux.RenameWindow{Window: window, Name: *name}); err != nil {
		return fmt.Errorf("window %s was made, but naming it %q after its hooks ran failed: %w", window, *name, err)
	}
	return nil
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
	Filters any     `json:"filters,omitempty"`
	Detail  *string `json:"detail,omitempty"`
	Socket
}

type listPanesOut struct {
	Panes []PaneEntry `json:"panes"`
}

// PaneEntry is a pane as list_panes lists it: by default what an agent needs to choose a pane
// (its id and place, what runs there, whether it is active or on a person's screen), about a
// quarter of get_pane_info's record (1,000 panes: 1.1 MB in full, 0.28 MB brief); with detail
// full, the rest too, in Detail. Its flags are present only when true, in both.
type PaneEntry struct {
	PaneID             string      `json:"pane_id" jsonschema:"pane id, e.g. %1"`
	SessionName        string      `json:"session_name"`
	WindowIndex        int         `json:"window_index"`
	PaneIndex          int         `json:"pane_index"`
	PaneTitle          string      `json:"pane_title"`
	PaneCurrentCommand string      `json:"pane_current_command"`
	PaneCurrentPath    string      `json:"pane_current_path"`
	PaneActive         bool        `json:"pane_active,omitempty" jsonschema:"present (true) on its window's active pane only"`
	IsWatched          bool        `json:"is_watched,omitempty" jsonschema:"present (true) when a terminal client has this pane on screen"`
	IsCaller           bool        `json:"is_caller,omitempty" jsonschema:"present (true) on the pane this MCP server runs in only"`
	PaneDead           bool        `json:"pane_dead,omitempty" jsonschema:"present (true) when its program exited and remain-on-exit keeps it: respawn_pane it to use it"`
	Detail             *PaneDetail `json:"detail,omitempty" jsonschema:"with detail full only: the rest of get_pane_info's fields"`
}

// PaneDetail is the rest of a pane's record, listed with detail full.
type PaneDetail struct {
	SessionID    string `json:"session_id"`
	WindowID     string `json:"window_id"`
	PaneWidth    int    `json:"pane_width"`
	PaneHeight   int    `json:"pane_height"`
	PaneLeft     int    `json:"pane_left"`
	PaneTop      int    `json:"pane_top"`
	PaneRight    int    `json:"pane_right"`
	PaneBottom   int    `json:"pane_bottom"`
	PaneAtLeft   bool   `json:"pane_at_left"`
	PaneAtRight  bool   `json:"pane_at_right"`
	PaneAtTop    bool   `json:"pane_at_top"`
	PaneAtBottom bool   `json:"pane_at_bottom"`
	PaneTTY      string `json:"pane_tty"`
	PanePID      int    `json:"pane_pid"`
	PaneDead     bool   `json:"pane_dead"`
	PaneInMode   bool   `json:"pane_in_mode"`
}

// paneEntries lists panes, each in brief or, when full, with its detail.
func paneEntries(panes []PaneInfo, full bool) []PaneEntry {
	out := make([]PaneEntry, len(panes))
	var details []PaneDetail
	if full {
		details = make([]PaneDetail, len(panes))
	}
	for i, p := range panes {
		out[i] = PaneEntry{
			PaneID: p.PaneID, SessionName: p.SessionName, WindowIndex: p.WindowIndex,
			PaneIndex: p.PaneIndex, PaneTitle: p.PaneTitle, PaneCurrentCommand: p.PaneCurrentCommand,
			PaneCurrentPath: p.PaneCurrentPath, PaneActive: p.PaneActive, IsWatched: p.IsWatched,
			IsCaller: p.IsCaller != nil && *p.IsCaller, PaneDead: p.PaneDead,
		}
		if full {
			details[i] = PaneDetail{
				SessionID: p.SessionID, WindowID: p.WindowID, PaneWidth: p.PaneWidth, PaneHeight: p.PaneHeight,
				PaneLeft: p.PaneLeft, PaneTop: p.PaneTop, PaneRight: p.PaneRight, PaneBottom: p.PaneBottom,
				PaneAtLeft: p.PaneAtLeft, PaneAtRight: p.PaneAtRight, PaneAtTop: p.PaneAtTop, PaneAtBottom: p.PaneAtBottom,
				PaneTTY: p.PaneTTY, PanePID: p.PanePID, PaneDead: p.PaneDead, PaneInMode: p.PaneInMode,
			}
			out[i].Detail = &details[i]
		}
	}
	return out
}

func listPanes(ctx context.Context, c *Call, in *listPanesIn) (listPanesOut, error) {
	fs, err := parseFilters(in.Filters, PaneInfo{})
	if err != nil {
		return listPanesOut{}, err
	}
	full := in.Detail != nil && *in.Detail == "full"
	if in.Detail != nil && !full && *in.Detail != "brief" {
		return listPanesOut{}, fail("Use brief (the default) or full.", "detail %q is neither brief nor full", truncate(*in.Detail, 40))
	}
	if err := checkIDs(nil, in.WindowID, in.SessionID); err != nil {
		return listPanesOut{}, err
	}
	ts, snap, panes, err := c.panesOf(ctx, in, !full && len(fs) == 0)
	if err != nil {
		return listPanesOut{}, err
	}
	return listPanesOut{Panes: paneEntries(listfilter.Apply(fs, c.paneInfos(ctx, ts, snap, panes)), full)}, nil
}

// Text is the panes as a table, one line a pane (the structured content holds the same as
// JSON): the JSON again as text would double a listing an agent must read whole. With detail
// full the text is the JSON, as for other tools.
func (o listPanesOut) Text() string {
	if len(o.Panes) > 0 && o.Panes[0].Detail != nil {
		text, _ := marshalText(o)
		return text
	}
	var b strings.Builder
	b.WriteString("pane\tsession:window.pane\tcommand\tpath\ttitle\tflags\n")
	for _, p := range o.Panes {
		flags := make([]string, 0, 4)
		for _, f := range []struct {
			on   bool
			name string
		}{{p.PaneActive, "active"}, {p.IsWatched, "watched"}, {p.IsCaller, "caller"}, {p.PaneDead, "dead"}} {
			if f.on {
				flags = append(flags, f.name)
			}
		}
		fmt.Fprintf(&b, "%s\t%s:%d.%d\t%s\t%s\t%s\t%s\n", p.PaneID, cell(p.SessionName), p.WindowIndex, p.PaneIndex,
			cell(p.PaneCurrentCommand), cell(p.PaneCurrentPath), cell(p.PaneTitle), strings.Join(flags, ","))
	}
	return b.String()
}

// cell is a value in a table of Text: quoted when it holds a tab, a newline or another control
// character (names and titles are anyone's).
func cell(v string) string {
	if strings.IndexFunc(v, func(r rune) bool { return r < ' ' || r == 0x7f }) >= 0 {
		return strconv.Quote(v)
	}
	return v
}

// panesOf reads the panes list_panes lists: a window's, a session's or every pane, with the
// clients (is_watched); every pane of the server in brief only reads the fields of brief.
func (c *Call) panesOf(ctx context.Context, in *listPanesIn, brief bool) (*tmux.Server, *tmux.Snapshot, []tmux.Pane, error) {
	switch {
	case in.WindowID != nil || in.WindowIndex != nil:
		t, err := c.windowWith(ctx, in.WindowTarget, in.SocketName, readPanes|readClients)
		if err != nil {
			return nil, nil, nil, err
		}
		return t.ts, t.snap, t.snap.WindowPanes(t.window), nil
	case in.SessionID != nil || in.SessionName != nil:
		t, err := c.session(ctx, in.SessionID, in.SessionName, in.SocketName)
		if err != nil {
			return nil, nil, nil, err
		}
		snap := t.snap
		if snap.Parts&tmux.WithPanes == 0 {
			if snap, err = t.ts.SnapshotOf(ctx, t.session.SessionID, tmux.WithPanes|tmux.WithClients); err != nil {
				return nil, nil, nil, err
			}
		}
		var panes []tmux.Pane
		for _, p := range snap.Panes {
			if p.SessionID == t.session.SessionID {
				panes = append(panes, p)
			}
		}
		return t.ts, snap, panes, nil
	}
	ts, err := c.tmuxFor(in.SocketName)
	if err != nil {
		return nil, nil, nil, err
	}
	if op := (&tmux.PaneList{}); brief && ts.Do(ctx, op) == nil {
		return ts, op.Snapshot, op.Snapshot.Panes, nil
	}
	// Every field, or a brief read that failed (a command or path holding the separator,
	// which this read prints once; the server gone, which this one says).
	snap, err := ts.Snapshot(ctx, tmux.WithPanes|tmux.WithClients)
	if err != nil {
		if c.emptyWithoutServer(err, in.SocketName) {
			return ts, &tmux.Snapshot{}, []tmux.Pane{}, nil
		}
		return nil, nil, nil, err
	}
	return ts, snap, snap.Panes, nil
}

// emptyWithoutServer reports whether err says the default tmux server is not running (no
// socket_name, or the default's own name): a list of everything on it is then empty, as on a
// machine where nothing was started yet. A named socket without a server is refused instead:
// a mistyped name must not read as "nothing there".
func (c *Call) emptyWithoutServer(err error, sock *string) bool {
	if !errors.Is(err, tmux.ErrServerNotRunning) {
		return false
	}
	if sock == nil {
		return true
	}
	named, err1 := c.tmuxFor(sock)
	def, err2 := c.tmuxFor(nil)
	return err1 == nil && err2 == nil && named.SocketPath() == def.SocketPath()
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
	info.InputHidden = inputHidden(ctx, t.ts, t.pane, nil)
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
	bad := fail("Pass a percentage such as \"50%\" (1 to 99), or a whole number of cells such as 20 or \"20\" (1 to 10000).", "size got %s, which is not a percentage or a number of cells", describeValue(v))
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
		if ok && pct && (n < 1 || n > 99) {
			return "", fail("Pass a percentage from 1% to 99% of the pane (the rest stays with it), or a number of cells.", "size %q is not a share of the pane a split can give", truncate(x, 20))
		}
		if !ok || n < 1 || n > 10000 {
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
	if err := errors.Join(checkDir(in.StartDirectory), checkShell(in.Shell, "omit shell for the default shell")); err != nil {
		return PaneInfo{}, err
	}
	env, err := spawnEnv(in.Environment, in.SuppressPersistentHistory)
	if err != nil {
		return PaneInfo{}, err
	}
	if err := checkIDs(in.PaneID, in.WindowID, in.SessionID); err != nil {
		return PaneInfo{}, err
	}
	ts, pane, err := c.paneOrActive(ctx, in.PaneID, in.WindowTarget, in.SocketName)
	if err != nil {
		return PaneInfo{}, err
	}
	if err := roomFor(pane, str(in.Direction), size); err != nil {
		return PaneInfo{}, err
	}
	l, err := c.integration(ctx, ts, in.ShellIntegration, in.Shell, env)
	if err != nil {
		return PaneInfo{}, err
	}
	op := &tmux.SplitWindow{Pane: pane.PaneID, Direction: str(in.Direction), Size: size,
		Spawn: tmux.Spawn{Dir: in.StartDirectory, Env: env, Argv: launchArgv(l, in.Shell)}}
	if err := ts.Do(ctx, op); err != nil {
		return PaneInfo{}, err
	}
	markCreated(ctx, ts, op.PaneID)
	if err := c.startLaunch(ctx, ts, op.PaneID, l, in.StartDirectory); err != nil {
		return PaneInfo{}, fmt.Errorf("pane %s was made, but starting its shell with shell_integration failed: %w", op.PaneID, err)
	}
	return c.paneByID(ctx, ts, op.PaneID)
}

// roomFor refuses a size in cells that leaves the pane split no row or column of its own: tmux
// clamps it silently, leaving a pane of one line that the next split cannot divide.
func roomFor(p tmux.Pane, direction, size string) error {
	n, err := strconv.Atoi(size)
	if err != nil || n <= 0 {
		return nil // a percentage, or tmux's default half
	}
	dim, unit := p.PaneHeight, "rows"
	if direction == "left" || direction == "right" {
		dim, unit = p.PaneWidth, "columns"
	}
	if most := dim - 2; n > most { // the new pane, a border, at least one line of the old
		return fail(fmt.Sprintf("Pass a size of at most %d, a percentage such as \"30%%\", or split a larger pane.", max(most, 1)),
			"size %d leaves no room: pane %s is %d %s", n, p.PaneID, dim, unit)
	}
	return nil
}

// paneOrActive resolves pane_id, else the active pane of the window target, in a snapshot of
// the whole server.
func (c *Call) paneOrActive(ctx context.Context, paneID *string, wt WindowTarget, socket *string) (*tmux.Server, tmux.Pane, error) {
	ts, snap, err := c.snapshot(ctx, socket)
	if err != nil {
		return nil, tmux.Pane{}, err
	}
	if paneID != nil {
		p, err := resolvePaneIn(snap, PaneTarget{PaneID: paneID})
		return ts, p, err
	}
	w, err := resolveWindowIn(snap, wt)
	if err != nil {
		return nil, tmux.Pane{}, err
	}
	p, err := resolvePaneIn(snap, PaneTarget{PaneID: &w.ActivePaneID})
	return ts, p, err
}

// paneByID reads one pane afresh: that pane alone, unless its window is linked more than once
// (see tmux.ErrLinked).
func (c *Call) paneByID(ctx context.Context, ts *tmux.Server, id string) (PaneInfo, error) {
	snap, err := ts.SnapshotOf(ctx, id, tmux.WithPanes|tmux.WithClients)
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
