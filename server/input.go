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

	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

// inputTools: send_keys, send_keys_batch, paste_text.
func inputTools() []*Tool {
	return []*Tool{
		define(spec{Name: "send_keys", Title: "Send Keys to tmux Pane", Tier: policy.Mutating, Ann: annSHELL,
			Description: "Type into a pane: text (then Enter unless enter=false), or space-separated tmux key names (C-c, Escape, Up, BTab, F1...), never both; literal=true types anything as text. For a command's output and exit status, use run_shell_command; to see what it prints, wait_for_text.",
			Input:       edits(def("enter", true), def("literal", false), def("suppress_history", false))},
			sendKeys),
		define(spec{Name: "send_keys_batch", Title: "Send Keys to tmux Panes (Batch)", Tier: policy.Mutating, Ann: annSHELL,
			Description: "Run up to 64 send_keys in order, each with its own target and flags; on_error=stop ends at the first failure (stopped_at). timeout bounds the whole batch.",
			Input:       edits(batchOperations, enum("on_error", "stop", "continue"), def("on_error", "stop"))},
			sendKeysBatch),
		define(spec{Name: "paste_text", Title: "Paste Text into tmux Pane", Tier: policy.Mutating, Ann: annSHELL,
			Description: "Paste text (multi-line, any quotes) into a pane through a private buffer, bracketed when the program asks, so a shell does not run it line by line. Adds no Enter.",
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

// inputGuard refuses input into a pane that is dead, that this server runs in, or that a run of
// this server holds (except interrupt keys, which is how that run is stopped). It returns the
// pane's key for the echo records.
func (c *Call) inputGuard(ctx context.Context, t *target, interrupt bool) (paneKey, error) {
	p := t.pane
	if p.PaneDead {
		return paneKey{}, fail("Restart it with respawn_pane, or pick another pane (list_panes).",
			"pane %s is dead: its program exited, so it cannot take input", p.PaneID)
	}
	// When unsure (inside this tmux server, but TMUX_PANE unset), refuse like the other guards.
	if pl := c.callerPlace(ctx, t.ts, nil); pl.on {
		switch pl.pane {
		case p.PaneID:
			return paneKey{}, fail("Pick another pane (list_panes marks this one is_caller: true), or create one with split_window or create_window.",
				"refusing to type into pane %s: it is the pane this MCP server runs in, so it would type into the client that is talking to this server", p.PaneID)
		case "":
			return paneKey{}, fail(selfHint, "refusing to type into pane %s: this MCP server runs inside this tmux server and cannot tell which pane is its own (TMUX_PANE is unset)", p.PaneID)
		}
	}
	id, err := t.ts.Identity(ctx)
	if err != nil {
		return paneKey{}, err
	}
	k := paneKey{daemon: id, pane: p.PaneID}
	if h, busy := c.srv.state.holder(k); busy && !interrupt {
		return k, fail(busyHint+" (C-c alone is allowed while it runs.)", "pane %s is busy: %s is still running in it", p.PaneID, h)
	}
	return k, nil
}

// checkText refuses what a terminal cannot receive or a call should not carry.
func checkInputText(arg, s string, limit int, hint string) error {
	if len(s) > limit {
		return fail(hint, "%s is %d bytes long; at most %d are allowed", arg, len(s), limit)
	}
	if i := strings.IndexByte(s, 0); i >= 0 {
		return fail("Remove the NUL bytes: tmux cannot deliver them as typed input.", "%s contains a NUL byte (at byte %d)", arg, i)
	}
	return nil
}

// keysSend is one validated send_keys: what to send and how.
type keysSend struct {
	plan     keyPlan
	enter    bool
	suppress bool
}

// prepareKeys validates keys before any target is resolved.
func prepareKeys(keys string, enter, literal, suppress bool) (keysSend, error) {
	if err := checkInputText("keys", keys, maxKeysBytes, "Use paste_text for long text, or write it to a file and run a command that reads it."); err != nil {
		return keysSend{}, err
	}
	plan, err := planKeys(keys, literal)
	if err != nil {
		return keysSend{}, err
	}
	if !plan.isKeys() && plan.text == "" && !enter {
		return keysSend{}, fail("Pass the text or key names to send in keys, or enter=true to press Enter.", "nothing to send: keys is empty and enter is false")
	}
	return keysSend{plan: plan, enter: enter, suppress: suppress}, nil
}

// interruptOnly reports whether the send is only interrupt keys.
func (s keysSend) interruptOnly() bool {
	if !s.plan.isKeys() || s.enter {
		return false
	}
	for _, k := range s.plan.keys {
		if !interruptKeys[k] {
			return false
		}
	}
	return true
}

// commands builds the tmux command list (sent as one line: one instant) and the echo inputs.
func (s keysSend) commands(pane string) ([][]string, []echoInput, string) {
	var cmds [][]string
	var echo []echoInput
	var desc string
	if s.plan.isKeys() {
		keys := append([]string{}, s.plan.keys...)
		for _, k := range keys {
			echo = append(echo, echoInput{key: k})
		}
		if s.enter {
			keys = append(keys, "Enter")
			echo = append(echo, echoInput{key: "Enter"})
		}
		cmds = append(cmds, append([]string{"send-keys", "-t", pane}, keys...))
		desc = "keys " + strings.Join(keys, " ")
	} else {
		text := s.plan.text
		if s.suppress && text != "" {
			text = " " + text
		}
		cmds = append(cmds, literalCommands(pane, text)...)
		echo = append(echo, echoInput{text: text})
		desc = fmt.Sprintf("text %q", truncate(text, 80))
		if s.enter {
			cmds = append(cmds, []string{"send-keys", "-t", pane, "Enter"})
			echo = append(echo, echoInput{key: "Enter"})
			desc += " + Enter"
		}
	}
	return cmds, echo, desc
}

// literalCommands types text literally. LF and CR travel as the keys C-j and C-m (the same
// bytes), so the whole list stays one control-mode line.
func literalCommands(pane, text string) [][]string {
	var cmds [][]string
	for text != "" {
		i := strings.IndexAny(text, "\r\n")
		if i < 0 {
			i = len(text)
		}
		if i > 0 {
			cmds = append(cmds, []string{"send-keys", "-t", pane, "-l", "--", text[:i]})
		}
		if i == len(text) {
			break
		}
		key := "C-j"
		if text[i] == '\r' {
			key = "C-m"
		}
		cmds = append(cmds, []string{"send-keys", "-t", pane, key})
		text = text[i+1:]
	}
	return cmds
}

// sendTo checks the guards and sends s to the resolved pane.
func (c *Call) sendTo(ctx context.Context, t *target, s keysSend) (string, error) {
	k, err := c.inputGuard(ctx, t, s.interruptOnly())
	if err != nil {
		return "", err
	}
	cmds, echo, desc := s.commands(t.pane.PaneID)
	// Recorded before sending: the echo may come back before Exec returns.
	c.srv.state.echo.typed(k, echo, time.Now())
	if len(cmds) > 0 {
		if _, err := t.ts.Exec(ctx, cmds...); err != nil {
			return "", err
		}
	}
	return desc, nil
}

// ---- send_keys

type sendKeysIn struct {
	Keys string `json:"keys"`
	PaneTarget
	Enter           bool `json:"enter,omitempty"`
	Literal         bool `json:"literal,omitempty"`
	SuppressHistory bool `json:"suppress_history,omitempty" jsonschema:"Prefix text with a space, which ignorespace shells keep out of history"`
	Socket
}

type sendKeysOut struct {
	PaneID string `json:"pane_id"`
	Sent   string `json:"sent" jsonschema:"what was sent, e.g. text \"ls\" + Enter, or keys C-c"`
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
	desc, err := c.sendTo(ctx, t, s)
	if err != nil {
		return sendKeysOut{}, err
	}
	return sendKeysOut{PaneID: t.pane.PaneID, Sent: desc}, nil
}

// ---- send_keys_batch

type keysOperation struct {
	Keys            string  `json:"keys"`
	PaneID          *string `json:"pane_id,omitempty" jsonschema:"%1; else window_id's or the session's active pane"`
	SessionName     *string `json:"session_name,omitempty"`
	SessionID       *string `json:"session_id,omitempty"`
	WindowID        *string `json:"window_id,omitempty"`
	Enter           *bool   `json:"enter,omitempty"`
	Literal         *bool   `json:"literal,omitempty"`
	SuppressHistory *bool   `json:"suppress_history,omitempty"`
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
}

type sendKeysBatchOut struct {
	Results   []batchKeysRow `json:"results"`
	Succeeded int            `json:"succeeded"`
	Failed    int            `json:"failed"`
	StoppedAt *int           `json:"stopped_at" jsonschema:"index of the failed operation the batch stopped at (on_error=stop); null when it ran to the end"`
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
	for i, op := range in.Operations {
		start := time.Now()
		row := batchKeysRow{Index: i}
		var err error
		if bctx.Err() != nil && ctx.Err() == nil {
			err = fail("Raise timeout, or split the batch.", "send_keys_batch exceeded its timeout of %gs before this operation", *in.Timeout)
		} else {
			row.PaneID, err = c.batchSend(bctx, op, in.SocketName)
			if err != nil && bctx.Err() != nil && ctx.Err() == nil {
				err = fail("Raise timeout, or split the batch.", "send_keys_batch exceeded its timeout of %gs during this operation (it may or may not have been sent)", *in.Timeout)
			}
		}
		if ctx.Err() != nil {
			return sendKeysBatchOut{}, ctx.Err()
		}
		row.ElapsedSeconds = math.Round(time.Since(start).Seconds()*1e6) / 1e6
		if err != nil {
			msg := describe(err).Error()
			row.Error = &msg
			out.Failed++
		} else {
			row.Success = true
			out.Succeeded++
		}
		out.Results = append(out.Results, row)
		if err != nil && in.OnError != "continue" {
			out.StoppedAt = &row.Index
			break
		}
	}
	return out, nil
}

func (c *Call) batchSend(ctx context.Context, op keysOperation, sock *string) (*string, error) {
	flag := func(p *bool, def bool) bool {
		if p == nil {
			return def
		}
		return *p
	}
	s, err := prepareKeys(op.Keys, flag(op.Enter, true), flag(op.Literal, false), flag(op.SuppressHistory, false))
	if err != nil {
		return nil, err
	}
	t, err := c.pane(ctx, PaneTarget{PaneID: op.PaneID, SessionName: op.SessionName, SessionID: op.SessionID, WindowID: op.WindowID}, sock)
	if err != nil {
		return nil, err
	}
	pane := t.pane.PaneID
	_, err = c.sendTo(ctx, t, s)
	return &pane, err
}

// ---- paste_text

type pasteTextIn struct {
	Text string `json:"text"`
	PaneTarget
	Bracket bool `json:"bracket,omitempty"`
	Socket
}

type pasteTextOut struct {
	PaneID string `json:"pane_id"`
	Bytes  int    `json:"bytes" jsonschema:"bytes pasted"`
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
	k, err := c.inputGuard(ctx, t, false)
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
			ts.Exec(dctx, []string{"delete-buffer", "-b", name})
			cancel()
		}
		c.srv.state.removeBuffer(ts, name)
	}()
	// load-buffer reads the text from stdin: no temporary file, nothing on a command line.
	if _, err := ts.Spawn(ctx, []byte(in.Text), "load-buffer", "-b", name, "-"); err != nil {
		return pasteTextOut{}, fmt.Errorf("loading the text into a tmux buffer: %w", err)
	}
	c.srv.state.echo.typed(k, []echoInput{{text: in.Text}}, time.Now())
	args := []string{"paste-buffer", "-b", name, "-d"}
	if in.Bracket {
		args = append(args, "-p")
	}
	args = append(args, "-t", t.pane.PaneID)
	if _, err := ts.Exec(ctx, args); err != nil {
		return pasteTextOut{}, err
	}
	pasted = true // -d deleted the buffer
	return pasteTextOut{PaneID: t.pane.PaneID, Bytes: len(in.Text)}, nil
}
