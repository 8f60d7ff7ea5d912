package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tmux-mcp/tmux-mcp/internal/echo"
	"github.com/tmux-mcp/tmux-mcp/internal/hint"
	"github.com/tmux-mcp/tmux-mcp/runner"
	"github.com/tmux-mcp/tmux-mcp/server/policy"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// runTools: run_shell_command (the seeded contract) and run_command (the Python-style one), both
// on the runner engine (package runner).
func runTools() []*Tool {
	return []*Tool{
		define(strictSeed(seeded(spec{Name: "run_shell_command", Title: "Run Shell Command", Tier: policy.Mutating, Toolsets: []string{policy.Execute}, Ann: annSEED, Blocking: true})),
			runShellCommand),
		runCommandTool(true),
		waitForRunTool(),
	}
}

// Run limits of run_shell_command and run_command.
const (
	defaultRunTimeout = 30 * time.Second
	// maxRunText bounds a result's text block; the output gets all of it but room for notices.
	maxRunText   = runner.MaxOutput
	maxRunOutput = maxRunText - 4096
)

// strictSeed validates a seeded tool's arguments with its input schema and additionalProperties
// false: an unknown argument is then refused, while tools/list still advertises the seed verbatim.
func strictSeed(sp spec) spec {
	sp.StrictInputJSON = strictSchema(sp.InputJSON)
	return sp
}

// strictSchema returns a schema with additionalProperties false.
func strictSchema(js string) string {
	var m map[string]any
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		panic(fmt.Sprintf("seed schema: %v", err))
	}
	m["additionalProperties"] = false
	b, err := json.Marshal(m)
	if err != nil {
		panic(fmt.Sprintf("seed schema: %v", err))
	}
	return string(b)
}

// ---- the shared engine call

// runArgs is one run request, whichever tool made it.
type runArgs struct {
	tool     string
	target   PaneTarget
	sock     *string
	command  string
	force    bool
	timeout  time.Duration // clamped
	maxLines int           // clamped
	history  bool          // let the shell record the line in its history
	forceArg bool          // the tool takes force (run_shell_command), which hints name
}

// runInPane runs the preflight, reserves the pane and runs the command.
func (c *Call) runInPane(ctx context.Context, a runArgs) (tmux.Pane, runner.Result, error) {
	var res runner.Result
	if err := runner.ValidateCommand(a.command); err != nil {
		return tmux.Pane{}, res, fail("Pass the shell command to run as text (no NUL bytes); for a long script, write it to a file and run that file.", "%s: %v", a.tool, err)
	}
	// One read for the whole preflight: the pane and the clients (for "watched"), of that
	// pane alone: the preflight is on the critical path of a run.
	t, opt, err := c.paneAndRunOption(ctx, a.target, a.sock, readClients)
	if err != nil {
		return tmux.Pane{}, res, err
	}
	ts, snap, p := t.ts, t.snap, t.pane
	pl := c.callerPlace(ctx, ts, nil)
	if err := pl.GuardRun(p.PaneID, a.force); err != nil {
		var h *hint.Error
		errors.As(err, &h)
		if a.forceArg {
			h.Hint += " Or pass force=true to run there anyway."
		}
		return p, res, fail(h.Hint, "%s: %s", a.tool, h.Msg)
	}
	// A run an earlier server process started there and that still runs holds the pane: the
	// run below is then refused as busy at once, naming wait_for_run.
	if _, _, err := c.srv.state.runs.AdoptFrom(ctx, ts, p, opt); err != nil {
		return p, res, err
	}
	marked := c.markRun(ctx, ts, p.PaneID, a.command)
	defer func() { marked(err) }()
	// withSecrets: a command waiting for hidden input asks the person (secret.go).
	res, err = c.withSecrets(ctx, ts, p, a.timeout, func() (runner.Result, error) {
		ended := c.srv.rec.runBegan(ts, p.PaneID, a.tool, a.command) // markers in a recording of the pane
		noted := c.srv.cmds.noteRun(ctx, ts, p.PaneID, a.command)    // listed by list_commands
		res, err := c.srv.state.runs.Run(ctx, ts, runner.Request{
			Snapshot: snap, PaneID: p.PaneID,
			Guard:   runner.Guard{CallerPane: pl.OwnPane(), Force: a.force, AllowWatched: c.srv.opts.AllowWatched},
			Holder:  fmt.Sprintf("%s %q", a.tool, truncate(firstLine(a.command), 60)),
			Command: a.command, Timeout: a.timeout, MaxLines: a.maxLines, MaxBytes: maxRunOutput, History: a.history,
			Progress: c.runProgress(ctx, p.PaneID, a.timeout),
		})
		ended(res, err, c.runRecord(ctx, ts, p.PaneID, res, err))
		noted()
		return res, err
	})
	c.hideHint(ts, p, &res)
	return p, res, refusal(a, err)
}

