package marks

import (
	"time"
)

// DefaultMax is how many commands a History keeps when Max is not set.
const DefaultMax = 200

// Command is one command a pane's shell ran, as its marks told.
type Command struct {
	ID      int    // 1 for the first command seen in the pane, then counting up
	Command string // the command line as typed (empty when it could not be seen)
	// Status is the exit status; nil while it runs, or when the shell did not give one.
	Status  *int
	Cwd     string // the directory it ran in ("" when not known)
	Started time.Time
	Ended   time.Time // zero while it runs
	Running bool
	// OutStart and OutEnd delimit its output in the stream (OutEnd is the stream's end while
	// it runs); Stream names the stream they count in.
	OutStart, OutEnd int64
	Stream           uint64
	Lines            int  // lines of output (LF-terminated, plus a last unterminated one)
	Lost             bool // some of its output, or its command line, was lost from the stream
	ByServer         bool // a run of this server (run_command or run_shell_command)
	RunID            string
	// queued: it began while a run was queued, so it may be that run's typed line as the
	// shell marked it (a command begun before is one the run runs inside: a nested shell).
	queued bool
}

// phases of the shell between marks
const (
	phUnknown = iota // before the first mark: a command line may be being typed
	phIdle
	phInput   // after B: the command line is being typed
	phRunning // after C (or a run's start)
)

// History turns a pane's output stream into its recent commands. Feed it every byte of the
// stream in order with Write; Gap says bytes were lost. The zero value is ready to use; it is
// not safe for concurrent use.
type History struct {
	Max int // commands kept (DefaultMax when <= 0)

	p        Parser
	stream   uint64
	phase    int
	cmds     []Command
	nextID   int
	cwd      string
	sawCwd   bool
	sawMarks bool
	lastMark time.Time
	line     string // a 633;E command line waiting for its C
	echo     typed
	prompt   typed // the prompt being drawn (after A, before B): its width on its last row
	inPrompt bool
	idle     lineCount // what was shown since the shell went idle (a command ended, a prompt began)
	hookC    bool      // a prompt hook's C was ignored since (see hookMark)
	out      lineCount // the running command's output lines
	runs     []string
	cur      int    // the ID of the running command, while phase is phRunning
	outer    int    // the ID of the command a run runs inside (a nested shell), resumed at its end
	pend     []byte // the start of a sequence a piece ended in, parsed again with the next
	finished int
}

// SawMarks says whether any shell-integration mark was seen (a run's own markers aside).
func (h *History) SawMarks() bool { return h.sawMarks }

// SawCwd says whether the shell reports its directory (OSC 7).
func (h *History) SawCwd() bool { return h.sawCwd }

// LastMark is when the last mark was seen.
func (h *History) LastMark() time.Time { return h.lastMark }

// AtPrompt says whether the shell sits at its prompt (a prompt or input mark came last).
func (h *History) AtPrompt() bool { return h.sawMarks && h.phase != phRunning }

// AtStart says the stream begins as the shell starts (it was followed from the pane's
// creation): what comes before the first prompt is the output of its start-up files, not a
// command line being typed, and a C mark there is a hook's (see hookMark), not a command's.
func (h *History) AtStart() {
	if h.phase == phUnknown {
		h.toIdle()
	}
}

// SetCwd sets the directory of the commands that start from now on, for a shell that does not
// report it.
func (h *History) SetCwd(dir string) {
	if !h.sawCwd {
		h.cwd = dir
	}
}

// Runs queues the command lines of this server's runs about to start in the pane, in order:
// each run start marker takes the first.
func (h *History) Runs(cmd string) {
	if len(h.runs) >= 16 {
		h.runs = h.runs[1:]
	}
	h.runs = append(h.runs, cmd)
}

// Unqueue removes a run's command line that Runs queued, if no start marker took it (the run
// was refused before it started).
func (h *History) Unqueue(cmd string) {
	for i, r := range h.runs {
		if r == cmd {
			h.runs = append(h.runs[:i], h.runs[i+1:]...)
			return
		}
	}
}

// NewStream says that offsets start again (a new stream of the pane, numbered id): what runs
// now lost its output's end. The first stream is no loss.
func (h *History) NewStream(id uint64) {
	if h.stream != 0 {
		h.Gap()
	}
	h.stream = id
}

// Finished counts the commands that ended so far.
func (h *History) Finished() int { return h.finished }

// Gap says that output was lost before the next Write.
func (h *History) Gap() {
	h.p.Reset()
	h.pend = nil
	switch h.phase {
	case phRunning:
		if c := h.current(); c != nil {
			c.Lost = true
		}
	case phInput, phUnknown:
		h.echo.over = true
	}
}

