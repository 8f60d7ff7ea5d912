package tmux

import (
	"context"
	"fmt"
)

// Session is one tmux session as list-sessions reports it.
type Session struct {
	SessionID       string `json:"session_id" jsonschema:"session id, e.g. $1"`
	SessionName     string `json:"session_name"`
	WindowCount     int    `json:"window_count"`
	AttachedClients int    `json:"attached_clients" jsonschema:"terminal clients attached (control-mode clients, this server's included, never count)"`
	Created         int64  `json:"created" jsonschema:"creation time, unix seconds"`
	ActiveWindowID  string `json:"active_window_id"`
	ActivePaneID    string `json:"active_pane_id"`
}

// Window is one window of a session as list-windows reports it.
type Window struct {
	WindowID     string `json:"window_id" jsonschema:"window id, e.g. @1"`
	WindowName   string `json:"window_name"`
	WindowIndex  int    `json:"window_index"`
	SessionID    string `json:"session_id"`
	SessionName  string `json:"session_name"`
	PaneCount    int    `json:"pane_count"`
	WindowLayout string `json:"window_layout"`
	WindowActive bool   `json:"window_active"`
	WindowWidth  int    `json:"window_width"`
	WindowHeight int    `json:"window_height"`
	WindowZoomed bool   `json:"window_zoomed"`
	ActivePaneID string `json:"active_pane_id"`
}

// Pane is one pane as list-panes reports it.
type Pane struct {
	PaneID             string `json:"pane_id" jsonschema:"pane id, e.g. %1"`
	PaneIndex          int    `json:"pane_index"`
	PaneWidth          int    `json:"pane_width"`
	PaneHeight         int    `json:"pane_height"`
	PaneLeft           int    `json:"pane_left"`
	PaneTop            int    `json:"pane_top"`
	PaneRight          int    `json:"pane_right"`
	PaneBottom         int    `json:"pane_bottom"`
	PaneAtLeft         bool   `json:"pane_at_left"`
	PaneAtRight        bool   `json:"pane_at_right"`
	PaneAtTop          bool   `json:"pane_at_top"`
	PaneAtBottom       bool   `json:"pane_at_bottom"`
	PaneTTY            string `json:"pane_tty"`
	PaneCurrentCommand string `json:"pane_current_command"`
	PaneCurrentPath    string `json:"pane_current_path"`
	PanePID            int    `json:"pane_pid"`
	PaneTitle          string `json:"pane_title"`
	PaneActive         bool   `json:"pane_active"`
	PaneDead           bool   `json:"pane_dead"`
	PaneInMode         bool   `json:"pane_in_mode"`
	WindowID           string `json:"window_id"`
	WindowIndex        int    `json:"window_index"`
	SessionID          string `json:"session_id"`
	SessionName        string `json:"session_name"`
	// Synchronized is tmux's synchronize-panes for the pane: keys sent to it (send-keys,
	// including a run's typing) also go to the other panes of its window that have it on.
	Synchronized bool `json:"-"`
	WindowPanes  int  `json:"-"` // how many panes its window has
}

// TypesIntoOthers says whether keys sent to the pane may also reach other panes of its window
// (synchronize-panes on, and the window has more than this pane). paste-buffer is never copied.
func (p Pane) TypesIntoOthers() bool { return p.Synchronized && p.WindowPanes > 1 }

// Client is one client attached to the server.
type Client struct {
	Name        string
	TTY         string
	PID         int
	ControlMode bool
	SessionID   string
	WindowID    string // the client's current window
	PaneID      string // that window's active pane
	Zoomed      bool   // that window is zoomed
	ReadOnly    bool   // attached read-only (tmux attach -r): it cannot type
}

// Person reports whether a person works through c: a terminal client, or a control-mode client
// in a terminal (iTerm2's tmux -CC integration shows the windows as its own tabs, and the person
// types into them). A program's control-mode client (tmux-mcp's own, another agent's) has no
// terminal: its client_tty is empty.
func (c Client) Person() bool { return !c.ControlMode || c.TTY != "" }

var sessionFields = []field{
	{name: "session_id"}, {name: "session_name", text: true}, {name: "session_windows"},
	{name: "session_created"}, {name: "window_id"}, {name: "pane_id"},
}

var windowFields = []field{
	{name: "window_id"}, {name: "window_name", text: true}, {name: "window_index"},
	{name: "session_id"}, {name: "session_name", text: true}, {name: "window_panes"},
	{name: "window_layout"}, {name: "window_active"}, {name: "window_width"}, {name: "window_height"},
	{name: "window_zoomed_flag"}, {name: "pane_id"},
}

