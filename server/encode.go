package server

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// encodeOnce hands the go-sdk a tool's result in a form that encoding/json writes in one pass.
//
// Why (go-sdk v1.8.0): the SDK's JSON-RPC layer marshals a *mcp.CallToolResult, whose
// MarshalJSON marshals a struct holding Marshalers (each mcp.TextContent), and encoding/json
// re-scans every Marshaler's output where it embeds it: a result's text is scanned twice more
// after it was encoded, the whole result once more. A wireResult holds the same fields with no
// Marshaler, and the structured content as the result's value rather than its JSON (Call.result).
// The gain, measured (BenchmarkEncodeListPanes1000), is in docs/performance.md.
//
// Only results it writes exactly as the SDK does (text blocks with no _meta or annotations,
// no input requests) take this path; any other result goes through unchanged: an
// input_required one (InputRequests, RequestState) is the SDK's to write, and small. On
// 2026-07-28 the SDK adds serverInfo to the result's _meta after this point, which a
// wireResult takes as a CallToolResult does (its ResultBase), and its resultType is the SDK's
// own (resultTypeOf). TestWireResultMirrorsSDK fails when mcp.CallToolResult changes. The
// bytes differ from the SDK's in one way only: <, > and & inside a text stay as they are where
// the SDK writes \u003c, \u003e and \u0026 (the same JSON string).
func encodeOnce(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || method != "tools/call" {
			return res, err
		}
		if r, ok := res.(*mcp.CallToolResult); ok {
			if w := asWire(r); w != nil {
				return w, nil
			}
		}
		return res, nil
	}
}

// wireResult is a tools/call result as the SDK writes it: the fields of mcp.CallToolResult
// that tmux-mcp fills, in their order, with no Marshaler of its own.
type wireResult struct {
	mcp.ResultBase
	Content           []wireText `json:"content"`
	StructuredContent any        `json:"structuredContent,omitempty"`
	IsError           bool       `json:"isError,omitempty"`
	// ResultType is the SDK's: "complete" for a client of 2026-07-28 or later, else none.
	ResultType string `json:"resultType,omitempty"`
}

// wireText is mcp.TextContent as the SDK writes it when it has no _meta or annotations.
type wireText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// asWire returns r as a wireResult, or nil when r holds anything a wireResult cannot write.
func asWire(r *mcp.CallToolResult) *wireResult {
	if r == nil || r.InputRequests != nil || r.RequestState != "" || r.NeedsInput() {
		return nil
	}
	w := &wireResult{IsError: r.IsError} // no content: null, as the SDK writes it
	w.Meta = r.Meta
	for _, c := range r.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok || t.Meta != nil || t.Annotations != nil {
			return nil
		}
		w.Content = append(w.Content, wireText{Type: "text", Text: t.Text})
	}
	w.StructuredContent = r.StructuredContent
	w.ResultType = resultTypeOf(r)
	return w
}

// resultTypeOf is the resultType the SDK writes for r. The SDK decides it (by the client's
// revision, in its tools/call handler) and keeps it unexported, writing it only in
// CallToolResult.MarshalJSON: marshaling r without its content reads it from there, in about
// a microsecond, so that no rule of the SDK's is copied here to drift from it.
func resultTypeOf(r *mcp.CallToolResult) string {
	head := *r
	head.Meta, head.Content, head.StructuredContent = nil, nil, nil
	b, err := json.Marshal(&head)
	if err != nil {
		return ""
	}
	var v struct {
		ResultType string `json:"resultType"`
	}
	json.Unmarshal(b, &v)
	return v.ResultType
}
