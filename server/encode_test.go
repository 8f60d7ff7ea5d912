package server

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A result the middleware rewrites encodes as the same JSON as the SDK's own, byte for byte but
// for the HTML escapes the SDK adds inside texts.
func TestEncodeOnceSameJSON(t *testing.T) {
	cases := map[string]*mcp.CallToolResult{
		"text and structured": {Content: []mcp.Content{&mcp.TextContent{Text: `{"a":1}`}}, StructuredContent: json.RawMessage(`{"a":1}`)},
		"capture": {Content: []mcp.Content{&mcp.TextContent{Text: "line 1\nline\t2 <b> & é ✓ \x1b[31m"}},
			StructuredContent: json.RawMessage(`{"pane_id":"%1","content":"line 1\nline\t2 \u003cb\u003e \u0026 é ✓ \u001b[31m"}`)},
		"invalid UTF-8":   {Content: []mcp.Content{&mcp.TextContent{Text: "a\xffb\xc3"}}},
		"empty text":      {Content: []mcp.Content{&mcp.TextContent{}}},
		"no content":      {},
		"error":           {IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "pane_id: no pane %9"}}},
		"two texts":       {Content: []mcp.Content{&mcp.TextContent{Text: "a"}, &mcp.TextContent{Text: "b"}}},
		"with _meta":      {Meta: mcp.Meta{"k": "v"}, Content: []mcp.Content{&mcp.TextContent{Text: "a"}}},
		"U+2028 U+2029":   {Content: []mcp.Content{&mcp.TextContent{Text: "a\u2028b\u2029"}}},
		"quotes, slash":   {Content: []mcp.Content{&mcp.TextContent{Text: `"\ /`}}},
		"structured only": {StructuredContent: json.RawMessage(`[1,2]`)},
		"a result value": {Content: []mcp.Content{&mcp.TextContent{Text: `{"pane_id":"%1","content":"<a> & b"}`}},
			StructuredContent: CaptureOut{PaneID: "%1", Content: "<a> & b\x00\n"}},
		"a map": {StructuredContent: map[string]any{"b": []int{1}, "a": nil}},
	}
	unescape := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&")
	for name, r := range cases {
		t.Run(name, func(t *testing.T) {
			w := asWire(r)
			if w == nil {
				t.Fatal("asWire refused a result it can write")
			}
			sdk, ours := marshalNoHTML(t, r), marshalNoHTML(t, w)
			var a, b any
			if err := json.Unmarshal(sdk, &a); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(ours, &b); err != nil {
				t.Fatalf("%s: %v", ours, err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("different JSON:\nSDK:  %s\nours: %s", sdk, ours)
			}
			if unescape.Replace(string(sdk)) != unescape.Replace(string(ours)) {
				t.Fatalf("different bytes:\nSDK:  %s\nours: %s", sdk, ours)
			}
		})
	}
}

// marshalNoHTML marshals v as the go-sdk's JSON-RPC layer marshals a result.
func marshalNoHTML(t *testing.T, v any) []byte {
	t.Helper()
	b, err := sdkMarshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// What the middleware cannot write as the SDK does goes through unchanged.
func TestEncodeOnceLeaves(t *testing.T) {
	text := func() *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a"}}}
	}
	image := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a"}, &mcp.ImageContent{Data: []byte{1}, MIMEType: "image/png"}}}
	annotated := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a", Annotations: &mcp.Annotations{Priority: 1}}}}
	classic := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "x"}}
	perRequest := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "x", Meta: mcp.Meta{mcp.MetaKeyProtocolVersion: "2026-07-28"}}}
	cases := []struct {
		name    string
		method  string
		req     mcp.Request
		res     mcp.Result
		rewrite bool
	}{
		{"plain text", "tools/call", classic, text(), true},
		{"an image", "tools/call", classic, image, false},
		{"annotations", "tools/call", classic, annotated, false},
		{"the per-request protocol", "tools/call", perRequest, text(), true},
		{"another method", "prompts/get", classic, &mcp.GetPromptResult{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := encodeOnce(func(context.Context, string, mcp.Request) (mcp.Result, error) { return c.res, nil })
			got, err := h(context.Background(), c.method, c.req)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := got.(*wireResult); ok != c.rewrite {
				t.Fatalf("rewritten: %v, want %v", ok, c.rewrite)
			}
			if !c.rewrite && got != c.res {
				t.Fatal("the result was replaced")
			}
		})
	}
}