// markRun makes a run input into pane for the waits that follow it (see waitMark): a
// wait_for_text after a run that outlived its call ("npm run dev", then a wait for "ready")
// sees what the command printed in between, from its output's start, after the line showing
// the command (before the run was seen to start, from before anything was typed, the command
// noted as typed so that the line showing it is not matched). The returned func, given the run's error, sets the mark.
func (c *Call) markRun(ctx context.Context, ts *tmux.Server, pane, command string) func(error) {
	id, err := ts.Identity(ctx)
	if err != nil {
		return func(error) {}
	}
	k := paneKey{Daemon: id, Pane: pane}
	st, err := c.srv.acquireLive(ctx, ts, k)
	if err != nil {
		return func(error) {}
	}
	before := st.Offset()
	c.srv.state.echo.Typed(k, []echo.Input{{Text: command}, {Key: "Enter"}}, time.Now())
	return func(err error) {
		defer c.srv.read.live.Release(st)
		if err != nil {
			return // nothing ran
		}
		c.srv.state.marks.input(k, st.Gen(), max(before, st.OutputAt()))
	}
}

// runRecord is the record of the run in pane that its call left running, for what follows its
// end (a recording's marker); nil when it ended or never ran.
func (c *Call) runRecord(ctx context.Context, ts *tmux.Server, pane string, res runner.Result, err error) *runner.Record {
	if err != nil || !res.StillRunning {
		return nil
	}
	rec, _ := c.lastRun(ctx, ts, pane)
	return rec
}

// lastRun is the record of the last run of this server in pane of ts (nil when none).
func (c *Call) lastRun(ctx context.Context, ts *tmux.Server, pane string) (*runner.Record, error) {
	id, err := ts.Identity(ctx)
	if err != nil {
		return nil, err
	}
	return c.srv.state.runs.Last(paneKey{Daemon: id, Pane: pane}), nil
}

// paneAndRunOption resolves a pane target (see paneWith) and reads, in the same command list,
// its run option for Adopt (runner.AdoptRead): no round trip of its own. opt is nil when the
// target named no pane by id (AdoptFrom then reads it itself).
func (c *Call) paneAndRunOption(ctx context.Context, target PaneTarget, sock *string, r reads) (t *target, opt *tmux.PaneOption, err error) {
	t, err = c.paneWith(ctx, target, sock, r, func(pane string) []tmux.Op {
		if !tmux.ValidPaneID(pane) {
			return nil // a window's active pane
		}
		opt = runner.AdoptRead(pane)
		return []tmux.Op{opt}
	})
	return t, opt, err
}

// runProgress sends notifications/progress about every second while a run waits, when the
// request asked for them, with what the command printed so far.
func (c *Call) runProgress(ctx context.Context, pane string, timeout time.Duration) func(runner.Progress) {
	if !c.hasProgressToken() {
		return nil
	}
	return func(p runner.Progress) {
		el := p.Elapsed.Seconds()
		c.Progress(ctx, el, timeout.Seconds(), fmt.Sprintf("Running in pane %s: %.0fs elapsed, %d bytes printed", pane, el, p.Printed))
	}
}

