package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

// annBatch is what the mutating and destructive batches declare: the worst case of the tools
// they may call.
var annBatch = Annotations{Destructive: true, OpenWorld: true}

// batchTools: call_*_tools_batch, one per tier.
func batchTools() []*Tool {
	mk := func(tier policy.Tier, ann Annotations, desc string) *Tool {
		// A batch belongs to the toolsets of the tools it may call (the read-only and the
		// destructive one by their tier).
		return define(spec{Name: batchName(tier), Title: "Call " + tierTitle(tier) + " tmux Tools in a Batch", Tier: tier, Ann: ann,
			Toolsets: []string{policy.Manage, policy.Execute}, Batch: true,
			Description: desc + " In order; on_error=stop halts at a failure. No batch or blocking tools. Rows keep structured_content within 1 MB.",
			Input:       batchSchema},
			batchRunner(tier))
	}
	return []*Tool{
		mk(policy.ReadOnly, annRO, "Call up to 1000 read-only tools."),
		mk(policy.Mutating, annBatch, "Call up to 1000 read-only or mutating tools."),
		mk(policy.Destructive, annBatch, "Call up to 1000 tools of any offered tier."),
	}
}

// inCatalog is knownTool, reached through a variable: the batch tools are part of the
// catalogue they look names up in.
var inCatalog func(name string) bool

func init() { inCatalog = knownTool }

func batchName(t policy.Tier) string { return "call_" + t.String() + "_tools_batch" }

func tierTitle(t policy.Tier) string {
	return map[policy.Tier]string{policy.ReadOnly: "Read-only", policy.Mutating: "Mutating", policy.Destructive: "Destructive"}[t]
}

const (
	maxBatchOps = 1000
	// batchBudget bounds the result's JSON: it travels twice (structuredContent and the text
	// block), and the whole response must stay within 1 MB.
	batchBudget   = 490_000
	maxBatchError = 4096
)

type batchOp struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments,omitempty"`
}

type batchIn struct {
	Operations []batchOp `json:"operations"`
	OnError    string    `json:"on_error,omitempty"`
}

func batchSchema(s *jsonschema.Schema) {
	ops := prop(s, "operations")
	ops.Types, ops.Type = nil, "array"
	lo, hi := 1, maxBatchOps
	ops.MinItems, ops.MaxItems = &lo, &hi
	a := ops.Items.Properties["arguments"]
	a.Type, a.Types = "", []string{"null", "object"}
	a.Default = json.RawMessage("{}")
	edits(enum("on_error", "stop", "continue"), def("on_error", "stop"))(s)
}

type batchRow struct {
	Index             int     `json:"index"`
	Tool              string  `json:"tool"`
	Success           bool    `json:"success"`
	Error             *string `json:"error" jsonschema:"the tool error's text; null on success"`
	StructuredContent any     `json:"structured_content" jsonschema:"the tool's structured result; null on failure or when cut to keep the response within 1 MB"`
	ElapsedSeconds    float64 `json:"elapsed_seconds"`
}

type batchOut struct {
	Results []batchRow `json:"results"`
	batchTally
	ResponseTruncated      bool `json:"response_truncated"`
	ResponseTruncatedBytes int  `json:"response_truncated_bytes"`
}

func batchRunner(tier policy.Tier) func(ctx context.Context, c *Call, in *batchIn) (batchOut, error) {
	return func(ctx context.Context, c *Call, in *batchIn) (batchOut, error) {
		if len(in.Operations) == 0 || len(in.Operations) > maxBatchOps {
			return batchOut{}, fail("Pass 1 to 1000 operations of {tool, arguments}.", "operations holds %d calls", len(in.Operations))
		}
		// LIBTMUX_MCP_CONFIRM: every question before any operation runs (confirm.go).
		refused, err := c.confirmBatch(ctx, in.Operations)
		if err != nil {
			return batchOut{}, err
		}
		c.batchRefused = refused
		var out batchOut
		out.Results, out.batchTally, _ = runBatch(len(in.Operations), in.OnError, func(i int) (batchRow, bool, error) {
			if ctx.Err() != nil {
				return batchRow{}, false, errStopBatch
			}
			row := c.batchCall(ctx, tier, i, in.Operations[i])
			return row, row.Success, nil
		})
		fitBatch(&out)
		return out, nil
	}
}

// ---- the batch engine

