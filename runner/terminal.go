package runner

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/termstate"
	"github.com/tmux-mcp/tmux-mcp/shellrun"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// What a run knows of its pane's terminal on every platform, process table or not: tmux's own
// #{pane_current_command} (the foreground process group's program, which tmux reads for
// itself on each platform) and the mode of the pane's tty (termstate.ReadMode: a line editor,
// a pager or an editor reads keys in raw mode; a password prompt turns echo off). Where the
// process table can be read (Linux's /proc, macOS's and FreeBSD's kinfo_proc) it says more,
// and is used first.

// Waits of the portable reads.
const (
	// settle is how long a shell without a line editor (dash), named by tmux and with its
	// terminal in canonical mode, must stay so with nothing printed before a line is typed.
	settle = 150 * time.Millisecond
	// promptWait is how long a shell that looks ready (see awaitShellPortable) is given to
	// draw its prompt with the pane quiet, when the cursor's row stays blank (an empty prompt).
	promptWait = time.Second
	// inputQuiet is how long a run's pane must print nothing before its command is taken
	// for one waiting for input, and the call returns.
	inputQuiet = time.Second
	// inputPoll is how often a call looks whether its command waits for input.
	inputPoll = 250 * time.Millisecond
)

// lineEditing are the shells that read their prompt's line in raw mode, with a line editor of
// their own: their terminal in canonical mode means they are not at their prompt yet.
var lineEditing = map[shellrun.Shell]bool{shellrun.Bash: true, shellrun.Zsh: true, shellrun.FishShell: true,
	shellrun.Mksh: true, shellrun.Ksh: true, shellrun.Ash: true}

// mode reads the mode of the pane's terminal; false for a pane on another host or when it
// cannot be read.
func (x *run) mode() (termstate.Mode, bool) {
	if !x.ts.Local() {
		return termstate.Mode{}, false
	}
	m, err := termstate.ReadMode(x.req.pane.PaneTTY)
	return m, err == nil
}

// currentCommand is tmux's #{pane_current_command} now (the snapshot's when it cannot be read).
func (x *run) currentCommand(ctx context.Context) string {
	st := &tmux.Screen{Pane: x.req.pane.PaneID}
	if err := x.eng.Do(ctx, st); err != nil || st.Command == "" {
		return x.req.pane.PaneCurrentCommand
	}
	return st.Command
}

// awaitShellPortable is awaitShell without a process table: tmux names the foreground
// program, and the terminal's mode says whether a line editor reads keys. A shell with a line
// editor is ready once its terminal is raw (before that it is still starting, or runs
// something itself); a shell without one (dash) once it stayed so for settle with nothing
// printed; a program that is not a shell and reads keys (vim, less) is refused at once, any
// other (a launcher such as env or sh -c on its way to exec the shell) is waited for. A ready
// shell is at its prompt once the prompt is drawn (promptDrawn): a line editor sets raw mode
// before it computes its prompt, and dash looks settled while its prompt's command
// substitutions run, both for longer on a loaded machine; a line typed before the prompt shows
// in the wrong place, or its echo stays on the screen.
func (x *run) awaitShellPortable(ctx context.Context) error {
	p := x.req.pane
	deadline := time.Now().Add(shellWait)
	var seen string
	var since time.Time
	off := int64(-1)
	looked, starting := false, false
	for {
		cmd := x.currentCommand(ctx)
		sh, isShell := shellrun.ShellOf(cmd)
		m, known := x.mode()
		state := cmd + "\x00" + m.Name(known)
		if state != seen || x.f.Offset() != off {
			seen, since, off = state, time.Now(), x.f.Offset()
		}
		settled := time.Since(since) >= settle
		late := time.Now().After(deadline) || ctx.Err() != nil
		ready := isShell && (!known || m.Raw() || settled && !lineEditing[sh])
		// After a lost run, a quiet pane may be its command still running: only a prompt
		// drawn says the shell reads again.
		guessed := !x.lostPrev && (late || time.Since(since) >= promptWait)
		switch {
		case ready && (guessed || x.promptDrawn(ctx)):
			x.sh, x.rawPrompt = sh, known && m.Raw()
			return nil
		case !isShell && known && m.Raw() && settled:
			return &Refusal{Reason: NotShell, Pane: p.PaneID, Program: cmd}
		}
		if late && !looked && !x.lostPrev && (!isShell || lineEditing[sh]) {
			// Looked at once: a pane that shows nothing holds a shell still starting (tmux
			// names the program its start-up files run in the foreground, under zsh).
			looked = true
			if x.blank(ctx) {
				deadline, starting = maxTime(deadline, x.startBound(x.rec.Started)), true
				late = time.Now().After(deadline)
			}
		}
		if late {
			return x.lateShell(cmd, sh, isShell, starting)
		}
		x.skip(ctx, deadline)
	}
}