// refusal turns a preflight refusal of run a into a tool error with what to do instead.
func refusal(a runArgs, err error) error {
	tool := a.tool
	var nr *runner.NotRun
	if errors.As(err, &nr) {
		return fail(nr.Hint, "%s: %v", tool, nr)
	}
	var r *runner.Refusal
	if !errors.As(err, &r) {
		return err
	}
	hint := ""
	switch r.Reason {
	case runner.NoPane:
		hint = "List the panes with list_panes and use one of their ids."
	case runner.Dead:
		hint = deadHint
	case runner.InMode:
		hint = "Leave the mode first (exit_copy_mode, or send_keys keys=\"q\" enter=false), then run the command."
	case runner.Synchronized:
		hint = "Run it in a window of your own (create_window makes one), or, if the person agrees, turn synchronize-panes off there (set_option option=synchronize-panes value=off scope=window target=" + r.Window + ")."
	case runner.Watched:
		hint = "Run it in a window nobody has on screen: create_window (detached unless attach=true) makes one in the same session, and the person sees its output when they switch to it. " +
			"A person can follow runs live from a read-only client (tmux attach -r), which does not count as watching; an operator can allow runs in watched panes with LIBTMUX_MCP_ALLOW_WATCHED=1."
	case runner.Caller:
		if a.forceArg {
			hint = "Pass force=true to run in your own pane anyway, or use another pane (split_window creates one)."
		} else {
			hint = "Use another pane (split_window creates one); run_shell_command can write here with force=true."
		}
	case runner.Busy:
		hint = busyHint
	case runner.NotShell:
		hint = "Drive the program with send_keys and read it with capture_pane, or run the command in a pane that shows a shell prompt (split_window creates one)."
		if remoteShells[path.Base(r.Program)] {
			hint = "Its shell is on another machine or container, out of this server's sight: type there with send_keys and read with capture_pane (wait_for_text for the prompt), " +
				"or, for a host that runs tmux, have the operator name it in LIBTMUX_MCP_HOSTS (docs/hosts.md) and run commands there with run_command host=NAME."
		}
	case runner.ShellBusy:
		hint = "Wait until it shows its prompt (wait_for_text), or interrupt what it runs with send_keys keys=\"C-c\" enter=false (not while it starts: that cuts its start-up files short), then run the command again."
		if r.Starting > 0 {
			hint = "Wait until it shows its prompt (wait_for_text), or run the command again with a longer timeoutMs; do not send C-c, which cuts its start-up files short."
		}
	case runner.LostRun:
		hint = "Look with capture_pane: wait until the shell shows its prompt (wait_for_text), or stop the command with send_keys keys=\"C-c\" enter=false, then run the command again; or run it in another pane (split_window)."
	}
	return fail(hint, "%s: %v", tool, r)
}

// remoteShells are programs that hold a shell elsewhere (another host, a container), which a
// pane shows as its foreground program.
var remoteShells = map[string]bool{"ssh": true, "mosh-client": true, "autossh": true, "et": true, "telnet": true,
	"docker": true, "podman": true, "kubectl": true, "lxc": true, "incus": true, "vagrant": true}

// clampLines applies the default and the ceiling of maxLines / max_lines.
func clampLines(n *int64) int {
	switch {
	case n == nil:
		return runner.DefaultMaxLines
	case *n > runner.MaxLines:
		return runner.MaxLines
	case *n < 1:
		return 1
	}
	return int(*n)
}

// ---- run_shell_command

type runShellIn struct {
	Command   string `json:"command"`
	PaneID    string `json:"paneId"`
	Force     bool   `json:"force"`
	MaxLines  *int64 `json:"maxLines"`
	TimeoutMs *int64 `json:"timeoutMs"`
}

// runShellOut is the seed's output object; its text block is the output and the exit line.
type runShellOut struct {
	EffectiveTimeoutMs     int64  `json:"effectiveTimeoutMs"`
	DroppedLines           int    `json:"droppedLines"`
	MissedBytes            int64  `json:"missedBytes"`
	OmittedBytes           int64  `json:"omittedBytes"`
	ForeignOutputSuspected bool   `json:"foreignOutputSuspected"`
	ExitStatus             *int   `json:"exitStatus"`
	Outcome                string `json:"outcome"`
	Output                 string `json:"output"`
	OutputComplete         bool   `json:"outputComplete"`
	PaneID                 string `json:"paneId"`
	ReturnedBytes          int    `json:"returnedBytes"`
	StillRunning           bool   `json:"stillRunning"`

	maxLines int
	waiting  bool   // the command waits for input (the seed's fields have no room for it)
	prompt   string // the last line it printed then
	hint     string // what to do with it then
	hidden   bool   // it waits for hidden input (a password)
	gone     string // why the pane is gone, for pane_died (paneGone)
	// shellEnded: the command ended its pane's shell (the seed's fields have no room for it).
	shellEnded bool
	onAlt      bool   // it left the terminal on the alternate screen (altNote)
	lostState  string // lostStateNote
}