var paneFields = []field{
	{name: "pane_id"}, {name: "pane_index"}, {name: "pane_width"}, {name: "pane_height"},
	{name: "pane_left"}, {name: "pane_top"}, {name: "pane_right"}, {name: "pane_bottom"},
	{name: "pane_at_left"}, {name: "pane_at_right"}, {name: "pane_at_top"}, {name: "pane_at_bottom"},
	{name: "pane_tty", text: true}, {name: "pane_current_command", text: true},
	{name: "pane_current_path", text: true}, {name: "pane_pid"}, {name: "pane_title", text: true},
	{name: "pane_active"}, {name: "pane_dead"}, {name: "pane_in_mode"}, {name: "window_id"},
	{name: "window_index"}, {name: "session_id"}, {name: "session_name", text: true},
	{name: "pane_synchronized"}, {name: "window_panes"},
}

// paneListFields are paneFields as Snapshot lists them, with the costly fields printed once.
var paneListFields = printedOnce(paneFields, "pane_current_command", "pane_current_path")

var clientFields = []field{
	{name: "client_name", text: true}, {name: "client_tty", text: true}, {name: "client_pid"},
	{name: "client_control_mode"}, {name: "session_id"}, {name: "window_id"}, {name: "pane_id"},
	{name: "window_zoomed_flag"}, {name: "client_readonly"},
}

var (
	sessionFormat = format(sessionFields)
	windowFormat  = format(windowFields)
	paneFormat    = format(paneFields)
	clientFormat  = format(clientFields)
)

func sessionFromRow(r row) Session {
	return Session{
		SessionID: r.str("session_id"), SessionName: r.str("session_name"),
		WindowCount: r.int("session_windows"), Created: r.int64("session_created"),
		ActiveWindowID: r.str("window_id"), ActivePaneID: r.str("pane_id"),
	}
}

func windowFromRow(r row) Window {
	return Window{
		WindowID: r.str("window_id"), WindowName: r.str("window_name"), WindowIndex: r.int("window_index"),
		SessionID: r.str("session_id"), SessionName: r.str("session_name"), PaneCount: r.int("window_panes"),
		WindowLayout: r.str("window_layout"), WindowActive: r.bool("window_active"),
		WindowWidth: r.int("window_width"), WindowHeight: r.int("window_height"),
		WindowZoomed: r.bool("window_zoomed_flag"), ActivePaneID: r.str("pane_id"),
	}
}

func paneFromRow(r row) Pane {
	return Pane{
		PaneID: r.str("pane_id"), PaneIndex: r.int("pane_index"),
		PaneWidth: r.int("pane_width"), PaneHeight: r.int("pane_height"),
		PaneLeft: r.int("pane_left"), PaneTop: r.int("pane_top"),
		PaneRight: r.int("pane_right"), PaneBottom: r.int("pane_bottom"),
		PaneAtLeft: r.bool("pane_at_left"), PaneAtRight: r.bool("pane_at_right"),
		PaneAtTop: r.bool("pane_at_top"), PaneAtBottom: r.bool("pane_at_bottom"),
		PaneTTY: r.str("pane_tty"), PaneCurrentCommand: r.str("pane_current_command"),
		PaneCurrentPath: r.str("pane_current_path"), PanePID: r.int("pane_pid"),
		PaneTitle: r.str("pane_title"), PaneActive: r.bool("pane_active"),
		PaneDead: r.bool("pane_dead"), PaneInMode: r.bool("pane_in_mode"),
		WindowID: r.str("window_id"), WindowIndex: r.int("window_index"),
		SessionID: r.str("session_id"), SessionName: r.str("session_name"),
		Synchronized: r.bool("pane_synchronized"), WindowPanes: r.int("window_panes"),
	}
}

func clientFromRow(r row) Client {
	return Client{
		Name: r.str("client_name"), TTY: r.str("client_tty"), PID: r.int("client_pid"),
		ControlMode: r.bool("client_control_mode"), SessionID: r.str("session_id"),
		WindowID: r.str("window_id"), PaneID: r.str("pane_id"), Zoomed: r.bool("window_zoomed_flag"),
		ReadOnly: r.bool("client_readonly"),
	}
}

// Snapshot is the server's topology read in one instant (one tmux command list).
type Snapshot struct {
	Sessions []Session
	Windows  []Window
	Panes    []Pane
	Clients  []Client
	// Parts says which parts were read (an empty part that was not read is nil, like one that
	// holds nothing).
	Parts What
}

// What selects the parts of a Snapshot to read.
type What uint8

// Parts of a snapshot.
const (
	WithSessions What = 1 << iota
	WithWindows
	WithPanes
	WithClients
	WithAll = WithSessions | WithWindows | WithPanes | WithClients
)

// listArgs are the tmux commands that read the parts of a snapshot, panes with paneFields.
func listArgs(what What, paneFields []field) [][]string {
	var cmds [][]string
	if what&WithSessions != 0 {
		cmds = append(cmds, []string{"list-sessions", "-F", sessionFormat})
	}
	if what&WithWindows != 0 {
		cmds = append(cmds, []string{"list-windows", "-a", "-F", windowFormat})
	}
	if what&WithPanes != 0 {
		cmds = append(cmds, []string{"list-panes", "-a", "-F", format(paneFields)})
	}
	if what&WithClients != 0 {
		cmds = append(cmds, []string{"list-clients", "-F", clientFormat})
	}
	return cmds
}

