package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tmux-mcp/tmux-mcp/internal/cursor"
	"github.com/tmux-mcp/tmux-mcp/internal/echo"
	"github.com/tmux-mcp/tmux-mcp/server/policy"
	"github.com/tmux-mcp/tmux-mcp/shellrun"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/keys"
)

// inputTools: send_keys, send_keys_batch, paste_text.
func inputTools() []*Tool {
	return []*Tool{
		define(spec{Name: "send_keys", Title: "Send Keys to tmux Pane", Tier: policy.Mutating, Toolsets: []string{policy.Execute}, Ann: annSHELL,
			Description: "Type text, then Enter unless enter=false; tmux key names (C-c, Escape, Up, F1) as keys, no Enter. A string starting or ending with a key mixes both as tmux send-keys: \"Escape :wq Enter\". literal: all text.",
			Input:       edits(def("enter", true), def("literal", false), def("suppress_history", false))},
			sendKeys),
		define(spec{Name: "send_keys_batch", Title: "Send Keys to tmux Panes (Batch)", Tier: policy.Mutating, Toolsets: []string{policy.Execute}, Ann: annSHELL,
			Description: "Up to 64 send_keys in order, each with its target and flags; on_error=stop ends at a failure (stopped_at).",
			Input:       edits(batchOperations, enum("on_error", "stop", "continue"), def("on_error", "stop"))},
			sendKeysBatch),
		define(spec{Name: "paste_text", Title: "Paste Text into tmux Pane", Tier: policy.Mutating, Toolsets: []string{policy.Execute}, Ann: annSHELL,
			Description: "Paste text (multi-line, any quotes) via a private buffer, bracketed if the program asks, so a shell does not run it line by line. No Enter.",
			Input:       edits(def("bracket", true))},
			pasteText),
	}
}

// Limits of the input tools.
const (
	maxKeysBytes    = 64 << 10 // send_keys: longer text goes through paste_text
	maxPasteBytes   = 1 << 20
	maxKeysBatchOps = 64
)

// interruptKeys may be sent to a pane reserved by a run: they are how to stop it.
var interruptKeys = map[string]bool{"C-c": true, "C-\\": true}

// ToRun is the argument of every input tool that says the input is for a command a run
// started: without it, a pane a run holds is refused.
type ToRun struct {
	ToRunningCommand bool `json:"to_running_command,omitempty" jsonschema:"Input for a run's command"`
}

// deadHint says what to do with a dead pane: tmux keeps one under remain-on-exit (a user's
// config often sets it) until it is respawned or killed, so an agent that moves on to another
// pane leaves it behind.
const deadHint = "Restart its shell there with respawn_pane, or remove it with kill_pane and use another pane (list_panes)."

// inputGuard refuses input into a pane that is dead, that this server runs in, or that a run of
// this server holds (except interrupt keys, which is how that run is stopped, and input the
// call says is for the running command). It returns the pane's key and whether a run holds it.
func (c *Call) inputGuard(ctx context.Context, t *target, interrupt, toRun bool) (paneKey, bool, error) {
	p := t.pane
	if p.PaneDead {
		return paneKey{}, false, fail(deadHint,
			"pane %s is dead: its program exited, so it cannot take input; tmux keeps the pane (its remain-on-exit option)", p.PaneID)
	}
	// When unsure (inside this tmux server, but TMUX_PANE unset), refuse like the other guards.
	if err := c.callerPlace(ctx, t.ts, nil).GuardInput(p.PaneID); err != nil {
		return paneKey{}, false, err
	}
	id, err := t.ts.Identity(ctx)
	if err != nil {
		return paneKey{}, false, err
	}
	k := paneKey{Daemon: id, Pane: p.PaneID}
	h, busy := c.srv.state.holder(k)
	if busy && !interrupt && !toRun {
		h, busy = c.srv.state.holderAfterEnd(ctx, k)
	}
	if toRun && !busy {
		// The run may be one an earlier server process started (before a client restart).
		if rec, _, err := c.srv.state.runs.Adopt(ctx, t.ts, p); err == nil && rec != nil {
			h, busy = rec.Holder, true
		}
	}
	switch {
	case busy && !interrupt && !toRun:
		return k, busy, fail(busyHint+" (C-c alone is allowed while it runs.)", "pane %s is busy: %s is still running in it", p.PaneID, h)
	case toRun && !busy:
		return k, busy, fail("Without to_running_command the input goes to whatever the pane runs; run_command and run_shell_command start commands that can take it.",
			"to_running_command: no command started by run_shell_command or run_command is running in pane %s; nothing was sent", p.PaneID)
	}
	return k, busy, nil
}

