package runner

import (
	"context"
	"errors"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/termstate"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// A wrapper whose end marker never comes (the command replaced the wrapper's EXIT trap out of
// sight, through a function of the user's shell or a sourced file, or killed its own subshell;
// bash and zsh print it again after the subshell, the other shells cannot) would hold its
// pane forever. Where the wrapper runs in processes of its own, their end is
// seen in /proc instead: the interactive shell's children when the line is typed are noted,
// and once a timed-out run is in the background, every chunk of pane output (the shell's next
// prompt, at the latest) checks whether the wrapper's processes are still there; while a call
// waits, its look for a command waiting for input does (inputStop, lostEnd), so the call
// returns, completed with the status lost. An idle pane costs nothing; a run's pane that
// prints nothing has its shell looked at every shellPoll.

// forkingShells are the shells whose wrapper runs whole in a child process, the subshell that
// prints the end marker. ksh93 runs "( )" in its own process (a virtual subshell), so its
// wrapper is invisible in /proc; fish prints the end marker itself after its child fish ends,
// and no command can break that frame; "sh" is whatever /bin/sh is, which is why the shell's
// executable is read rather than its name.
var forkingShells = map[string]bool{"bash": true, "dash": true, "ash": true, "busybox": true, "mksh": true, "zsh": true}

// procWatch follows the processes of one wrapper.
type procWatch struct {
	table  *termstate.Table
	shell  int          // the interactive shell the line was typed into
	before map[int]bool // its children before the line was typed
	sub    map[int]bool // the wrapper's processes, once the start marker was seen
}

// watchShell returns a procWatch for the interactive shell pid the line is typed into, or nil
// when it cannot be followed (no /proc, a shell that does not fork its wrapper).
func (r *Runner) watchShell(shell int) *procWatch {
	if p, ok := r.table.Proc(shell); !ok || !forkingShells[p.Name] {
		return nil
	}
	kids, ok := r.table.Children(shell)
	if !ok {
		return nil
	}
	return &procWatch{table: r.table, shell: shell, before: kids}
}

// gone reports whether the wrapper's processes have all ended. The first call after the start
// marker notes them (the shell's new children); a wrapper already gone by then counts as gone.
func (p *procWatch) gone() bool {
	kids, ok := p.table.Children(p.shell)
	if !ok {
		return false // the shell itself is gone: the stream's end says so
	}
	if p.sub == nil {
		p.sub = map[int]bool{}
		for k := range kids {
			if !p.before[k] {
				p.sub[k] = true
			}
		}
		return len(p.sub) == 0
	}
	for k := range p.sub {
		if kids[k] {
			return false
		}
	}
	return true
}

// lostEnd reports whether the wrapper's processes are gone with no end marker, and lost once
// they have been for lostEndGrace (the marker can come after /proc saw them end, on a loaded
// machine): the run then completed with its status lost, not pane_died (its pane lives on).
// The call asks while it waits (inputStop), the background wait after a timed-out call after
// each chunk of output and every shellPoll.
func (x *run) lostEnd() (gone, lost bool) {
	x.procsMu.Lock()
	defer x.procsMu.Unlock()
	if x.procs == nil || !x.procs.gone() {
		x.procsGone = time.Time{}
		return false, false
	}
	if x.procsGone.IsZero() {
		x.procsGone = time.Now()
	}
	if time.Since(x.procsGone) < lostEndGrace {
		return true, false
	}
	x.mu.Lock()
	x.statusLost = true
	x.mu.Unlock()
	return true, true
}

// lostEndGrace is how long a run whose wrapper's processes ended waits for its end marker.
const lostEndGrace = 3 * time.Second

// shellPoll is how often a run waiting without output looks whether its pane's shell is
// still there (shellDied): a /proc read, no tmux round trip.
const shellPoll = time.Second

// shellEndGrace bounds the wait for the end marker once the shell is gone: the wrapper's last
// output may still be on its way through tmux.
const shellEndGrace = 500 * time.Millisecond

// errShellGone ends a run whose pane outlived its shell.
var errShellGone = errors.New("the pane's shell ended")

// shellDied reports whether the interactive shell the line was typed into is gone while the
// stream goes on: the pane lives on without it when remain-on-exit keeps it dead (the command
// killed its shell) or respawn-pane -k, from a person's key binding, started another program
// there. Neither ends the pane's stream at once (tmux says nothing of a pane's death unless
// its window's automatic name changes with it), and a dead pane prints nothing to look again
// on, so the run would hold the pane as running forever. With a process table, the shell's
// process is looked for; without one, tmux is asked whether the pane is dead.
func (x *run) shellDied(ctx context.Context) bool {
	switch {
	case x.phase < entered:
		return false
	case x.shell != 0:
		return x.r.table.Exited(x.shell)
	}
	return x.paneDead(ctx)
}

// paneDead reports whether the run's pane is there, dead (its program exited under
// remain-on-exit).
func (x *run) paneDead(ctx context.Context) bool {
	st := &tmux.Screen{Pane: x.req.pane.PaneID}
	return x.eng.Do(ctx, st) == nil && st.Dead
}

// deadPane tells, for a run whose pane's stream ended as the pane's (stream.ErrPaneGone), a
// pane that is still there, dead under remain-on-exit, from one that went: the first is the
// shell ending with the command (errShellGone), which the stream's end can tell before
// shellDied does.
func (x *run) deadPane(ctx context.Context) {
	x.mu.Lock()
	ended := x.ended
	x.mu.Unlock()
	if !errors.Is(ended, stream.ErrPaneGone) || x.abandoned.Load() || !x.paneDead(context.WithoutCancel(ctx)) {
		return
	}
	x.mu.Lock()
	x.ended = errShellGone
	x.mu.Unlock()
}

// shellEnded ends the run whose shell died (shellDied): once its end marker, if it comes
// within shellEndGrace, else as its pane's death.
func (x *run) shellEnded(ctx context.Context) {
	gctx, cancel := context.WithTimeout(ctx, shellEndGrace)
	defer cancel()
	for !x.pump(gctx) && gctx.Err() == nil {
		x.f.Wait(gctx)
	}
	x.deadPane(ctx) // the dead pane's stream may have ended meanwhile
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.col.done && x.ended == nil {
		x.ended = errShellGone
	}
}