// altNote says what a run that left the alternate screen on left.
const altNote = "the command left the terminal on the alternate screen (a full-screen program's display): what it printed there is not in the output, and the pane still shows that screen; send_keys keys=\"tput rmcup\" (or \"reset\") brings the shell's screen back"

// lostStateNote says that a run's commands (runner.Result.LostState) changed only its own
// subshell: models often run cd or source on its own and expect the next call to see it.
func lostStateNote(words []string) string {
	if len(words) == 0 {
		return ""
	}
	names := slices.Compact(slices.Clone(words))
	for i, w := range names {
		if w == "assignment" {
			names[i] = "the variable assignment"
		}
	}
	it := "it"
	if len(names) > 1 {
		it = "them"
	}
	return strings.Join(names, ", ") + " changed only this run's subshell, which ended with it: the pane's shell, and a later run, are as before. " +
		"Put " + it + " before the command in the same call (cd /path && make), or type " + it + " at the prompt with send_keys to make " + it + " last"
}

// statusLostNote says what a run that ended without its exit status (runner.Result.StatusLost)
// left.
const statusLostNote = "the command ended, but its exit status is lost: the wrapper that reports it ended first (the command killed it, or a function of the pane's shell replaced its exit trap); the pane's shell is back at its prompt"

// adoptedNote says what a run an earlier server process started lacks (missed_bytes).
const adoptedNote = "an earlier tmux-mcp process started this run: what it printed before this process found it is not in the output (capture_pane shows the pane)"

// shellEndedNote says what a run that ended its pane's shell left.
const shellEndedNote = "the command also ended the pane's shell (it killed it, or replaced it and exited): the pane is gone, or dead under remain-on-exit; run the next command in another pane, or respawn_pane this one"

func runShellCommand(ctx context.Context, c *Call, in *runShellIn) (runShellOut, error) {
	var ms int64
	if in.TimeoutMs != nil {
		ms = *in.TimeoutMs
	}
	timeout := c.srv.waitFor(millis(ms), defaultRunTimeout)
	maxLines := clampLines(in.MaxLines)
	paneID := in.PaneID
	p, res, err := c.runInPane(ctx, runArgs{
		tool: "run_shell_command", target: PaneTarget{PaneID: &paneID}, command: in.Command,
		force: in.Force, forceArg: true, timeout: timeout, maxLines: maxLines,
	})
	if err != nil {
		return runShellOut{}, err
	}
	return runShellOut{
		EffectiveTimeoutMs:     timeout.Milliseconds(),
		DroppedLines:           res.DroppedLines,
		MissedBytes:            res.MissedBytes,
		OmittedBytes:           res.OmittedBytes,
		ForeignOutputSuspected: res.ForeignOutputSuspected,
		ExitStatus:             res.ExitStatus,
		Outcome:                string(res.Outcome),
		Output:                 res.Output,
		OutputComplete:         res.OutputComplete,
		PaneID:                 p.PaneID,
		ReturnedBytes:          len(res.Output),
		StillRunning:           res.StillRunning,
		maxLines:               maxLines,
		waiting:                res.WaitingForInput,
		prompt:                 res.Prompt,
		hint:                   res.InputHint,
		hidden:                 res.WaitingForInput && res.InputHidden,
		gone:                   c.runGone(p.PaneID, res.ShellEnded),
		shellEnded:             res.ShellEnded,
		onAlt:                  res.OnAlternate && res.Outcome == runner.Completed,
		lostState:              lostStateNote(res.LostState),
	}, nil
}

