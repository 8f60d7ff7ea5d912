package server

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkResult decodes a result as the SDK's client does, which sets its unexported resultType.
func sdkResult(t *testing.T, js string) *mcp.CallToolResult {
	t.Helper()
	var r mcp.CallToolResult
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// encodeOnce writes 2026-07-28's results (resultType "complete", serverInfo in _meta) as the SDK
// does, and leaves an input_required result (input requests, request state) to the SDK.
func TestEncodeOnceResultType(t *testing.T) {
	complete := sdkResult(t, `{"content":[{"type":"text","text":"<a>"}],"structuredContent":{"a":1},"resultType":"complete"}`)
	complete.Meta = mcp.Meta{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "tmux"}}
	w := asWire(complete)
	if w == nil || w.ResultType != "complete" {
		t.Fatalf("asWire: %+v", w)
	}
	// The SDK's \u003c is < here: encodeOnce's one difference (its doc comment).
	sdk, ours := marshalNoHTML(t, complete), marshalNoHTML(t, w)
	if strings.ReplaceAll(strings.ReplaceAll(string(sdk), `\u003c`, "<"), `\u003e`, ">") != strings.ReplaceAll(strings.ReplaceAll(string(ours), `\u003c`, "<"), `\u003e`, ">") {
		t.Fatalf("different bytes:\nSDK:  %s\nours: %s", sdk, ours)
	}
	if w := asWire(sdkResult(t, `{"content":[{"type":"text","text":"a"}]}`)); w == nil || w.ResultType != "" {
		t.Fatalf("an older client's result: %+v", w)
	}
	for name, js := range map[string]string{
		"input required": `{"inputRequests":{"confirm":{"method":"elicitation/create","params":{"mode":"form","message":"Sure?","requestedSchema":{"type":"object"}}}},"requestState":"s","resultType":"input_required"}`,
		"request state":  `{"content":[],"requestState":"s"}`,
	} {
		r := sdkResult(t, js)
		h := encodeOnce(func(context.Context, string, mcp.Request) (mcp.Result, error) { return r, nil })
		got, _ := h(context.Background(), "tools/call", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "x"}})
		if got != r {
			t.Errorf("%s: rewritten as %T", name, got)
		}
	}
}

// wireResult mirrors the fields of mcp.CallToolResult that asWire copies, and asWire refuses a
// result with any other: when the SDK adds, renames or retags a field this fails, and
// wireResult and asWire need a look.
func TestWireResultMirrorsSDK(t *testing.T) {
	var fields []string
	rt := reflect.TypeFor[mcp.CallToolResult]()
	for i := range rt.NumField() {
		f := rt.Field(i)
		if f.IsExported() {
			fields = append(fields, f.Name+" "+string(f.Tag))
		}
	}
	want := []string{
		`Meta json:"_meta,omitempty"`,
		`Content json:"content"`,
		`StructuredContent json:"structuredContent,omitempty"`,
		`IsError json:"isError,omitempty"`,
		`InputRequests json:"inputRequests,omitempty"`,
		`RequestState json:"requestState,omitempty"`,
	}
	if !slices.Equal(fields, want) {
		t.Errorf("mcp.CallToolResult's fields changed:\n got %q\nwant %q", fields, want)
	}
	// What the SDK writes, unexported fields included (resultType), is what a wireResult writes
	// plus what asWire leaves to the SDK (input requests, request state).
	full := sdkResult(t, `{"_meta":{"k":1},"content":[{"type":"text","text":"a"}],"structuredContent":{},"isError":true,"inputRequests":{"q":{"method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object"}}}},"requestState":"s","resultType":"input_required"}`)
	var keys map[string]any
	json.Unmarshal(marshalNoHTML(t, full), &keys)
	var got []string
	for k := range keys {
		got = append(got, k)
	}
	sort.Strings(got)
	if s := strings.Join(got, " "); s != "_meta content inputRequests isError requestState resultType structuredContent" {
		t.Errorf("the SDK writes %s", s)
	}
}