// lateShell is awaitShellPortable's answer once its wait is over: the refusal that says why no
// shell was found at its prompt, or none for a shell without a line editor (dash), which
// shows no sign of being at its prompt but a quiet pane.
func (x *run) lateShell(cmd string, sh shellrun.Shell, isShell, starting bool) error {
	p := x.req.pane.PaneID
	switch {
	case starting && isShell:
		return &Refusal{Reason: ShellBusy, Pane: p, Program: cmd, Starting: time.Since(x.rec.Started)}
	case starting:
		return &Refusal{Reason: ShellBusy, Pane: p, Program: cmd, Running: cmd, Starting: time.Since(x.rec.Started)}
	case !isShell:
		return &Refusal{Reason: NotShell, Pane: p, Program: cmd}
	case x.lostPrev:
		return &Refusal{Reason: LostRun, Pane: p, Program: cmd}
	case lineEditing[sh]:
		return &Refusal{Reason: ShellBusy, Pane: p, Program: cmd}
	}
	x.sh = sh
	return nil
}

// blank reports whether the pane shows nothing at all, neither text nor a prompt: what says
// that a shell not at its prompt is still starting rather than running something itself (a
// loop, a key binding's program or a command is typed at a prompt, which stays on the screen).
func (x *run) blank(ctx context.Context) bool {
	s, ok := x.screen(ctx)
	return ok && s.CursorX == 0 && s.CursorY == 0 && strings.TrimSpace(strings.Join(s.rows, "")) == ""
}

// promptDrawn reports whether the pane's cursor row shows text left of the cursor: a prompt.
// After a run the cursor waits at the start of an empty row until the shell draws its prompt,
// or, after output without a final line break, after that output, which is not a prompt: a
// line editor back in raw mode may not have drawn its prompt yet (fish and zsh then move to a
// new row first). True when the screen cannot be read.
func (x *run) promptDrawn(ctx context.Context) bool {
	s, ok := x.screen(ctx)
	if !ok {
		return true
	}
	row := strings.TrimSpace(leftOfCursor(s.rows[s.CursorY:s.CursorY+1], s.CursorX, s.Width))
	return row != "" && row != x.unterminated
}

// backAtPrompt reports, without a process table, whether the shell the line was typed into
// reads its command line again: its line editor put the terminal back in raw mode, which it
// leaves for any command it runs (the wrapper among them). Only for a shell found at its
// prompt that way (x.rawPrompt).
func (x *run) backAtPrompt() bool {
	if !x.rawPrompt {
		return false
	}
	m, ok := x.mode()
	return ok && m.Raw()
}

// inputWait reports whether the run's command waits for input from its terminal, with what it
// knows of it: its program and the terminal's mode (Hidden: a password). The terminal in raw
// mode (a pager, an editor, a REPL reading keys: the shell left it in canonical mode for the
// command) or with echo off (a password prompt) says so on every platform. In canonical mode
// with echo (read -p, input()), a process of the command sleeping in a read of the terminal
// says so where the process table is read; without it, the command's output ending in a line
// without its line break (a question) after the pane was quiet for inputQuiet. Called with
// x.mu not held.
func (x *run) inputWait(ctx context.Context) (waiting bool, program string, m termstate.Mode) {
	x.mu.Lock()
	started, over := x.col != nil && x.col.started, x.col != nil && (x.col.done || x.ended != nil)
	question := started && len(x.col.body) > 0 && x.col.body[len(x.col.body)-1] != '\n'
	quiet := time.Since(x.lastOut) >= inputQuiet
	x.mu.Unlock()
	if !started || over {
		return false, "", m
	}
	m, known := x.mode()
	reader, complete := x.terminalReader()
	switch {
	case reader.PID != 0:
		return true, reader.Comm, m
	case known && (m.Raw() || m.Hidden()):
		return true, x.currentCommand(ctx), m
	case known && !complete && question && quiet:
		return true, x.currentCommand(ctx), m
	}
	return false, "", m
}