// paneGone says that pane is gone and why it may be: on another host, the ssh connection may
// have dropped too.
func (c *Call) paneGone(pane string) string {
	if name, ok := c.remoteHost(); ok {
		return fmt.Sprintf("pane %s is gone (the pane or its tmux server exited, or the ssh connection to host %q dropped)", pane, name)
	}
	return fmt.Sprintf("pane %s is gone (the pane or its tmux server exited)", pane)
}

// runGone says why a run's pane died: its shell ended while the pane lives on (dead under
// remain-on-exit, or respawned by someone), else the pane is gone (paneGone).
func (c *Call) runGone(pane string, shellEnded bool) string {
	if shellEnded {
		return fmt.Sprintf("the shell of pane %s ended (the command killed it, or the pane was respawned; under remain-on-exit the pane stays, dead)", pane)
	}
	return c.paneGone(pane)
}

// goneHint says what to do after a run whose pane went from view. On another host the ssh
// connection may have dropped while the pane and its command live on there: running the
// command again would run it twice.
func (c *Call) goneHint(pane string) string {
	if name, ok := c.remoteHost(); ok {
		return fmt.Sprintf("If the connection dropped, the pane and the command may live on there: the next call reconnects. Look with capture_pane host=%q pane_id=%s before running it again, which would run it twice.", name, pane)
	}
	return "Its output and exit status are lost; list the panes (list_panes) and run the command in a live one."
}

// remoteHost returns the call's host when it is another machine.
func (c *Call) remoteHost() (string, bool) {
	_, name, err := c.srv.hostFor(c.host)
	return name, err == nil && name != LocalHost
}

// lostNote says what a run that ended as pane_died left, when its pane is on another host and
// still there: the connection dropped, not the pane.
func lostNote(host string) string {
	return fmt.Sprintf("the ssh connection to host %q dropped during the run, but the pane is there: the command may have gone on; capture_pane shows what it printed; its exit status is unknown", host)
}

// Text is the output, a blank line, then how it ended. It never suggests
// running the command again: that would run it twice.
func (o runShellOut) Text() string {
	var b strings.Builder
	b.Grow(len(o.Output) + 512)
	o.writeGaps(&b)
	if o.Output != "" {
		b.WriteString(o.Output)
		b.WriteString("\n\n")
	}
	o.writeEnd(&b)
	return b.String()
}

// writeGaps writes what the output leaves out, a line each.
func (o runShellOut) writeGaps(b *strings.Builder) {
	if o.DroppedLines > 0 {
		fmt.Fprintf(b, "[%d earlier lines not shown: only the last %d are kept (maxLines); to see others, run it with a larger maxLines or filter its output (grep, head)]\n", o.DroppedLines, o.maxLines)
	}
	if o.MissedBytes > 0 {
		fmt.Fprintf(b, "[%d bytes of output went by before they could be read: the output starts partway through]\n", o.MissedBytes)
	}
	if o.OmittedBytes > 0 {
		fmt.Fprintf(b, "[%d bytes of output omitted by the result size limit]\n", o.OmittedBytes)
	}
	if o.ForeignOutputSuspected {
		b.WriteString("[lines printed by another run in this pane were removed]\n")
	}
	if !o.OutputComplete && o.DroppedLines == 0 && o.MissedBytes == 0 && o.OmittedBytes == 0 && o.Outcome == string(runner.Completed) {
		b.WriteString("[some output may be missing]\n")
	}
}

// writeEnd writes how the run ended, or what to do about a run still going on.
func (o runShellOut) writeEnd(b *strings.Builder) {
	wait := o.waitText()
	switch runner.Outcome(o.Outcome) {
	case runner.Completed:
		if o.ExitStatus == nil {
			b.WriteString("[" + statusLostNote + "]")
			break
		}
		fmt.Fprintf(b, "[exit %d]", *o.ExitStatus)
		for _, note := range []struct {
			on   bool
			text string
		}{{o.shellEnded, shellEndedNote}, {o.onAlt, altNote}, {o.lostState != "", o.lostState}} {
			if note.on {
				b.WriteString("\n[" + note.text + "]")
			}
		}
	case runner.TimedOut:
		if o.waiting {
			// Returned before its timeout: the command waits for a person.
			fmt.Fprintf(b, "[still running: %s]", wait)
			break
		}
		fmt.Fprintf(b, "[still running: the command did not finish within %d ms. %s]", o.EffectiveTimeoutMs, wait)
	case runner.Cancelled:
		fmt.Fprintf(b, "[cancelled: the command may still be running. %s]", wait)
	case runner.PaneDied:
		fmt.Fprintf(b, "[%s before the command finished: no exit status]", o.gone)
	}
}

