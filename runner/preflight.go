package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Reason says why a pane was refused.
type Reason int

// Refusal reasons, in the order Check tests them.
const (
	NoPane       Reason = iota + 1 // the pane does not exist
	Dead                           // the pane is dead (remain-on-exit)
	InMode                         // copy mode or another mode
	Synchronized                   // synchronize-panes: the typed line would run in other panes too
	Watched                        // a terminal client has it on screen; force never overrides
	Caller                         // the pane this server runs in, without force
	Busy                           // reserved by an unfinished run of this server
	NotShell                       // the foreground program is not a supported shell
	ShellBusy                      // the shell is not at its prompt (still starting, or running something itself)
	LostRun                        // the previous run was lost from view and no prompt shows since
)

// Refusal is a preflight failure: nothing was sent to the pane.
type Refusal struct {
	Reason  Reason
	Pane    string
	Program string // the foreground program (NotShell)
	Mode    string // the pane's mode (InMode), when known
	Holder  string // what reserves the pane (Busy)
	Running string // the programs the shell runs itself (ShellBusy), when known
	// Starting is how long the shell has been starting, as far as the run knows (ShellBusy: it
	// started a moment ago, or the pane still shows nothing, and it did not reach its prompt
	// within the run's timeout); 0 otherwise.
	Starting time.Duration
	Window   string // the pane's window (Synchronized)
}

func (r *Refusal) Error() string {
	switch r.Reason {
	case NoPane:
		return fmt.Sprintf("no pane has id %s", r.Pane)
	case Dead:
		return fmt.Sprintf("pane %s is dead: its program exited, and tmux keeps the pane (its remain-on-exit option)", r.Pane)
	case InMode:
		if r.Mode != "" {
			return fmt.Sprintf("pane %s is in %s", r.Pane, r.Mode)
		}
		return fmt.Sprintf("pane %s is in a mode (e.g. copy mode)", r.Pane)
	case Synchronized:
		return fmt.Sprintf("pane %s is in a window with synchronize-panes on: what is typed into it is also typed into the other panes of its window, so the command would run there too; nothing was typed", r.Pane)
	case Watched:
		return fmt.Sprintf("pane %s is on a person's screen (a terminal client shows it); commands are never typed into a watched pane, even with force", r.Pane)
	case Caller:
		return fmt.Sprintf("pane %s is the pane this MCP server runs in", r.Pane)
	case Busy:
		return fmt.Sprintf("pane %s is busy: %s is still running in it", r.Pane, r.Holder)
	case NotShell:
		return fmt.Sprintf("pane %s is running %q, which is not a shell this tool can frame (sh, ash, dash, bash, ksh, mksh, zsh, fish)", r.Pane, r.Program)
	case ShellBusy:
		if r.Starting > 0 {
			s := fmt.Sprintf("the shell in pane %s is still starting: no prompt after %s", r.Pane, r.Starting.Round(100*time.Millisecond))
			if r.Running != "" {
				s += " (its start-up files run " + r.Running + ")"
			}
			return s
		}
		if r.Running != "" {
			return fmt.Sprintf("the shell in pane %s is not at its prompt: it runs %s itself (its start-up files, a program one of its key bindings started, such as fzf's C-r, or a loop typed at its prompt)", r.Pane, r.Running)
		}
		return fmt.Sprintf("the shell in pane %s is not at its prompt (it is still starting, or runs something itself, such as a loop typed at its prompt)", r.Pane)
	case LostRun:
		return fmt.Sprintf("pane %s shows no prompt since its last run was lost from view (the connection to its host dropped): that command may still be running, and would read the typed line as its input; nothing was typed", r.Pane)
	}
	return fmt.Sprintf("pane %s refused", r.Pane)
}

// Guard is what Check needs to know besides the snapshot.
type Guard struct {
	// CallerPane is the pane this server runs in on that tmux server, "" when none: the
	// caller's policy decides it (server/policy's Place.OwnPane, which also refuses a run
	// while the own pane is unknown); Check only refuses it in its turn.
	CallerPane string
	Force      bool // allow CallerPane (never a watched pane)
	// AllowWatched lets runs type into panes a person has on screen: an operator's choice for
	// a deployment (force never overrides the watched guard).
	AllowWatched bool
	// Busy, when set, says whether the pane is reserved by an unfinished run, and by what. It
	// is asked before the foreground program is judged: a run's own command is not a shell.
	Busy func(paneID string) (holder string, busy bool)
}

// Check is a run's preflight, the conditions under which typing into a pane is safe, on a
// snapshot holding panes and clients: the pane exists and is alive, is not in a mode, does not
// pass its keys on to other panes (synchronize-panes), is not watched by a terminal client, is not the
// caller's pane unless forced, and is not reserved (Guard.Busy). It returns the pane, or a
// *Refusal. Whether a shell is at its prompt in it is Run's to find out (it waits for one that
// is starting).
func Check(snap *tmux.Snapshot, paneID string, g Guard) (tmux.Pane, error) {
	p, ok := snap.Pane(paneID)
	if !ok {
		return p, &Refusal{Reason: NoPane, Pane: paneID}
	}
	switch {
	case p.PaneDead:
		return p, &Refusal{Reason: Dead, Pane: paneID}
	case p.PaneInMode:
		return p, &Refusal{Reason: InMode, Pane: paneID}
	case p.TypesIntoOthers():
		return p, &Refusal{Reason: Synchronized, Pane: paneID, Window: p.WindowID}
	case !g.AllowWatched && snap.Watched()[paneID]:
		return p, &Refusal{Reason: Watched, Pane: paneID}
	case g.CallerPane != "" && g.CallerPane == paneID && !g.Force:
		return p, &Refusal{Reason: Caller, Pane: paneID}
	}
	if g.Busy != nil {
		if h, busy := g.Busy(paneID); busy {
			return p, &Refusal{Reason: Busy, Pane: paneID, Holder: h}
		}
	}
	return p, nil
}

// recheckPane runs the preflight again just before the line is typed when the run waited
// since the pane was checked (a shell still starting, a command of the pane's own ending, a
// second attempt): meanwhile a person may have switched to its window, entered copy mode or
// turned synchronize-panes on, and keys typed then would land under their eyes. Nothing is
// typed when it refuses. A run that did not wait was checked an instant ago: no round trip.
func (x *run) recheckPane(ctx context.Context) error {
	if !x.waited || x.ts == nil {
		return nil
	}
	x.waited = false
	id := x.req.pane.PaneID
	snap, err := x.ts.SnapshotOf(ctx, id, tmux.WithPanes|tmux.WithClients)
	if errors.Is(err, tmux.ErrLinked) {
		snap, err = x.ts.Snapshot(ctx, tmux.WithPanes|tmux.WithClients)
	}
	if errors.Is(err, tmux.ErrNotFound) {
		return &Refusal{Reason: NoPane, Pane: id}
	}
	if err != nil {
		return fmt.Errorf("reading pane %s again before typing: %w", id, err)
	}
	g := x.req.Guard
	g.Busy = nil // the pane is this run's own now
	_, err = Check(snap, id, g)
	return err
}