// Snapshot reads the selected parts of the topology in one command list. A server that is not
// running gives ErrServerNotRunning.
func (s *Server) Snapshot(ctx context.Context, what What) (*Snapshot, error) {
	out, err := s.Query(ctx, listArgs(what, paneListFields)...)
	if err != nil {
		return nil, err
	}
	snap, err := parseSnapshot(what, out, paneListFields)
	if err != nil && what&WithPanes != 0 {
		// A pane's command or path holds the separator: read it all again, with every text
		// field length-prefixed.
		if out, err = s.Query(ctx, listArgs(what, paneFields)...); err != nil {
			return nil, err
		}
		snap, err = parseSnapshot(what, out, paneFields)
	}
	return snap, err
}

// parseSnapshot parses the replies of listArgs(what, panes).
func parseSnapshot(what What, out [][]string, panes []field) (*Snapshot, error) {
	return parseParts(what, out, sessionFields, windowFields, panes, nil)
}

// parseParts parses the replies of the parts what selects, in their order, with the fields
// given for each (clients: clientFields); check, when set, may refuse a record row.
func parseParts(what What, out [][]string, sessions, windows, panes []field, check func(row) error) (*Snapshot, error) {
	snap := &Snapshot{Parts: what}
	i := 0
	next := func(part What, fields []field, add func(row)) error {
		if what&part == 0 {
			return nil
		}
		if i >= len(out) {
			return fmt.Errorf("tmux returned %d replies, expected more", len(out))
		}
		rows, err := parseRows(fields, out[i])
		i++
		if err != nil {
			return err
		}
		for _, r := range rows {
			if check != nil && part != WithClients {
				if err := check(r); err != nil {
					return err
				}
			}
			add(r)
		}
		return nil
	}
	for _, p := range []struct {
		part   What
		fields []field
		add    func(row)
	}{
		{WithSessions, sessions, func(r row) { snap.Sessions = append(snap.Sessions, sessionFromRow(r)) }},
		{WithWindows, windows, func(r row) { snap.Windows = append(snap.Windows, windowFromRow(r)) }},
		{WithPanes, panes, func(r row) { snap.Panes = append(snap.Panes, paneFromRow(r)) }},
		{WithClients, clientFields, func(r row) { snap.Clients = append(snap.Clients, clientFromRow(r)) }},
	} {
		if err := next(p.part, p.fields, p.add); err != nil {
			return nil, err
		}
	}
	if what&WithSessions != 0 && what&WithClients != 0 {
		for i := range snap.Sessions {
			snap.Sessions[i].AttachedClients = snap.TerminalClients(snap.Sessions[i].SessionID)
		}
	}
	return snap, nil
}

// TerminalClients counts the clients attached to session through which a person works (Person).
func (snap *Snapshot) TerminalClients(sessionID string) int {
	n := 0
	for _, c := range snap.Clients {
		if c.Person() && c.SessionID == sessionID {
			n++
		}
	}
	return n
}

// Watched returns the panes a person is working in: for every person's client that can type,
// every pane of its current window, or only the active pane when that window is zoomed. A
// read-only client (tmux attach -r) only watches: a person can follow an agent's runs that way.
func (snap *Snapshot) Watched() map[string]bool {
	seen := map[string]bool{}
	for _, c := range snap.Clients {
		if !c.Person() || c.ReadOnly || c.WindowID == "" {
			continue
		}
		if c.Zoomed {
			seen[c.PaneID] = true
			continue
		}
		for _, p := range snap.Panes {
			if p.WindowID == c.WindowID {
				seen[p.PaneID] = true
			}
		}
	}
	return seen
}

// Watches reports whether a person's client that can type shows p (see Watched), from the
// clients alone: p need not be among the snapshot's panes.
func (snap *Snapshot) Watches(p Pane) bool {
	for _, c := range snap.Clients {
		if !c.Person() || c.ReadOnly || c.WindowID == "" || c.WindowID != p.WindowID {
			continue
		}
		if !c.Zoomed || c.PaneID == p.PaneID {
			return true
		}
	}
	return false
}

// Pane returns the pane with id from the snapshot.
func (snap *Snapshot) Pane(id string) (Pane, bool) {
	for _, p := range snap.Panes {
		if p.PaneID == id {
			return p, true
		}
	}
	return Pane{}, false
}

// SessionWindows returns the windows of a session, in tmux's order (never nil).
func (snap *Snapshot) SessionWindows(sessionID string) []Window {
	out := []Window{}
	for _, w := range snap.Windows {
		if w.SessionID == sessionID {
			out = append(out, w)
		}
	}
	return out
}

// WindowPanes returns the panes of w as seen through w's session (a window linked into several
// sessions lists its panes once per session).
func (snap *Snapshot) WindowPanes(w Window) []Pane {
	var out []Pane
	for _, p := range snap.Panes {
		if p.WindowID == w.WindowID && p.SessionID == w.SessionID {
			out = append(out, p)
		}
	}
	return out
}