// batchTally counts a batch's operations.
type batchTally struct {
	Succeeded int  `json:"succeeded"`
	Failed    int  `json:"failed"`
	StoppedAt *int `json:"stopped_at" jsonschema:"index of the operation the batch stopped at: the failed one (on_error=stop), or the first one not run when the call was cancelled; null when every operation ran"`
}

// errStopBatch, from an operation, ends the batch before it (the call was cancelled):
// stopped_at names it, and it has no row.
var errStopBatch = errors.New("the batch stopped")

// runBatch is the engine of the batch tools (call_*_tools_batch, send_keys_batch): it runs n
// operations in order with do, which returns an operation's row and whether it succeeded,
// counts them, and stops after the first failure unless onError is "continue". do ends the
// batch before an operation with errStopBatch, and the whole call with another error.
func runBatch[Row any](n int, onError string, do func(i int) (Row, bool, error)) ([]Row, batchTally, error) {
	rows := make([]Row, 0, n)
	var t batchTally
	for i := range n {
		row, ok, err := do(i)
		if errors.Is(err, errStopBatch) {
			t.StoppedAt = &i
			break
		}
		if err != nil {
			return nil, batchTally{}, err
		}
		rows = append(rows, row)
		if ok {
			t.Succeeded++
			continue
		}
		t.Failed++
		if onError != "continue" {
			t.StoppedAt = &i
			break
		}
	}
	return rows, t, nil
}

// elapsedSince is the seconds since start, to the microsecond, as batch rows report them.
func elapsedSince(start time.Time) float64 {
	return math.Round(time.Since(start).Seconds()*1e6) / 1e6
}

// batchCall runs one operation as a direct call would run, or explains why it may not run.
func (c *Call) batchCall(ctx context.Context, tier policy.Tier, i int, op batchOp) batchRow {
	row := batchRow{Index: i, Tool: op.Tool}
	failRow := func(err error) batchRow {
		msg := errorResult(op.Tool, err).Content[0].(*mcp.TextContent).Text
		row.Error = &msg
		return row
	}
	t, ok := c.srv.tools[op.Tool]
	switch {
	case !ok:
		return failRow(c.srv.notOffered(op.Tool))
	case t.Batch:
		return failRow(fail("Put the operations of both batches into one batch.", "batch tools cannot call batch tools (%s)", t.Name))
	case t.Blocking:
		return failRow(fail("Call "+t.Name+" directly: it waits on its own ceiling, which a batch cannot bound.", "%s blocks and cannot run in a batch", t.Name))
	case t.Tier > tier:
		return failRow(fail(fmt.Sprintf("Use %s for %s tools (when the server offers it).", batchName(t.Tier), t.Tier),
			"%s is a %s tool, above what %s may call (%s)", t.Name, t.Tier, batchName(tier), tier))
	}
	if err := c.batchRefused[i]; err != nil {
		return failRow(err)
	}
	var raw json.RawMessage
	if op.Arguments != nil {
		b, err := json.Marshal(op.Arguments)
		if err != nil {
			return failRow(fail("Pass arguments as a JSON object.", "arguments of %s: %v", t.Name, err))
		}
		raw = b
	}
	start := time.Now()
	sub := &Call{srv: c.srv, req: c.req, Tool: t, batchTier: tier, capped: true, confirmed: c.srv.needsConfirm(t)}
	res := sub.run(ctx, raw)
	row.ElapsedSeconds = elapsedSince(start)
	if res.IsError {
		var b strings.Builder
		for _, ct := range res.Content {
			if tc, ok := ct.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		msg := b.String()
		if len(msg) > maxBatchError {
			msg = msg[:maxBatchError] + "…"
		}
		row.Error = &msg
		return row
	}
	row.Success = true
	row.StructuredContent = res.StructuredContent
	return row
}

// fitBatch drops structured_content from the first row on until the result fits its budget,
// and reports how many bytes it dropped.
func fitBatch(out *batchOut) {
	b, err := json.Marshal(out)
	if err != nil || len(b) <= batchBudget {
		return
	}
	size, dropped := len(b), 0
	for i := range out.Results {
		if size <= batchBudget {
			break
		}
		r := &out.Results[i]
		if r.StructuredContent == nil {
			continue
		}
		sb, _ := json.Marshal(r.StructuredContent)
		n := len(sb) - len("null")
		size -= n
		dropped += n
		r.StructuredContent = nil
	}
	out.ResponseTruncated = true
	out.ResponseTruncatedBytes = dropped
}

// offeredList names the offered tools, sorted.
func (s *Server) offeredList() string {
	names := make([]string, 0, len(s.tools))
	for n := range s.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