// waitText says how to wait for or stop a run still going on, and how to answer it when it
// waits for input.
func (o runShellOut) waitText() string {
	wait := fmt.Sprintf("wait_for_run pane_id=%s returns its exit status and output when it ends; send_keys pane_id=%s keys=\"C-c\" enter=false stops it; the pane stays reserved until it ends.", o.PaneID, o.PaneID)
	switch {
	case o.hidden:
		// The seed's output schema has no room for input_hidden: the text says it.
		return fmt.Sprintf("input_hidden: it waits for hidden input (it printed %q). %s ", truncate(o.prompt, 200), o.hint) + wait
	case o.waiting:
		hint := o.hint + " "
		if o.hint == runner.AnswerHint {
			hint = "" // said just before
		}
		return fmt.Sprintf("It is waiting for input (it printed %q): answer with send_keys pane_id=%s keys=... to_running_command=true (paste_text for longer text). ", truncate(o.prompt, 200), o.PaneID) + hint + wait
	}
	return wait
}

// ---- run_command

type runCommandIn struct {
	Command string `json:"command"`
	PaneTarget
	Timeout         float64 `json:"timeout,omitempty" jsonschema:"Seconds (clamped)"`
	MaxLines        *int    `json:"max_lines,omitempty" jsonschema:"Newest lines kept (null: 200; at most 10000)"`
	SuppressHistory bool    `json:"suppress_history,omitempty" jsonschema:"Keep it out of the shell's history (default: LIBTMUX_SUPPRESS_HISTORY)"`
	Socket
}

type runCommandOut struct {
	PaneID               string   `json:"pane_id"`
	ExitStatus           *int     `json:"exit_status" jsonschema:"the command's exit status; null when it did not finish"`
	TimedOut             bool     `json:"timed_out" jsonschema:"the timeout passed first; the command may still be running and the pane stays reserved until it ends"`
	ElapsedSeconds       float64  `json:"elapsed_seconds"`
	Output               []string `json:"output" jsonschema:"the command's own output lines (never the prompt or the echo), the tail when truncated"`
	OutputTruncated      bool     `json:"output_truncated" jsonschema:"some output is not in output (max_lines, the size limit, or output that went by too fast)"`
	OutputTruncatedLines int      `json:"output_truncated_lines" jsonschema:"lines withheld by max_lines"`
	EffectiveTimeout     float64  `json:"effective_timeout" jsonschema:"the timeout actually used, in seconds"`
	WaitingForInput      bool     `json:"waiting_for_input" jsonschema:"still running and blocked reading the terminal (a question, a password prompt, an editor): answer with send_keys or paste_text to_running_command=true"`
	Prompt               string   `json:"prompt,omitempty" jsonschema:"when waiting_for_input: the last line it printed (the question)"`
	InputHint            string   `json:"input_hint,omitempty" jsonschema:"when waiting_for_input: what to do (how to answer, or the keys that leave a pager or an editor)"`
	InputHidden          bool     `json:"input_hidden,omitempty" jsonschema:"it waits for hidden input (a password): use type_secret"`
	Note                 string   `json:"note,omitempty" jsonschema:"what the result's fields do not say: the command ended its pane's shell, left the alternate screen on, lost its host's connection, or began in an earlier tmux-mcp process"`
}

// runCommandTool declares run_command with suppress_history defaulting to suppress.
func runCommandTool(suppress bool) *Tool {
	variant := ""
	if !suppress {
		variant = "keep_history"
	}
	t := define(spec{Name: "run_command", Title: "Run Command in tmux Pane", Tier: policy.Mutating, Toolsets: []string{policy.Execute}, Ann: annSHELL, Blocking: true, Variant: variant,
		Description: "Run a command in a pane's shell (a subshell: cd and export do not persist); returns its exit status and only its output. " +
			"Past timeout it runs on: wait_for_run, send_keys to_running_command or C-c; never rerun.",
		Input: edits(def("timeout", 30.0), exclusiveMinimum("timeout", 0), minimum("max_lines", 1), def("suppress_history", suppress))},
		runCommand)
	t.variant = func(o *Options) *Tool {
		if o.SuppressHistory == suppress {
			return t
		}
		return runCommandTool(o.SuppressHistory)
	}
	return t
}

