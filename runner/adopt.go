package runner

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"syscall"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/termstate"
	"github.com/tmux-mcp/tmux-mcp/shellrun"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// A run outlives the server process that started it (the client restarted it): its pane keeps a
// tmux user option naming the run (persist), so the next process for the same tmux server
// finds it (Adopt), follows its output from then on, reads its end marker, and holds the pane
// meanwhile. What the run printed before the adoption is not in its result (MissedBytes and
// OutputComplete say so).

// runOption is the pane user option that names a run while it runs.
const runOption = "@tmux_mcp_run"

// persisted is what runOption holds, as JSON.
type persisted struct {
	ID      string `json:"id"`
	Holder  string `json:"holder"`
	Command string `json:"command"`
	Path    string `json:"path"`    // the wrapper script, removed with its companions at the end
	Started int64  `json:"started"` // unix milliseconds
	PID     int    `json:"pid"`     // the server process that started it
	Shell   string `json:"shell"`   // the pane's command before the run (its shell)
}

// persist returns the op that names the run in its pane's option, to run with the Enter that
// starts it.
func (x *run) persist() []tmux.Op {
	b, err := json.Marshal(persisted{ID: x.id, Holder: x.req.Holder, Command: x.req.Command, Path: x.path,
		Started: x.rec.Started.UnixMilli(), PID: os.Getpid(), Shell: x.req.pane.PaneCurrentCommand})
	if err != nil {
		return nil
	}
	x.persisted = true
	return []tmux.Op{&tmux.SetPaneOption{Pane: x.req.pane.PaneID, Name: runOption, Value: string(b)}}
}

// unpersist removes the run's name from its pane once it ended (res is its result, nil when
// nothing ran). It leaves the name when this process is closing and the run's end was not
// seen: its stream ended with the process (Close ends the tmux handles), not with the command,
// which runs on for the next process to adopt.
//
// It reports whether the pane's shell is seen gone: the pane (or its server) no longer exists,
// or, on this machine, the shell's process does not. tmux marks a pane dead only once every
// holder of its terminal closed it, and the run's own subshell still held it when it printed
// the end marker; the shell itself may still be exiting then, so a shell killed by its own
// command (kill -9 $$) is not always seen (the next call on the pane then says it is gone).
func (x *run) unpersist(res *Result) (shellGone bool) {
	if !x.persisted || x.outlives(res) {
		return false
	}
	x.persisted = false
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := x.eng.Do(ctx, &tmux.UnsetPaneOption{Pane: x.req.pane.PaneID, Name: runOption})
	if err != nil {
		return errors.Is(err, tmux.ErrNotFound) || errors.Is(err, tmux.ErrServerNotRunning)
	}
	return x.ts != nil && x.ts.Local() && processGone(x.req.pane.PanePID)
}

// processGone reports whether no process has pid (a zombie not yet reaped still counts).
func processGone(pid int) bool {
	return pid > 0 && syscall.Kill(pid, 0) == syscall.ESRCH
}

// outlives reports whether the run ends only for this process: the runner is closed, and
// neither the end marker came nor was the run abandoned (its pane killed or respawned).
func (x *run) outlives(res *Result) bool {
	x.r.mu.Lock()
	closed := x.r.closed
	x.r.mu.Unlock()
	return closed && !x.abandoned.Load() && (res == nil || res.Outcome != Completed)
}

// Adopt returns the run holding pane p: this Runner's, or one an earlier server process
// started there and that still runs, which it follows from now on as its own. It returns nil
// when there is none; endedUnseen names a run of an earlier process that ended while no server
// watched (its exit status is lost; its name is removed from the pane).
func (r *Runner) Adopt(ctx context.Context, ts *tmux.Server, p tmux.Pane) (rec *Record, endedUnseen string, err error) {
	return r.AdoptFrom(ctx, ts, p, nil)
}

// AdoptRead returns the read Adopt makes of pane: a caller that reads the pane anyway runs it
// in the same command list and passes it to AdoptFrom, which then asks tmux nothing more
// unless a run is there to adopt.
func AdoptRead(pane string) *tmux.PaneOption {
	return &tmux.PaneOption{Pane: pane, Name: runOption}
}

