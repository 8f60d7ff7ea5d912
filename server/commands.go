package server

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
	"github.com/tmux-mcp/tmux-mcp/tmux/cmdhist"
	"github.com/tmux-mcp/tmux-mcp/tmux/live"
	"github.com/tmux-mcp/tmux-mcp/tmux/marks"
)

// commandTools: what people (and runs) ran in a pane, from its shell-integration marks.
func commandTools() []*Tool {
	return []*Tool{
		define(spec{Name: "list_commands", Title: "List Commands", Tier: policy.ReadOnly, Ann: annRO,
			Description: "Commands a pane's shell ran (anyone's), newest last, with exit status and cwd, from OSC 133 marks.",
			Input:       edits(def("limit", 20))},
			listCommands),
		define(spec{Name: "get_command_output", Title: "Command Output", Tier: policy.ReadOnly, Ann: annRO,
			Description: "A list_commands command's output (the newest by default) as clean lines, the newest max_lines kept.",
			Input:       edits(def("max_lines", 500))},
			getCommandOutput),
	}
}

type listCommandsIn struct {
	PaneTarget
	Limit *int `json:"limit,omitempty"`
	Socket
}

// CommandInfo is one command of a pane.
type CommandInfo struct {
	ID          int    `json:"id"`
	Command     string `json:"command"`
	ExitStatus  *int   `json:"exit_status"`
	Cwd         string `json:"cwd"`
	Started     string `json:"started"`
	DurationMs  int64  `json:"duration_ms"`
	OutputLines int    `json:"output_lines"`
	Running     bool   `json:"running"`
	ByServer    bool   `json:"by_server"`
}

type listCommandsOut struct {
	PaneID   string        `json:"pane_id"`
	Commands []CommandInfo `json:"commands"`
	// Note says when this server began reading the pane, unless it read it from its shell's
	// start: commands run before are unknown.
	Note string `json:"note,omitempty"`
}

// noMarksHint says how to get marks into a pane.
const noMarksHint = "Commands are listed from shell-integration marks (OSC 133): create the pane with shell_integration=true " +
	"(or set LIBTMUX_MCP_SHELL_INTEGRATION=1), or turn on the shell integration of the user's prompt (starship, oh-my-posh, fish 4, " +
	"or a terminal's: VS Code, WezTerm, kitty, Ghostty, iTerm2). Commands run after that are listed; capture_pane reads the screen meanwhile."

// paneHistory resolves the pane, follows it, and returns its follow, a copy of its commands,
// and whether its shell showed marks (without, only this server's runs are known).
func (c *Call) paneHistory(ctx context.Context, pt PaneTarget, sock *string) (*cmdhist.Pane, []marks.Command, bool, error) {
	t, err := c.pane(ctx, pt, sock)
	if err != nil {
		return nil, nil, false, err
	}
	f, err := c.srv.cmds.follow(ctx, t.ts, t.pane.PaneID, false)
	if err != nil {
		return nil, nil, false, fmt.Errorf("%w: %w", live.ErrNoStream, err)
	}
	cmds, saw := f.Commands(ctx)
	if len(cmds) == 0 && !saw {
		return nil, nil, false, fail(noMarksHint, "pane %s has shown no shell-integration marks since this server began following it (%s; it follows a pane from the first call that names it, so commands typed before are unknown)",
			t.pane.PaneID, f.Since().UTC().Format(time.RFC3339))
	}
	return f, cmds, saw, nil
}

func listCommands(ctx context.Context, c *Call, in *listCommandsIn) (listCommandsOut, error) {
	f, cmds, saw, err := c.paneHistory(ctx, in.PaneTarget, in.SocketName)
	if err != nil {
		return listCommandsOut{}, err
	}
	out := listCommandsOut{PaneID: f.ID(), Commands: []CommandInfo{}}
	older := 0
	if limit := deref(in.Limit); limit > 0 && len(cmds) > limit {
		older = len(cmds) - limit
		cmds = cmds[len(cmds)-limit:]
	}
	now := time.Now()
	for _, cm := range cmds {
		end := cm.Ended
		if cm.Running {
			end = now
		}
		out.Commands = append(out.Commands, CommandInfo{
			ID: cm.ID, Command: cm.Command, ExitStatus: cm.Status, Cwd: cm.Cwd,
			Started: cm.Started.UTC().Format(time.RFC3339Nano), DurationMs: end.Sub(cm.Started).Milliseconds(),
			OutputLines: cm.Lines, Running: cm.Running, ByServer: cm.ByServer,
		})
	}
	var notes []string
	if older > 0 {
		notes = append(notes, fmt.Sprintf("%d older commands are kept (a larger limit lists them).", older))
	}
	if !f.FromStart() {
		notes = append(notes, "Listed since "+f.Since().UTC().Format(time.RFC3339)+", when this server began following the pane; commands run before are unknown.")
	}
	if !saw {
		// Without marks a person's commands leave no trace: an empty list is not "nothing typed".
		notes = append(notes, "Only this server's runs are listed: the pane's shell shows no shell-integration marks (OSC 133), so commands a person typed there are unknown; a pane created with shell_integration=true has them.")
	}
	out.Note = strings.Join(notes, " ")
	return out, nil
}

// ---- get_command_output

type commandOutputIn struct {
	PaneTarget
	ID       *int `json:"id,omitempty"`
	Last     bool `json:"last,omitempty"`
	MaxLines *int `json:"max_lines,omitempty"`
	Socket
}

// CommandOutput is one command's output (list_commands has the rest of it).
type CommandOutput struct {
	ID    int      `json:"id"`
	Lines []string `json:"lines"`
	// DroppedLines are the older lines max_lines left out.
	DroppedLines int `json:"dropped_lines"`
	// OutputLost: part of the output is no longer held (the pane's stream buffer keeps its
	// last 1 MiB), or was lost from the stream.
	OutputLost bool `json:"output_lost"`
}

func getCommandOutput(ctx context.Context, c *Call, in *commandOutputIn) (CommandOutput, error) {
	// Neither id nor last: the newest, which a model calling it with a pane alone means.
	if in.ID != nil && in.Last {
		return CommandOutput{}, fail("Pass id or last=true, not both.", "id and last both name a command")
	}
	f, cmds, _, err := c.paneHistory(ctx, in.PaneTarget, in.SocketName)
	if err != nil {
		return CommandOutput{}, err
	}
	if len(cmds) == 0 {
		return CommandOutput{}, fail("Call it again once a command ran; list_commands lists them.", "no command has run in pane %s since this server began following it", f.ID())
	}
	cm := cmds[len(cmds)-1]
	if in.ID != nil {
		i := *in.ID - cmds[0].ID
		if i < 0 || i >= len(cmds) {
			return CommandOutput{}, fail(fmt.Sprintf("Pass an id from list_commands: %d to %d are kept.", cmds[0].ID, cmds[len(cmds)-1].ID),
				"id %d is not a kept command of pane %s", *in.ID, f.ID())
		}
		cm = cmds[i]
	}
	lines, dropped, lost := f.Output(cm, deref(in.MaxLines))
	return CommandOutput{ID: cm.ID, Lines: nonNil(lines), DroppedLines: dropped, OutputLost: lost}, nil
}