// exclusiveMinimum sets a numeric property's exclusive minimum.
func exclusiveMinimum(name string, v float64) schemaEdit {
	return func(s *jsonschema.Schema) { prop(s, name).ExclusiveMinimum = &v }
}

func runCommand(ctx context.Context, c *Call, in *runCommandIn) (runCommandOut, error) {
	timeout := c.srv.waitFor(seconds(in.Timeout), defaultRunTimeout)
	var ml *int64
	if in.MaxLines != nil {
		n := int64(*in.MaxLines)
		ml = &n
	}
	start := time.Now()
	p, res, err := c.runInPane(ctx, runArgs{
		tool: "run_command", target: in.PaneTarget, sock: in.SocketName, command: in.Command,
		timeout: timeout, maxLines: clampLines(ml), history: !in.SuppressHistory,
	})
	if err != nil {
		return runCommandOut{}, err
	}
	switch res.Outcome {
	case runner.PaneDied:
		return runCommandOut{}, fail(c.goneHint(p.PaneID), "run_command: %s before the command finished", c.runGone(p.PaneID, res.ShellEnded))
	case runner.Cancelled:
		return runCommandOut{}, fail(fmt.Sprintf("The command may still be running in pane %s; wait_for_run pane_id=%s returns its exit status and output when it ends, send_keys keys=\"C-c\" enter=false stops it.", p.PaneID, p.PaneID),
			"run_command was cancelled")
	}
	out := commandOut(p.PaneID, res, timeout)
	// The call's time, preflight included; a later round of a call that asked for a secret
	// (2026-07-28) began after the run did, whose own time is then the longer.
	out.ElapsedSeconds = max(time.Since(start), res.Elapsed).Seconds()
	return out, nil
}

// commandOut maps a run's result onto run_command's fields (wait_for_run's too).
func commandOut(pane string, res runner.Result, timeout time.Duration) runCommandOut {
	out := runCommandOut{
		PaneID:               pane,
		ExitStatus:           res.ExitStatus,
		TimedOut:             res.StillRunning,
		ElapsedSeconds:       res.Elapsed.Seconds(),
		Output:               res.Lines,
		OutputTruncated:      res.DroppedLines > 0 || res.OmittedBytes > 0 || res.MissedBytes > 0,
		OutputTruncatedLines: res.DroppedLines,
		EffectiveTimeout:     timeout.Seconds(),
		WaitingForInput:      res.WaitingForInput,
		Prompt:               res.Prompt,
		InputHint:            res.InputHint,
	}
	if res.WaitingForInput && res.InputHidden {
		out.InputHidden = true // InputHint: hideHint's
	}
	if out.Output == nil {
		out.Output = []string{}
	}
	if res.ShellEnded {
		out.Note = shellEndedNote
	}
	if res.OnAlternate && res.Outcome == runner.Completed {
		out.Note = withNote(out.Note, altNote)
	}
	if res.StatusLost {
		out.Note = withNote(out.Note, statusLostNote)
	}
	if n := lostStateNote(res.LostState); n != "" {
		out.Note = withNote(out.Note, n)
	}
	return out
}

// withNote adds more to a result's note.
func withNote(note, more string) string { return strings.TrimPrefix(note+"; "+more, "; ") }

// ---- wait_for_run

type waitForRunIn struct {
	PaneTarget
	Timeout  float64 `json:"timeout,omitempty" jsonschema:"Seconds, clamped; 0: where it stands now"`
	MaxLines *int    `json:"max_lines,omitempty" jsonschema:"Newest lines kept (null: as the run kept)"`
	Socket
}

