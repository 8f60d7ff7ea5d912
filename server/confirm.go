package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

// Confirmation on request (LIBTMUX_MCP_CONFIRM): calls of the tiers or tools it names first ask
// the person, with a form-mode elicitation that names the call and its target; only an accept
// runs them. It only ever stops a call: the tier, the toolsets and the guards apply as before.

// checkConfirm refuses a LIBTMUX_MCP_CONFIRM entry that is neither a tier nor a tool.
func (o *Options) checkConfirm() error {
	for _, e := range o.Confirm {
		if _, ok := policy.ParseTier(e); ok && e != "" {
			continue
		}
		if !knownTool(e) {
			return fmt.Errorf("LIBTMUX_MCP_CONFIRM names %q, which is neither a tier (readonly, mutating, destructive) nor a tool", e)
		}
	}
	return nil
}

// needsConfirm reports whether calls of t ask the person first.
func (s *Server) needsConfirm(t *Tool) bool {
	for _, e := range s.opts.Confirm {
		if e == t.Name {
			return true
		}
		if tier, ok := policy.ParseTier(e); ok && tier == t.Tier && !t.Batch {
			return true
		}
	}
	return false
}

// confirmSchema is the form: no field, the person accepts or declines.
var confirmSchema = map[string]any{"type": "object", "properties": map[string]any{}}

// confirm asks the person whether the call of t with raw arguments may run (key names the
// question within c's call). nil: accepted.
func (c *Call) confirm(ctx context.Context, key string, t *Tool, raw json.RawMessage) error {
	what := describeCall(t.Name, raw)
	refused := func(why string) error {
		return fail("Ask the person in your reply whether to go ahead, or do something else; the operator's setting LIBTMUX_MCP_CONFIRM decides which calls ask.",
			"%s was not run: LIBTMUX_MCP_CONFIRM asks the person first, and %s", what, why)
	}
	if c.req == nil || c.req.Session == nil {
		return refused("an in-process call has no person to ask")
	}
	caps := c.req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil || (caps.Elicitation.Form == nil && caps.Elicitation.URL != nil) {
		return refused("this client cannot ask its person (it declared no form elicitation)")
	}
	res, err := c.Elicit(ctx, key, &mcp.ElicitParams{Message: "An AI agent wants to run " + what + ". Allow it?", RequestedSchema: confirmSchema})
	if err != nil {
		return err
	}
	if res.Action != "accept" {
		return refused("the person did not allow it (" + res.Action + ")")
	}
	return nil
}

// describeCall names a call and its target in words: "kill_pane on pane %3".
func describeCall(tool string, raw json.RawMessage) string {
	var args map[string]any
	json.Unmarshal(raw, &args)
	var on []string
	for _, k := range []struct{ arg, word string }{{"pane_id", "pane"}, {"paneId", "pane"}, {"window_id", "window"}, {"window_index", "window"},
		{"session_id", "session"}, {"session_name", "session"}, {"target_pane_id", "to pane"}, {"socket_name", "tmux socket"}, {"host", "host"}} {
		if v, ok := args[k.arg]; ok && v != nil {
			on = append(on, fmt.Sprintf("%s %s", k.word, truncate(fmt.Sprint(v), 60)))
		}
	}
	if len(on) == 0 {
		return tool
	}
	return tool + " on " + strings.Join(on, ", ")
}

// confirmBatch asks, before a batch runs anything, about each of its operations that needs it
// (on 2026-07-28 the batch's handler runs again per question, so nothing may have run yet).
// It returns why each refused operation may not run, by index.
func (c *Call) confirmBatch(ctx context.Context, ops []batchOp) (map[int]error, error) {
	refused := map[int]error{}
	for i, op := range ops {
		t, ok := c.srv.tools[op.Tool]
		if !ok || t.Batch || t.Blocking || !c.srv.needsConfirm(t) {
			continue
		}
		raw, _ := json.Marshal(op.Arguments)
		err := c.confirm(ctx, fmt.Sprintf("confirm%d", i), t, raw)
		var in *inputRequired
		switch {
		case errors.As(err, &in):
			return nil, err
		case err != nil:
			refused[i] = err
		}
	}
	return refused, nil
}
