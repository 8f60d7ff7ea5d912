package server

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// PaneInfo is a pane as the tools report it.
type PaneInfo struct {
	tmux.Pane
	IsCaller  *bool `json:"is_caller" jsonschema:"true only for the pane this MCP server runs in (on this very server); null when the server is not inside tmux"`
	IsWatched bool  `json:"is_watched" jsonschema:"a terminal client has this pane on screen"`
	// InputHidden is set by get_pane_info and snapshot_pane only (inputHidden).
	InputHidden bool `json:"input_hidden,omitempty" jsonschema:"its program waits for hidden input (a password): use type_secret"`
}

// ServerInfo describes one tmux server.
type ServerInfo struct {
	IsAlive         bool   `json:"is_alive"`
	SocketName      string `json:"socket_name"`
	SocketPath      string `json:"socket_path"`
	Version         string `json:"version"`
	PID             int    `json:"pid"`
	SessionCount    int    `json:"session_count"`
	WindowCount     int    `json:"window_count"`
	PaneCount       int    `json:"pane_count"`
	AttachedClients int    `json:"attached_clients" jsonschema:"terminal clients; control-mode clients never count"`

	// Host is set, and advertised, only when hosts are configured (hostOnly).
	Host *string `json:"host,omitempty" jsonschema:"the host it runs on: a configured name, or local for this machine"`
}

// paneInfo adds is_caller and is_watched to a pane read in snap (its clients say which
// panes are watched).
func (c *Call) paneInfo(ctx context.Context, ts *tmux.Server, snap *tmux.Snapshot, p tmux.Pane) PaneInfo {
	return c.paneInfos(ctx, ts, snap, []tmux.Pane{p})[0]
}

func (c *Call) paneInfos(ctx context.Context, ts *tmux.Server, snap *tmux.Snapshot, panes []tmux.Pane) []PaneInfo {
	if snap.Parts&tmux.WithClients == 0 {
		// Read without them (a resolution that did not ask): is_watched needs the clients.
		if cl, err := ts.Snapshot(ctx, tmux.WithClients); err == nil {
			snap = cl
		}
	}
	out := make([]PaneInfo, len(panes))
	var id tmux.Identity
	caller := c.srv.caller
	if caller != nil && caller.PaneID != "" && ts.Local() {
		id, _ = ts.Identity(ctx)
	}
	for i, p := range panes {
		out[i] = PaneInfo{Pane: p, IsWatched: snap.Watches(p)}
		if caller != nil {
			// The caller runs on this machine: a server on another host is never its own.
			v := ts.Local() && caller.IsPane(id.SocketPath, id.PID, p.PaneID)
			out[i].IsCaller = &v
		}
	}
	return out
}

// isCallerServer reports whether this MCP server runs inside the tmux server ts (refusing when unsure).
func (c *Call) isCallerServer(ctx context.Context, ts *tmux.Server) bool {
	if c.srv.caller == nil || !ts.Local() {
		return false
	}
	id, err := ts.Identity(ctx)
	if err != nil {
		return true
	}
	return c.srv.caller.OnServer(id.SocketPath, id.PID)
}

// callerPlace is where this MCP server runs on ts, for the self-protection guards (policy.Place);
// snap, when not nil, holds the panes that tell its window and sessions.
func (c *Call) callerPlace(ctx context.Context, ts *tmux.Server, snap *tmux.Snapshot) policy.Place {
	var panes []tmux.Pane
	if snap != nil {
		panes = snap.Panes
	}
	return c.srv.caller.PlaceIn(c.isCallerServer(ctx, ts), panes)
}
