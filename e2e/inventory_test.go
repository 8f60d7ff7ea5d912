package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

type session struct {
	SessionID       string `json:"session_id"`
	SessionName     string `json:"session_name"`
	WindowCount     int    `json:"window_count"`
	AttachedClients int    `json:"attached_clients"`
	Created         int64  `json:"created"`
	ActiveWindowID  string `json:"active_window_id"`
	ActivePaneID    string `json:"active_pane_id"`
}

type window struct {
	WindowID    string `json:"window_id"`
	WindowName  string `json:"window_name"`
	WindowIndex int    `json:"window_index"`
	SessionID   string `json:"session_id"`
	PaneCount   int    `json:"pane_count"`
	WindowWidth int    `json:"window_width"`
}

type pane struct {
	PaneID             string `json:"pane_id"`
	PaneWidth          int    `json:"pane_width"`
	PaneHeight         int    `json:"pane_height"`
	PaneTop            int    `json:"pane_top"`
	PaneLeft           int    `json:"pane_left"`
	PaneCurrentCommand string `json:"pane_current_command"`
	WindowID           string `json:"window_id"`
	SessionID          string `json:"session_id"`
	IsCaller           *bool  `json:"is_caller"`
	IsWatched          bool   `json:"is_watched"`
	PaneDead           bool   `json:"pane_dead"`
}

func TestToolsListInventory(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	got := map[string]*mcp.Tool{}
	for tool, err := range c.CS.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		got[tool.Name] = tool
	}
	for _, name := range []string{"list_servers", "list_sessions", "get_server_info", "create_session", "list_windows", "get_session_info", "create_window", "list_panes", "get_window_info", "get_pane_info", "split_window"} {
		tool, ok := got[name]
		if !ok {
			t.Errorf("tool %s not offered", name)
			continue
		}
		if tool.Title == "" || tool.Annotations == nil || tool.OutputSchema == nil {
			t.Errorf("%s: missing title, annotations or output schema", name)
		}
		in := tool.InputSchema.(map[string]any)
		if in["additionalProperties"] != false {
			t.Errorf("%s: input schema is not strict: %v", name, in["additionalProperties"])
		}
	}
}