// AdoptFrom is Adopt given opt, AdoptRead's op of pane p already run (in the command list
// that read p). A nil opt, or one of another pane, is read now.
func (r *Runner) AdoptFrom(ctx context.Context, ts *tmux.Server, p tmux.Pane, opt *tmux.PaneOption) (rec *Record, endedUnseen string, err error) {
	ident, err := ts.Identity(ctx)
	if err != nil {
		return nil, "", err
	}
	k := Key{ident, p.PaneID}
	if rec := r.reg.current(k); rec != nil {
		return rec, "", nil
	}
	if opt == nil || opt.Pane != p.PaneID {
		opt = AdoptRead(p.PaneID)
		if err := ts.Do(ctx, opt); err != nil {
			return nil, "", nil
		}
	}
	if opt.Value == "" {
		return nil, "", nil
	}
	var ps persisted
	if json.Unmarshal([]byte(opt.Value), &ps) != nil || ps.ID == "" || ps.PID == os.Getpid() || !stillRunning(r.table, p, ps.Shell, ts.Local()) {
		ts.Do(ctx, &tmux.UnsetPaneOption{Pane: p.PaneID, Name: runOption})
		if ps.PID == os.Getpid() || ps.ID == "" {
			return nil, "", nil
		}
		return nil, ps.Holder, nil
	}
	rec, err = r.reg.reserve(k, ps.Holder, ps.Command)
	if err != nil {
		return r.reg.current(k), "", nil
	}
	rec.Started = time.UnixMilli(ps.Started)
	if err := r.follow(ctx, ts, p, ps, rec); err != nil {
		r.reg.end(rec, nil)
		return nil, "", err
	}
	return rec, "", nil
}

// follow makes rec's run from the stream of pane p, from now on, and waits for its end in the
// background.
func (r *Runner) follow(ctx context.Context, ts *tmux.Server, p tmux.Pane, ps persisted, rec *Record) error {
	w, err := ts.WatchPane(ctx, p.PaneID)
	if err != nil {
		return err
	}
	x := &run{r: r, ts: ts, eng: ts, req: Request{pane: p, PaneID: p.PaneID, Holder: ps.Holder, Command: ps.Command,
		MaxLines: DefaultMaxLines, MaxBytes: 1_000_000}, id: ps.ID, path: ps.Path, rec: rec,
		phase: started, persisted: true, adopted: true}
	x.f = stream.NewFollower(w, w.Offset())
	x.gone, x.give = context.WithCancel(context.Background())
	x.col = newCollector(ps.ID, bodyWindow, func(id string) bool { return id == ps.ID || r.minted.has(id) })
	// Its start went by before this process: the body starts partway.
	x.col.started, x.col.lostStart, x.col.startAt, x.col.bodyAt = true, true, -1, -1
	x.col.keepLines = x.req.MaxLines
	x.missed = 1
	rec.mu.Lock()
	rec.live = x
	rec.mu.Unlock()
	r.reg.attach(rec)
	go x.background()
	return nil
}

// stillRunning reports whether a command runs in pane p rather than its shell (named shell
// when the run began). Where the process table tells (/proc, kinfo_proc): the terminal's
// foreground process group is not the shell's, or the shell runs a child in its own group.
// Else tmux's pane_current_command differs from the shell's name, or the terminal is in line
// mode under a line-editing shell (lineMode).
func stillRunning(t *termstate.Table, p tmux.Pane, shell string, local bool) bool {
	if p.PaneDead {
		return false
	}
	if leader, gone, ok := t.Foreground(p.PanePID); ok {
		switch {
		case gone:
			return false
		case leader.PID != p.PanePID:
			return true
		}
		// fish runs a sourced wrapper's child fish in its own group. A child there is not
		// enough (fish's own background jobs share the group, and so do the commands its
		// prompt runs, git for fish_vcs_prompt): the child must be a fish, and the shell must
		// also wait on something other than its terminal, or have given the terminal back in
		// line mode.
		busy := leader.Wait != "" && !leader.WaitsInput() || lineMode(p, shell, local)
		return busy && childFish(t, leader)
	}
	if shell == "" || p.PaneCurrentCommand != shell {
		return true
	}
	// tmux names the foreground group's leader: the shell's own name for bash's subshell
	// wrapper and for fish's child fish.
	return lineMode(p, shell, local)
}

// lineMode reports whether pane p's shell (named shell) reads its prompt with a line editor,
// which sets the terminal raw, and the terminal (read when local) is in line mode, as the
// editor leaves it to the commands it runs. A command that reads keys raw (an editor) looks
// like the prompt.
func lineMode(p tmux.Pane, shell string, local bool) bool {
	sh, ok := shellrun.ShellOf(shell)
	if !ok || !lineEditing[sh] || !local {
		return false
	}
	m, err := termstate.ReadMode(p.PaneTTY)
	return err == nil && !m.Raw()
}

// childFish reports whether the shell (leader, the leader of its group) has a child of its
// own program (a fish for fish) in its own process group: the wrapper's, which it runs
// without a group of its own (bash and the others give every job its group).
func childFish(t *termstate.Table, leader termstate.Proc) bool {
	kids, _ := t.Children(leader.PID)
	for k := range kids {
		if c, ok := t.Proc(k); ok && c.PGID == leader.PID && (c.Name == leader.Name || c.Comm == leader.Comm) {
			return true
		}
	}
	return false
}