// typeInto guards input into t's pane and sends it (typed by send): as the running command's
// input when a run holds the pane (text is then left out of the run's output). It returns a
// cursor taken before anything was sent, for wait_for_text and capture_since: nothing the pane
// prints in answer can be missed. The cursor is "" when no stream of the pane could be opened.
//
// settle is for a send that ends in C-c: when the pane's shell is at its prompt, the call
// returns once the shell took it (see interruptTaken).
func (c *Call) typeInto(ctx context.Context, t *target, interrupt, settle, toRun bool, text string, send func() error) (string, error) {
	k, busy, err := c.inputGuard(ctx, t, interrupt, toRun)
	if err != nil {
		return "", err
	}
	cur, off := "", int64(0)
	st, err := c.srv.acquireLive(ctx, t.ts, k)
	if err == nil {
		off = st.Offset() // one offset for the cursor, the wait's mark and the C-c's line
		cur = cursor.New(k.Daemon, t.pane, st.Gen(), off).Encode()
		c.srv.state.marks.input(k, st.Gen(), off)
		defer c.srv.read.live.Release(st)
	}
	if busy && toRun {
		return cur, c.srv.state.runs.Input(k, text, send)
	}
	if err != nil || !settle || !atPrompt(busy, t.pane.PaneCurrentCommand) {
		return cur, send()
	}
	if err := send(); err != nil {
		return cur, err
	}
	st.LineAfter(ctx, off, interruptTaken)
	return cur, nil
}

// interruptTaken bounds how long send_keys waits for a shell at its prompt to take a C-c it
// ends with: the shell starts a new line for its prompt then. Keys sent before
// that (an agent's next send_keys) can be lost or kept: bash, when the signal comes while it
// is busy (on a loaded machine), reads keys sent after the C-c into the line it then drops
// ("echo hi" ran as "cho hi"), or echoes ^C and keeps the line with the next keys added. A
// shell at its prompt answers in milliseconds; the bound is for one starved of the CPU (after
// 1 s it had still not taken it, on a machine with 2 cores and a load of 8).
const interruptTaken = 3 * time.Second

// atPrompt reports whether a C-c sent to a pane whose foreground program is program is taken
// by a shell at its prompt, known to answer it with a new line whatever its line holds: not
// fish, which prints nothing for one at an empty prompt (the wait would always run out), and
// not while a run holds the pane (busy): its command takes the C-c (tmux names the wrapper's
// subshell), and its shell's prompt comes with the run's end, which the next input waits for
// (holderAfterEnd). Waiting for a line there took all of interruptTaken.
func atPrompt(busy bool, program string) bool {
	sh, ok := shellrun.ShellOf(program)
	return !busy && ok && sh != shellrun.FishShell
}

// keysSend is one validated send_keys: what to send and how.
type keysSend struct {
	plan     keys.Plan
	enter    bool // Enter after the plan: asked for, and the plan ends with text
	suppress bool
}