func TestCreateAndListSession(t *testing.T) {
	c := start(t)
	// No server yet: list_sessions is empty and get_server_info does not start one.
	var list struct{ Sessions []session }
	c.OK("list_sessions", map[string]any{}, &list)
	if len(list.Sessions) != 0 {
		t.Fatalf("sessions before create: %v", list.Sessions)
	}
	var info struct {
		IsAlive      bool `json:"is_alive"`
		SessionCount int  `json:"session_count"`
	}
	c.OK("get_server_info", map[string]any{}, &info)
	if info.IsAlive {
		t.Fatal("get_server_info: alive before any session")
	}
	if _, err := os.Stat(c.Tmx.Socket); err == nil {
		if out, err := c.Tmx.TryTmux("list-sessions"); err == nil {
			t.Fatalf("get_server_info started a server: %s", out)
		}
	}

	var s session
	c.OK("create_session", map[string]any{"session_name": "work #1", "x": 100, "y": 30, "start_directory": c.Tmx.Home}, &s)
	if s.SessionName != "work #1" || !strings.HasPrefix(s.SessionID, "$") || !strings.HasPrefix(s.ActivePaneID, "%") {
		t.Fatalf("create_session = %+v", s)
	}
	c.OK("list_sessions", map[string]any{}, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != s.SessionID {
		t.Fatalf("list_sessions = %+v", list.Sessions)
	}
	if list.Sessions[0].AttachedClients != 0 {
		t.Errorf("attached_clients = %d: control-mode clients must not count", list.Sessions[0].AttachedClients)
	}
	if list.Sessions[0].Created == 0 || list.Sessions[0].WindowCount != 1 {
		t.Errorf("session fields: %+v", list.Sessions[0])
	}
	c.OK("get_server_info", map[string]any{}, &info)
	if !info.IsAlive || info.SessionCount != 1 {
		t.Errorf("get_server_info = %+v", info)
	}

	// Duplicate name.
	if msg := c.Fail("create_session", map[string]any{"session_name": "work #1"}); !strings.Contains(msg, "already exists") {
		t.Errorf("duplicate: %s", msg)
	}
	// Filters.
	c.OK("create_session", map[string]any{"session_name": "other"}, nil)
	c.OK("list_sessions", map[string]any{"filters": map[string]any{"session_name__startswith": "work"}}, &list)
	if len(list.Sessions) != 1 {
		t.Errorf("filter startswith: %+v", list.Sessions)
	}
	c.OK("list_sessions", map[string]any{"filters": `{"session_name__in": "other,nope"}`}, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].SessionName != "other" {
		t.Errorf("filter in (JSON string): %+v", list.Sessions)
	}
	if msg := c.Fail("list_sessions", map[string]any{"filters": map[string]any{"bogus__exact": "x"}}); !strings.Contains(msg, "session_name") {
		t.Errorf("unknown filter field should list the valid ones: %s", msg)
	}
	if msg := c.Fail("list_sessions", map[string]any{"filters": map[string]any{"session_name__like": "x"}}); !strings.Contains(msg, "icontains") {
		t.Errorf("unknown op should list the valid ones: %s", msg)
	}
}

func TestWindowsAndPanes(t *testing.T) {
	c := start(t)
	sid, pid := c.Tmx.NewSession("main")
	var w window
	c.OK("create_window", map[string]any{"session_id": sid, "window_name": "logs"}, &w)
	if w.WindowName != "logs" || w.SessionID != sid {
		t.Fatalf("create_window = %+v", w)
	}
	var ws struct{ Windows []window }
	c.OK("list_windows", map[string]any{"session_name": "main"}, &ws)
	if len(ws.Windows) != 2 {
		t.Fatalf("list_windows = %+v", ws.Windows)
	}
	var si struct {
		session
		Windows []window
	}
	c.OK("get_session_info", map[string]any{"session_name": "main"}, &si)
	if si.SessionID != sid || len(si.Windows) != 2 {
		t.Fatalf("get_session_info = %+v", si)
	}

	var np pane
	c.OK("split_window", map[string]any{"pane_id": pid, "direction": "right", "size": "30%"}, &np)
	if np.PaneID == pid || np.PaneLeft == 0 {
		t.Fatalf("split right = %+v", np)
	}
	var below pane
	c.OK("split_window", map[string]any{"pane_id": pid, "direction": "below", "size": 5}, &below)
	if below.PaneHeight != 5 || below.PaneTop == 0 {
		t.Fatalf("split below size 5 = %+v", below)
	}
	var ps struct{ Panes []pane }
	c.OK("list_panes", map[string]any{"session_id": sid}, &ps)
	if len(ps.Panes) != 4 {
		t.Fatalf("list_panes session = %d panes", len(ps.Panes))
	}
	c.OK("list_panes", map[string]any{"window_id": np.WindowID}, &ps)
	if len(ps.Panes) != 3 {
		t.Fatalf("list_panes window = %d panes", len(ps.Panes))
	}
	for _, p := range ps.Panes {
		if p.IsCaller != nil {
			t.Errorf("is_caller must be null outside tmux: %+v", p)
		}
	}
	c.OK("list_panes", map[string]any{"filters": map[string]any{"pane_id": np.PaneID}}, &ps)
	if len(ps.Panes) != 1 {
		t.Fatalf("list_panes filter pane_id = %+v", ps.Panes)
	}
	// Brief by default (what chooses a pane), the rest in detail on request; filters see all.
	var full struct {
		Panes []struct {
			PaneID string `json:"pane_id"`
			Detail *pane  `json:"detail"`
		}
	}
	c.OK("list_panes", map[string]any{"filters": map[string]any{"pane_height": 5}}, &full)
	if len(full.Panes) != 1 || full.Panes[0].PaneID != below.PaneID || full.Panes[0].Detail != nil {
		t.Fatalf("list_panes brief filtered on pane_height = %+v", full.Panes)
	}
	c.OK("list_panes", map[string]any{"window_id": np.WindowID, "detail": "full"}, &full)
	if len(full.Panes) != 3 || full.Panes[0].Detail == nil || full.Panes[0].Detail.PaneWidth == 0 {
		t.Fatalf("list_panes detail full = %+v", full.Panes)
	}
	if msg := c.Fail("list_panes", map[string]any{"detail": "all"}); !strings.Contains(msg, "detail") {
		t.Errorf("list_panes detail all: %s", msg)
	}
	var wi struct {
		window
		Panes []pane
	}
	c.OK("get_window_info", map[string]any{"window_id": np.WindowID}, &wi)
	if len(wi.Panes) != 3 || wi.WindowID != np.WindowID {
		t.Fatalf("get_window_info = %+v", wi)
	}
	c.OK("get_window_info", map[string]any{"session_id": sid, "window_index": "1"}, &wi)
	if wi.WindowName != "logs" {
		t.Fatalf("get_window_info by index = %+v", wi.window)
	}
	var p pane
	c.OK("get_pane_info", map[string]any{"pane_id": np.PaneID}, &p)
	if p.PaneID != np.PaneID || p.PaneCurrentCommand != "bash" {
		t.Fatalf("get_pane_info = %+v", p)
	}
	// Other target arguments must agree with pane_id: one that names another place is refused,
	// saying where the pane is.
	if msg := c.Fail("get_pane_info", map[string]any{"pane_id": np.PaneID, "session_name": "nope"}); !strings.Contains(msg, "is in session") {
		t.Fatalf("pane_id with another session's name: %s", msg)
	}
}

func TestBadInputInventory(t *testing.T) {
	c := start(t)
	c.Tmx.NewSession("s")
	cases := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"get_pane_info", map[string]any{"pane_id": "1"}, "not a pane id"},
		{"get_pane_info", map[string]any{"pane_id": "%1; kill-server"}, "not a pane id"},
		{"get_pane_info", map[string]any{"pane_id": "%999"}, "no pane has id %999"},
		{"get_pane_info", map[string]any{"session_name": "s*"}, "no session is named"},
		{"get_window_info", map[string]any{"window_id": "@x"}, "not a window id"},
		{"get_session_info", map[string]any{"session_id": "1"}, "not a session id"},
		{"list_sessions", map[string]any{"bogus": 1}, `"bogus"`},
		{"list_sessions", map[string]any{"socket_name": 7}, "socket_name"},
		{"list_sessions", map[string]any{"socket_name": "../x"}, "not a valid tmux socket name"},
		{"get_pane_info", map[string]any{"socket_name": "no-such-socket-e2e"}, "no tmux server"},
		{"create_session", map[string]any{"session_name": "a:b"}, "':' or '.'"},
		{"create_session", map[string]any{"session_name": ""}, "empty"},
		{"create_session", map[string]any{"x": "wide"}, "x"},
		{"create_session", map[string]any{"environment": map[string]any{"A": 1}}, "not a string"},
		{"split_window", map[string]any{"direction": "diagonal"}, "direction"},
		{"split_window", map[string]any{"size": "150%"}, "size"},
		{"create_window", map[string]any{"direction": "sideways"}, "direction"},
		{"get_window_info", map[string]any{"window_index": "nine"}, "not a window index"},
	}
	for _, tc := range cases {
		msg := c.Fail(tc.tool, tc.args)
		if !strings.Contains(msg, tc.want) {
			t.Errorf("%s(%v): error %q does not mention %q", tc.tool, tc.args, msg, tc.want)
		}
		if !strings.Contains(msg, "\n\n") {
			t.Errorf("%s(%v): error has no hint: %q", tc.tool, tc.args, msg)
		}
	}
	// Nothing was created by the refused calls.
	var list struct{ Sessions []session }
	c.OK("list_sessions", nil, &list)
	if len(list.Sessions) != 1 {
		t.Errorf("sessions after bad input: %+v", list.Sessions)
	}
}