// Commands returns a copy of the kept commands, oldest first; a running one has OutEnd set to
// end, the stream's end now.
func (h *History) Commands(end int64) []Command {
	out := make([]Command, len(h.cmds))
	copy(out, h.cmds)
	for i := range out {
		if out[i].Running {
			out[i].OutEnd = end
		}
	}
	return out
}

func (h *History) current() *Command {
	if h.phase != phRunning {
		return nil
	}
	return h.running(h.cur)
}

// running is the kept command id if it runs (the last, or the one a run runs inside).
func (h *History) running(id int) *Command {
	for i := len(h.cmds) - 1; i >= 0; i-- {
		if h.cmds[i].ID == id {
			if !h.cmds[i].Running {
				return nil
			}
			return &h.cmds[i]
		}
	}
	return nil
}

// Write feeds b, whose first byte is at offset off, seen at now.
func (h *History) Write(b []byte, off int64, now time.Time) {
	if len(h.pend) > 0 {
		b = append(h.pend, b...)
		off -= int64(len(h.pend))
		h.pend = nil
	}
	pos := 0
	h.p.Feed(b, off, func(ev Event, next int) {
		start := int(ev.At - off)
		if start < pos {
			start = pos // the mark began in an earlier piece
		}
		h.text(b[pos:max(start, pos)])
		pos = next
		h.event(ev, now)
	})
	end := len(b)
	if at, ok := h.p.pending(); ok && at >= off+int64(pos) && int(at-off) > len(b)-maxOSC {
		// Keep the unfinished sequence out of the text: it may be a mark.
		end = int(at - off)
		h.pend = append([]byte(nil), b[end:]...)
		h.p.Reset()
	}
	h.text(b[pos:end])
}

// text takes output between marks.
func (h *History) text(b []byte) {
	if len(b) == 0 {
		return
	}
	switch h.phase {
	case phIdle:
		h.idle.write(b)
		if h.inPrompt {
			h.prompt.write(b)
		}
	case phInput, phUnknown:
		// Before the first mark the reader may have come in at a prompt: what is typed
		// there is the next command's line.
		h.echo.write(b)
	case phRunning:
		if c := h.current(); c != nil {
			c.Lines += h.out.write(b)
		}
	}
}

func (h *History) event(ev Event, now time.Time) {
	if ev.Kind != RunStart && ev.Kind != RunEnd && ev.Kind != RunFail {
		h.sawMarks, h.lastMark = true, now
	}
	switch ev.Kind {
	case Cwd:
		h.cwd, h.sawCwd = ev.Path, true
	case Line:
		h.line = ev.Cmdline
	case Prompt:
		h.end(nil, ev.At, now) // a command with no D (a prompt without one, or a lost D)
		h.toIdle()
		h.prompt.reset()
		h.inPrompt = true
	case Input:
		h.end(nil, ev.At, now)
		origin := 0
		if h.phase == phIdle && h.inPrompt {
			origin = h.prompt.col
		}
		h.phase, h.inPrompt, h.hookC = phInput, false, false
		h.echo.resetAt(origin)
	case Output:
		h.output(ev, now)
	case Done:
		if c := h.current(); c != nil && c.ByServer && h.outer != 0 {
			h.end(nil, ev.At, now) // what the run ran inside ended (a nested shell killed)
		}
		if c := h.current(); c != nil && !c.ByServer {
			var st *int
			if ev.HasStatus {
				st = &ev.Status
			}
			h.end(st, ev.At, now)
		}
		h.toIdle()
	case RunStart:
		h.runStart(ev, now)
	case RunEnd, RunFail:
		if c := h.current(); c != nil && c.ByServer && c.RunID == ev.RunID {
			var st *int
			if ev.HasStatus {
				st = &ev.Status
			}
			h.end(st, ev.At, now)
			// The shell's own D for the wrapper's line may follow: it finds nothing running.
		}
	}
}

// output takes a C mark: a command's output begins, unless it is a doubled mark or a prompt
// hook's.
func (h *History) output(ev Event, now time.Time) {
	if h.phase == phRunning {
		// Doubled: a prompt that has its own marks beside ours. The command line one of
		// them carries is the one typed (the other's C took it from the screen).
		if c := h.current(); c != nil && !c.ByServer && ev.Cmdline != "" {
			c.Command, c.Lost = ev.Cmdline, false
		}
		return
	}
	if h.hookMark() {
		return
	}
	text := ev.Cmdline
	if text == "" {
		text = h.line
	}
	lost := false
	if text == "" && (h.phase == phInput || h.phase == phUnknown) {
		text, lost = h.echo.text(), h.echo.over
	}
	h.start(Command{Command: text, Lost: lost, OutStart: ev.End, queued: len(h.runs) > 0}, now)
}