// prepareKeys validates keys before any target is resolved. Enter follows text, never key
// names: "Escape" or "C-c" alone sends only that key.
func prepareKeys(text string, enter, literal, suppress bool) (keysSend, error) {
	if err := checkInputText("keys", text, maxKeysBytes, "Use paste_text for long text, or write it to a file and run a command that reads it."); err != nil {
		return keysSend{}, err
	}
	if enter {
		// A line break that ends the text is the Enter a model meant ("y\n"): pressed once,
		// not twice, where a second would answer a program's next question with its default.
		text = strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r")
	}
	plan, err := keys.Parse(text, literal)
	if err != nil {
		return keysSend{}, err
	}
	if len(plan.Parts) == 0 && !enter {
		return keysSend{}, fail("Pass the text or key names to send in keys, or enter=true to press Enter.", "nothing to send: keys is empty and enter is false")
	}
	return keysSend{plan: plan, enter: enter && plan.EndsWithText() && !endsInControl(text), suppress: suppress}, nil
}

// endsInControl reports whether text ends in a control character: a key typed as its byte
// ("\x03" for C-c, "\t" to complete a word, "\x1b"), which Enter after would undo or run.
func endsInControl(text string) bool {
	return text != "" && (text[len(text)-1] < 0x20 || text[len(text)-1] == 0x7f)
}

// interruptOnly reports whether the send is only interrupt keys.
func (s keysSend) interruptOnly() bool {
	if !s.plan.IsKeys() || s.enter {
		return false
	}
	for _, k := range s.plan.Keys() {
		if !interruptKeys[k] {
			return false
		}
	}
	return true
}

// endsInInterrupt reports whether the last thing sent is C-c (the key, or its byte ending
// text), with no Enter after it.
func (s keysSend) endsInInterrupt() bool {
	if n := len(s.plan.Parts); n > 0 && !s.enter {
		last := s.plan.Parts[n-1]
		return last.Key == "C-c" || last.Key == "" && strings.HasSuffix(last.Text, "\x03")
	}
	return false
}

// escapeGap is the pause after an Escape whose next text starts with O or [: sent together,
// a program reads ESC O A as the Up key's own sequence (vim's "Escape OAbove" would move up and
// type "bove"). Programs wait this long at most for the rest of a sequence by default
// (readline's keyseq-timeout, tmux's escape-time; vim 100 ms, zsh 400 ms).
const escapeGap = 500 * time.Millisecond

// ops builds what is sent, the echo inputs and a description of it, e.g. `keys Escape + text
// ":q!" + keys Enter`: one command list (one instant) per group, groups escapeGap apart.
func (s keysSend) ops(pane string) ([][]tmux.Op, []echo.Input, string) {
	var groups [][]tmux.Op
	var ops []tmux.Op
	var typed []echo.Input
	var desc []string
	parts := s.plan.Parts
	for i := 0; i < len(parts); i++ {
		if parts[i].Key != "" {
			names := []string{}
			for ; i < len(parts) && parts[i].Key != ""; i++ {
				names = append(names, parts[i].Key)
				typed = append(typed, echo.Input{Key: parts[i].Key})
			}
			i--
			ops = append(ops, &tmux.SendKeys{Pane: pane, Keys: names})
			desc = append(desc, "keys "+strings.Join(names, " "))
			continue
		}
		text := parts[i].Text
		if s.suppress && i == 0 {
			text = " " + text
		}
		if i > 0 && parts[i-1].Key == "Escape" && (strings.HasPrefix(text, "O") || strings.HasPrefix(text, "[")) {
			groups, ops = append(groups, ops), nil
		}
		ops = append(ops, &tmux.SendText{Pane: pane, Text: text})
		typed = append(typed, echo.Input{Text: text})
		desc = append(desc, fmt.Sprintf("text %q", truncate(text, 80)))
	}
	if s.enter {
		ops = append(ops, &tmux.SendKeys{Pane: pane, Keys: []string{"Enter"}})
		typed = append(typed, echo.Input{Key: "Enter"})
		desc = append(desc, "Enter")
	}
	return append(groups, ops), typed, strings.Join(desc, " + ")
}