// terminalReader finds, in the process table, a process of the command (a descendant of the
// interactive shell) sleeping in a read of the terminal. complete says the table was read
// whole and no process of the command polls: no such process means none.
func (x *run) terminalReader() (reader termstate.Proc, complete bool) {
	if x.shell == 0 {
		return termstate.Proc{}, false
	}
	procs, complete := x.r.table.Descendants(x.shell, 64)
	for _, p := range procs {
		switch {
		case p.ReadsTerminal():
			return p, true
		case p.WaitsInput():
			// A poll or select: on the terminal (busybox's read), or on a socket or a pipe.
			complete = false
		}
	}
	return termstate.Proc{}, complete
}

// inputStop is waitFor's stop while a call waits: the command waits for input, or its
// wrapper ended without the end marker (lostEnd), and the pane has printed nothing for
// inputQuiet.
func (x *run) inputStop() bool {
	x.mu.Lock()
	ready := x.col != nil && x.col.started && !x.col.done && time.Since(x.lastOut) >= inputQuiet
	x.mu.Unlock()
	if !ready {
		return false
	}
	if gone, lost := x.lostEnd(); gone {
		return lost // the shell back at its prompt reads keys: no command waits for them
	}
	waiting, _, _ := x.inputWait(context.Background())
	return waiting
}

// inputHint says what to do with a command waiting for input: the keys that leave a pager or
// an editor, or how to answer.
func inputHint(program string, m termstate.Mode, hidden bool) string {
	name := program[strings.LastIndexByte(program, '/')+1:]
	switch {
	case hidden:
		return "It reads hidden input (a password): answer with send_keys to_running_command=true (the text is not shown), or C-c to stop it."
	case slices.Contains(pagers, name):
		return "It is a pager (" + name + "): q leaves it (send_keys keys=\"q\" enter=false to_running_command=true); the result then holds only what the pager showed. " + wholeOutput
	case name == "vim" || name == "vi" || name == "nvim" || name == "view":
		return "It is an editor (" + name + "): Escape then :q! Enter leaves it without saving, :wq Enter saves."
	case name == "nano" || name == "pico":
		return "It is an editor (" + name + "): C-x leaves it."
	case name == "top" || name == "htop":
		return "It is " + name + ": q leaves it."
	}
	if m.Raw() {
		return "It reads keys one at a time (a pager, an editor or a REPL): q leaves a pager (for all of its output, run the command again with PAGER=cat or git --no-pager), Escape then :q! Enter leaves vi, C-c stops most programs; send them with send_keys to_running_command=true."
	}
	return AnswerHint
}

// pagers are the programs inputHint names a pager: "pager" is the one Debian and Ubuntu
// link to less and git, man and systemctl run.
var pagers = []string{"less", "more", "most", "man", "pager"}

// wholeOutput says how to have a pager's text in the result instead.
const wholeOutput = "For the whole output, run the command again with PAGER=cat (git --no-pager)."

// AnswerHint is the input hint of a command that reads lines: how to answer it.
const AnswerHint = "Answer with send_keys to_running_command=true (C-c stops it)."

// inputTicker wakes Await every inputPoll to look whether the run's command waits for input.
type inputTicker struct {
	*time.Ticker
	now func() bool
}

// waitsForInput returns Await's ticker for rec: its command waits for input, the pane quiet for
// inputQuiet, and the wait began at least inputQuiet ago (an answer sent just before it has
// had a moment to be read).
func (rec *Record) waitsForInput(began time.Time) inputTicker {
	return inputTicker{time.NewTicker(inputPoll), func() bool {
		rec.mu.Lock()
		x := rec.live
		rec.mu.Unlock()
		return x != nil && time.Since(began) >= inputQuiet && x.inputStop()
	}}
}