// toIdle says the shell is between commands: a command ended, or a prompt began.
func (h *History) toIdle() {
	h.phase, h.idle, h.hookC = phIdle, lineCount{}, false
}

// hookMark reports whether a C mark, coming while the shell is idle (not after B), is a
// prompt hook's: a preexec hook that also runs for the shell's own prompt commands (a DEBUG
// trap that prints C before each command of bash's PROMPT_COMMAND, such as direnv's hook or
// history -a) marks no command. A command typed at a prompt without B shows, before its C,
// the prompt and the line typed; a hook's C comes with nothing shown since the last command
// ended or the prompt began, and so does every C after it until the prompt's next mark
// (direnv's hook prints between them).
func (h *History) hookMark() bool {
	if h.phase != phIdle {
		return false
	}
	h.hookC = h.hookC || !h.idle.seen
	return h.hookC
}

// runStart begins a run of this server: inside the command the shell marked (the typed
// wrapper line), or on its own in a shell without marks. A command that began before the run
// was queued is not its line but what it runs inside (a nested shell, ssh): that command
// runs on, and resumes when the run ends.
func (h *History) runStart(ev Event, now time.Time) {
	text := ""
	if len(h.runs) > 0 {
		text, h.runs = h.runs[0], h.runs[1:]
	}
	if c := h.current(); c != nil && !c.ByServer && c.queued {
		c.Command, c.ByServer, c.RunID, c.Lost = text, true, ev.RunID, false
		c.OutStart, c.Lines, h.out = ev.End, 0, lineCount{}
		return
	}
	if c := h.current(); c != nil && !c.ByServer {
		h.outer = c.ID
		h.start(Command{Command: text, ByServer: true, RunID: ev.RunID, OutStart: ev.End}, now)
		return
	}
	h.end(nil, ev.At, now)
	h.start(Command{Command: text, ByServer: true, RunID: ev.RunID, OutStart: ev.End}, now)
}

func (h *History) start(c Command, now time.Time) {
	h.nextID++
	c.ID, c.Cwd, c.Started, c.Running, c.Stream = h.nextID, h.cwd, now, true, h.stream
	h.cmds = append(h.cmds, c)
	h.cur = c.ID
	if max := h.max(); len(h.cmds) > max {
		h.cmds = append(h.cmds[:0], h.cmds[len(h.cmds)-max:]...)
	}
	h.phase, h.out, h.line = phRunning, lineCount{}, ""
}

// end ends the running command, if any, with status st at offset at.
func (h *History) end(st *int, at int64, now time.Time) {
	c := h.current()
	if c == nil {
		return
	}
	c.Status, c.Ended, c.Running = st, now, false
	h.finished++
	c.OutEnd = max(at, c.OutStart)
	if h.out.visible {
		c.Lines++
	}
	h.out = lineCount{}
	h.toIdle()
	if outer := h.outer; outer != 0 {
		h.outer = 0
		if outer != c.ID && h.running(outer) != nil {
			h.cur, h.phase = outer, phRunning // the run inside it ended: it runs on
		}
	}
}

func (h *History) max() int {
	if h.Max <= 0 {
		return DefaultMax
	}
	return h.Max
}

// lineCount counts the lines of output as the text filter makes them: LF ends a line; a last
// unterminated line counts when it shows something other than blanks (what CR restarts is
// gone); escape sequences show nothing.
type lineCount struct {
	state   uint8 // psGround, psEsc, psOSC, tsCSI
	cr      bool
	visible bool
	seen    bool // a character other than a blank was shown
}

func (l *lineCount) write(b []byte) (lines int) {
	for _, c := range b {
		switch l.state {
		case psEsc:
			switch c {
			case '[':
				l.state = tsCSI
			case ']', 'P', '_', '^', 'X', 'k':
				l.state = psOSC
			default:
				l.state = psGround
			}
			continue
		case tsCSI:
			if c >= 0x40 && c <= 0x7e {
				l.state = psGround
			}
			continue
		case psOSC:
			if c == 0x07 {
				l.state = psGround
			} else if c == 0x1b {
				l.state = psEsc
			}
			continue
		}
		switch {
		case c == 0x1b:
			l.state = psEsc
		case c == '\n':
			lines++
			l.cr, l.visible = false, false
		case c == '\r':
			l.cr = true
		case c >= 0x20 && c != 0x7f:
			if l.cr {
				l.cr, l.visible = false, false
			}
			if c != ' ' {
				l.visible, l.seen = true, true
			}
		}
	}
	return lines
}