// sendTo checks the guards and sends s to the resolved pane; it returns what was sent and a
// cursor taken before it (see typeInto).
func (c *Call) sendTo(ctx context.Context, t *target, s keysSend, toRun bool) (desc, cur string, err error) {
	groups, typed, desc := s.ops(t.pane.PaneID)
	cur, err = c.typeInto(ctx, t, s.interruptOnly(), s.endsInInterrupt(), toRun, s.plan.Text(), func() error {
		id, err := t.ts.Identity(ctx)
		if err != nil {
			return err
		}
		// Recorded before sending: the echo may come back before Exec returns.
		c.srv.state.echo.Typed(paneKey{Daemon: id, Pane: t.pane.PaneID}, typed, time.Now())
		for i, g := range groups {
			if i > 0 {
				select {
				case <-time.After(escapeGap):
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			if len(g) > 0 {
				if err := t.ts.Batch(ctx, g...); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return desc, cur, err
}

// ---- send_keys

type sendKeysIn struct {
	Keys string `json:"keys"`
	PaneTarget
	Enter           bool `json:"enter,omitempty"`
	Literal         bool `json:"literal,omitempty"`
	SuppressHistory bool `json:"suppress_history,omitempty" jsonschema:"Prefix a space: ignorespace shells skip history"`
	ToRun
	Socket
}

type sendKeysOut struct {
	PaneID string `json:"pane_id"`
	Sent   string `json:"sent" jsonschema:"what was sent, e.g. text \"ls\" + Enter, or keys C-c"`
	Cursor string `json:"cursor" jsonschema:"taken before the first key: wait_for_text (or capture_since) with it sees everything the pane printed after the input"`
	InMode bool   `json:"in_mode,omitempty" jsonschema:"the pane was in copy mode: the keys drove tmux's copy mode, not its program (exit_copy_mode first to type into the program)"`
	// Synchronized: tmux copies keys sent to a pane with synchronize-panes on to the other
	// panes of its window; the caller asked for one pane.
	Synchronized bool `json:"synchronized,omitempty" jsonschema:"synchronize-panes is on: the keys also went to the window's other panes"`
}

func sendKeys(ctx context.Context, c *Call, in *sendKeysIn) (sendKeysOut, error) {
	s, err := prepareKeys(in.Keys, in.Enter, in.Literal, in.SuppressHistory)
	if err != nil {
		return sendKeysOut{}, err
	}
	t, err := c.pane(ctx, in.PaneTarget, in.SocketName)
	if err != nil {
		return sendKeysOut{}, err
	}
	desc, cur, err := c.sendTo(ctx, t, s, in.ToRunningCommand)
	if err != nil {
		return sendKeysOut{}, err
	}
	return sendKeysOut{PaneID: t.pane.PaneID, Sent: desc, Cursor: cur, InMode: t.pane.PaneInMode,
		Synchronized: t.pane.TypesIntoOthers() && !t.pane.PaneInMode}, nil
}

// ---- send_keys_batch

type keysOperation struct {
	Keys string `json:"keys"`
	PaneTarget
	Enter           *bool `json:"enter,omitempty"`
	Literal         *bool `json:"literal,omitempty"`
	SuppressHistory *bool `json:"suppress_history,omitempty"`
	ToRun
}

type sendKeysBatchIn struct {
	Operations []keysOperation `json:"operations"`
	OnError    string          `json:"on_error,omitempty"`
	Timeout    *float64        `json:"timeout,omitempty"`
	Socket
}

type batchKeysRow struct {
	Index          int     `json:"index"`
	PaneID         *string `json:"pane_id" jsonschema:"the pane the operation resolved to; null when it did not resolve"`
	Success        bool    `json:"success"`
	Error          *string `json:"error" jsonschema:"why the operation failed, and what to do instead; null on success"`
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	Cursor         string  `json:"cursor,omitempty" jsonschema:"taken before this operation's first key (see send_keys)"`
}

type sendKeysBatchOut struct {
	Results []batchKeysRow `json:"results"`
	batchTally
}

// batchOperations makes operations a required array of 1..64 rows with typed flags.
func batchOperations(s *jsonschema.Schema) {
	p := prop(s, "operations")
	p.Types, p.Type = nil, "array"
	one, most := 1, maxKeysBatchOps
	p.MinItems, p.MaxItems = &one, &most
	row := p.Items
	for name, dflt := range map[string]bool{"enter": true, "literal": false, "suppress_history": false} {
		f := prop(row, name)
		f.Types, f.Type = nil, "boolean"
		f.Default = json.RawMessage(fmt.Sprint(dflt))
	}
	nullDefaults(row)
}

func sendKeysBatch(ctx context.Context, c *Call, in *sendKeysBatchIn) (sendKeysBatchOut, error) {
	out := sendKeysBatchOut{Results: []batchKeysRow{}}
	bctx := ctx
	if in.Timeout != nil {
		if *in.Timeout <= 0 || math.IsNaN(*in.Timeout) {
			return out, fail("Pass a positive number of seconds, or omit timeout.", "timeout must be positive (got %g)", *in.Timeout)
		}
		var cancel context.CancelFunc
		bctx, cancel = context.WithTimeout(ctx, seconds(*in.Timeout))
		defer cancel()
	}
	var err error
	out.Results, out.batchTally, err = runBatch(len(in.Operations), in.OnError, func(i int) (batchKeysRow, bool, error) {
		start := time.Now()
		row := batchKeysRow{Index: i}
		var err error
		if bctx.Err() != nil && ctx.Err() == nil {
			err = fail("Raise timeout, or split the batch.", "send_keys_batch exceeded its timeout of %gs before this operation", *in.Timeout)
		} else {
			row.PaneID, row.Cursor, err = c.batchSend(bctx, in.Operations[i], in.SocketName)
			if err != nil && bctx.Err() != nil && ctx.Err() == nil {
				err = fail("Raise timeout, or split the batch.", "send_keys_batch exceeded its timeout of %gs during this operation (it may or may not have been sent)", *in.Timeout)
			}
		}
		if ctx.Err() != nil {
			return row, false, ctx.Err()
		}
		row.ElapsedSeconds = elapsedSince(start)
		if err != nil {
			msg := describe(err).Error()
			row.Error = &msg
			return row, false, nil
		}
		row.Success = true
		return row, true, nil
	})
	if err != nil {
		return sendKeysBatchOut{}, err
	}
	return out, nil
}

func (c *Call) batchSend(ctx context.Context, op keysOperation, sock *string) (*string, string, error) {
	flag := func(p *bool, def bool) bool {
		if p == nil {
			return def
		}
		return *p
	}
	s, err := prepareKeys(op.Keys, flag(op.Enter, true), flag(op.Literal, false), flag(op.SuppressHistory, false))
	if err != nil {
		return nil, "", err
	}
	t, err := c.pane(ctx, op.PaneTarget, sock)
	if err != nil {
		return nil, "", err
	}
	pane := t.pane.PaneID
	_, cur, err := c.sendTo(ctx, t, s, op.ToRunningCommand)
	return &pane, cur, err
}

// ---- paste_text

type pasteTextIn struct {
	Text string `json:"text"`
	PaneTarget
	Bracket bool `json:"bracket,omitempty"`
	Submit  bool `json:"submit,omitempty" jsonschema:"Then Enter once the program is quiet"`
	ToRun
	Socket
}

type pasteTextOut struct {
	PaneID        string `json:"pane_id"`
	Bytes         int    `json:"bytes" jsonschema:"bytes pasted"`
	Cursor        string `json:"cursor" jsonschema:"taken before the paste: wait_for_text (or capture_since) with it sees everything the pane printed after it"`
	Submitted     bool   `json:"submitted" jsonschema:"submit: Enter was pressed after the paste"`
	ScreenChanged bool   `json:"screen_changed" jsonschema:"submit: the screen changed after the Enter (the program took it)"`
}

// privateBufferName is a buffer name in this server's namespace: libtmux_mcp_<32 hex>_<logical>.
func privateBufferName(logical string) string {
	b := make([]byte, 16)
	rand.Read(b)
	return bufferPrefix + hex.EncodeToString(b) + "_" + logical
}

func pasteText(ctx context.Context, c *Call, in *pasteTextIn) (pasteTextOut, error) {
	if in.Text == "" {
		return pasteTextOut{}, fail("Pass the text to paste.", "text is empty")
	}
	if err := checkInputText("text", in.Text, maxPasteBytes, "Write long text to a file instead (or paste it in parts)."); err != nil {
		return pasteTextOut{}, err
	}
	t, err := c.pane(ctx, in.PaneTarget, in.SocketName)
	if err != nil {
		return pasteTextOut{}, err
	}
	name := privateBufferName("paste")
	ts := t.ts
	c.srv.state.addBuffer(ts, name)
	pasted := false
	defer func() {
		if !pasted {
			// Never leave the text behind in a buffer, also when the call failed or was cancelled.
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			ts.Do(dctx, &tmux.DeleteBuffer{Buffer: name})
			cancel()
		}
		c.srv.state.removeBuffer(ts, name)
	}()
	echoText := in.Text
	if in.Submit {
		echoText += "\n" // the Enter submit presses: a run's command has its echo come after the text's
	}
	cur, err := c.typeInto(ctx, t, false, false, in.ToRunningCommand, echoText, func() error {
		// No temporary file, nothing on a command line.
		if err := ts.LoadBuffer(ctx, name, []byte(in.Text)); err != nil {
			return fmt.Errorf("loading the text into a tmux buffer: %w", err)
		}
		id, err := ts.Identity(ctx)
		if err != nil {
			return err
		}
		c.srv.state.echo.Typed(paneKey{Daemon: id, Pane: t.pane.PaneID}, []echo.Input{{Text: in.Text}}, time.Now())
		if err := ts.Do(ctx, &tmux.PasteBuffer{Buffer: name, Pane: t.pane.PaneID, Bracket: in.Bracket, Delete: true}); err != nil {
			return err
		}
		pasted = true // -d deleted the buffer
		return nil
	})
	if err != nil {
		return pasteTextOut{}, err
	}
	out := pasteTextOut{PaneID: t.pane.PaneID, Bytes: len(in.Text), Cursor: cur}
	if in.Submit {
		out.Submitted, out.ScreenChanged, err = c.submit(ctx, t, cur)
	}
	return out, err
}

// Waits of paste_text's submit.
const (
	submitQuiet = 80 * time.Millisecond // the program is done with the paste when quiet this long
	submitLimit = 3 * time.Second       // ... or at the latest
)

// submit presses Enter once the program in t's pane has taken what was pasted after cur (it
// printed, then was quiet for submitQuiet), and reports whether the screen changed after it.
func (c *Call) submit(ctx context.Context, t *target, cur string) (submitted, changed bool, err error) {
	id, err := t.ts.Identity(ctx)
	if err != nil {
		return false, false, err
	}
	st, err := c.srv.acquireLive(ctx, t.ts, paneKey{Daemon: id, Pane: t.pane.PaneID})
	if err != nil {
		return false, false, err
	}
	defer c.srv.read.live.Release(st)
	off := st.Offset()
	if k, err := cursor.Decode(cur); err == nil && k.Gen == st.Gen() {
		off = k.Offset
	}
	off = st.QuietAfter(ctx, off, submitQuiet, submitLimit)
	screen := func() string {
		cp := &tmux.Capture{Pane: t.pane.PaneID}
		if err := t.ts.Do(ctx, cp); err != nil {
			return ""
		}
		return cp.Text()
	}
	before := screen()
	if err := t.ts.Do(ctx, &tmux.SendKeys{Pane: t.pane.PaneID, Keys: []string{"Enter"}}); err != nil {
		return false, false, err
	}
	st.QuietAfter(ctx, off, submitQuiet, submitLimit)
	return true, screen() != before, nil
}