type waitForRunOut struct {
	runCommandOut
	Command      string `json:"command" jsonschema:"the command of the run"`
	Outcome      string `json:"outcome" jsonschema:"completed, pane_died (the pane exited, was killed or respawned before the end), or running"`
	MissedBytes  int64  `json:"missed_bytes" jsonschema:"output that went by before it could be read"`
	StillRunning bool   `json:"still_running" jsonschema:"the run has not ended yet (timed_out says the same)"`
}

func waitForRunTool() *Tool {
	return define(spec{Name: "wait_for_run", Title: "Wait for a Run in tmux Pane", Tier: policy.ReadOnly, Ann: annRO, Blocking: true,
		Description: "Wait for the pane's last run (run_shell_command or run_command) to end; return its exit status and output as run_command does.",
		Input:       edits(def("timeout", 30.0), minimum("timeout", 0), minimum("max_lines", 1))},
		waitForRun)
}

func waitForRun(ctx context.Context, c *Call, in *waitForRunIn) (waitForRunOut, error) {
	t, opt, err := c.paneAndRunOption(ctx, in.PaneTarget, in.SocketName, 0)
	if err != nil {
		return waitForRunOut{}, err
	}
	pane := t.pane.PaneID
	rec, err := c.lastRun(ctx, t.ts, pane)
	if err != nil {
		return waitForRunOut{}, err
	}
	if rec == nil {
		// A run an earlier server process started here (before a client restart).
		adopted, unseen, err := c.srv.state.runs.AdoptFrom(ctx, t.ts, t.pane, opt)
		if err != nil {
			return waitForRunOut{}, err
		}
		if unseen != "" {
			return waitForRunOut{}, fail("Run it again only if running it twice is safe; read what it printed with capture_pane.",
				"pane %s: %s, started by an earlier tmux-mcp process, ended while no server watched it: its exit status and output are lost", pane, unseen)
		}
		rec = adopted
	}
	if rec == nil {
		return waitForRunOut{}, fail("Run a command there with run_shell_command or run_command; for output typed with send_keys, use wait_for_text.",
			"pane %s has no run of this server to wait for", pane)
	}
	timeout := c.srv.clampWait(seconds(in.Timeout))
	res, err := c.withSecrets(ctx, t.ts, t.pane, timeout, func() (runner.Result, error) {
		wctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		return c.srv.state.runs.Await(wctx, rec, c.runProgress(ctx, pane, timeout)), nil
	})
	if err != nil {
		return waitForRunOut{}, err
	}
	c.hideHint(t.ts, t.pane, &res)
	if ctx.Err() != nil {
		return waitForRunOut{}, ctx.Err()
	}
	if in.MaxLines != nil && len(res.Lines) > *in.MaxLines {
		res.DroppedLines += len(res.Lines) - *in.MaxLines
		res.Lines = res.Lines[len(res.Lines)-*in.MaxLines:]
	}
	out := waitForRunOut{runCommandOut: commandOut(pane, res, timeout), Command: rec.Command,
		Outcome: string(res.Outcome), MissedBytes: res.MissedBytes, StillRunning: res.StillRunning}
	if name, ok := c.remoteHost(); ok && res.Lost {
		out.Note = lostNote(name) // the pane was found above: the connection went, not the pane
	}
	if res.Adopted {
		out.Note = withNote(out.Note, adoptedNote)
	}
	if res.StillRunning {
		out.Outcome = "running"
	}
	return out, nil
}

// hideHint sets, for a run waiting for hidden input in pane p of ts, what to do: type_secret
// where this client can open its page, else have the person type it in tmux themselves
// (type_secret would only refuse).
func (c *Call) hideHint(ts *tmux.Server, p tmux.Pane, res *runner.Result) {
	if !res.WaitingForInput || !res.InputHidden {
		return
	}
	if c.srv.tools["type_secret"] != nil && c.canOpenPage() {
		res.InputHint = fmt.Sprintf("It reads hidden input (a password or another secret): type_secret pane_id=%s has the person type it (never ask for it in the chat), or send_keys keys=\"C-c\" enter=false stops it.", p.PaneID)
		return
	}
	res.InputHint = "It reads hidden input (a password or another secret), and type_secret cannot be used here (this client opens no pages, or it is not offered). " +
		attachHint(ts, p) + ` Or send_keys keys="C-c" enter=false stops it.`
}
