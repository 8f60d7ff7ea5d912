package server

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/cmdhist"
)

// integrationOption is the pane option that tells doctor (and another process of this server)
// that this server started the pane's shell with its integration.
const integrationOption = "@tmux_mcp_shell_integration"

// follows are the panes whose shell-integration marks this server follows (commands.go).
type follows struct{ panes cmdhist.Panes }

// follow returns pane's follow, starting one (before the pane's shell prints, when fromStart).
func (fs *follows) follow(ctx context.Context, ts *tmux.Server, pane string, fromStart bool) (*cmdhist.Pane, error) {
	return fs.panes.Follow(ctx, ts, pane, fromStart)
}

// noteRun starts following the pane of a run about to start, so that the run is listed with
// its command line. Call the returned func once the run returned.
func (fs *follows) noteRun(ctx context.Context, ts *tmux.Server, pane, command string) func() {
	return fs.panes.NoteRun(ctx, ts, pane, command)
}

func (fs *follows) closeAll() { fs.panes.Close() }