func TestListServers(t *testing.T) {
	c := start(t)
	c.Tmx.NewSession("s")
	var out struct {
		Servers []struct {
			IsAlive      bool   `json:"is_alive"`
			SocketPath   string `json:"socket_path"`
			SessionCount int    `json:"session_count"`
		}
	}
	stale := filepath.Join(c.Tmx.Dir, "stale")
	os.WriteFile(stale, nil, 0o600)
	c.OK("list_servers", map[string]any{"extra_socket_paths": []string{c.Tmx.Socket, stale}}, &out)
	if len(out.Servers) != 1 || !out.Servers[0].IsAlive || out.Servers[0].SessionCount != 1 {
		t.Fatalf("list_servers = %+v", out.Servers)
	}
}

func TestTmuxStoppedDoesNotHang(t *testing.T) {
	c := start(t, "LIBTMUX_MCP_WAIT_MAX_SECONDS=2")
	c.Tmx.NewSession("s")
	c.OK("list_sessions", nil, nil)
	pidStr := c.Tmx.Tmux("display-message", "-p", "#{pid}")
	proc, err := os.FindProcess(atoi(pidStr))
	if err != nil {
		t.Fatal(err)
	}
	proc.Signal(sigStop)
	defer proc.Signal(sigCont)
	start := time.Now()
	msg := c.Fail("list_sessions", nil)
	if d := time.Since(start); d > 12*time.Second {
		t.Errorf("a stopped tmux took %v to fail", d)
	}
	if !strings.Contains(msg, "did not answer") {
		t.Errorf("error = %q", msg)
	}
	proc.Signal(sigCont)
	// The server keeps serving once tmux runs again.
	c.OK("list_sessions", nil, nil)
}

// TestListPanesDeadPane: under remain-on-exit (a common setting) a pane whose program exited
// stays, dead, still naming its old command: the brief listing flags it, as text and JSON, so
// an agent choosing a pane does not pick one that refuses every run.
func TestListPanesDeadPane(t *testing.T) {
	t.Parallel()
	c := start(t)
	_, live := c.Tmx.NewSession("d", testtmux.Bash...)
	c.Tmx.Tmux("set-option", "-g", "remain-on-exit", "on")
	dead := c.Tmx.Tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", live, "true")
	c.Tmx.WaitFor(dead, func(string) bool {
		return c.Tmx.Tmux("display-message", "-p", "-t", dead, "#{pane_dead}") == "1"
	})
	res := c.Call("list_panes", map[string]any{"session_name": "d"})
	var list struct{ Panes []pane }
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &list); err != nil || len(list.Panes) != 2 {
		t.Fatalf("list_panes: %s (%v)", b, err)
	}
	for _, p := range list.Panes {
		if p.PaneDead != (p.PaneID == dead) {
			t.Errorf("pane %s: pane_dead %v (the dead one is %s)", p.PaneID, p.PaneDead, dead)
		}
	}
	for _, line := range strings.Split(text(res), "\n") {
		if strings.HasPrefix(line, dead+"\t") && !strings.HasSuffix(line, "dead") {
			t.Errorf("the text does not flag the dead pane: %q", line)
		}
		if strings.HasPrefix(line, live+"\t") && strings.Contains(line, "dead") {
			t.Errorf("the text flags the live pane: %q", line)
		}
	}
}
