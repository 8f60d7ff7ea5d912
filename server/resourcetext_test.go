package server

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An empty text is written as "text":""; a blob, a non-empty text and the result's other
// fields are written as the SDK writes them.
func TestWithTextWritesEmptyText(t *testing.T) {
	r := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
		{URI: "tmux://panes/%1/content", MIMEType: "text/plain"},
		{URI: "tmux://panes/%1/screenshot", MIMEType: "image/png", Blob: []byte{1}},
		{URI: "tmux://panes/%2/content", MIMEType: "text/plain", Text: "x<y"},
	}}
	r.SetMeta(map[string]any{"k": "v"})
	b, err := json.Marshal(withText(r))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Meta     map[string]any               `json:"_meta"`
		Contents []map[string]json.RawMessage `json:"contents"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if string(got.Contents[0]["text"]) != `""` || got.Contents[1]["text"] != nil || string(got.Contents[1]["blob"]) != `"AQ=="` ||
		string(got.Contents[2]["text"]) != `"x\u003cy"` || got.Meta["k"] != "v" {
		t.Errorf("%s", b)
	}
	var back mcp.ReadResourceResult
	if err := json.Unmarshal(b, &back); err != nil || len(back.Contents) != 3 || back.Contents[2].Text != "x<y" {
		t.Errorf("read back: %+v %v", back, err)
	}
	full := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "u", Text: "t"}}}
	if withText(full) != mcp.Result(full) {
		t.Error("a result with no empty text was replaced")
	}
}
