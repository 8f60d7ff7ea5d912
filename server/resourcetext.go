package server

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// withText makes sure every text resource in res is sent with its "text", even an empty one
// (the content of a blank pane).
//
// Why (go-sdk v1.8.0): mcp.ResourceContents tags Text `json:"text,omitempty"`, so an empty
// text is left out, and a text resource without "text" is refused whole by the TypeScript
// SDK, v1 and v2 (Claude Code, the MCP Inspector and most clients): `Invalid result for
// resources/read … "path": ["text"] … expected string, received undefined`. Until the go-sdk
// writes the field, a result that holds an empty text goes out as a textResult, which writes
// it; every other result is left as it is.
func withText(res mcp.Result) mcp.Result {
	r, ok := res.(*mcp.ReadResourceResult)
	if !ok {
		return res
	}
	for _, c := range r.Contents {
		if c != nil && c.Text == "" && c.Blob == nil {
			return textResult{r}
		}
	}
	return res
}

// textResult is a resources/read result that writes "text":"" for each content that has
// neither text nor blob. Embedding keeps the SDK's methods (meta, result type), which it calls
// on the result after the middleware, and its MarshalJSON writes the rest.
type textResult struct{ *mcp.ReadResourceResult }

// MarshalJSON implements json.Marshaler.
func (r textResult) MarshalJSON() ([]byte, error) {
	b, err := r.ReadResourceResult.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	var contents []map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(top["contents"], &contents); err != nil || len(contents) != len(r.Contents) {
		return b, err
	}
	for i, c := range r.Contents {
		if _, has := contents[i]["text"]; c != nil && !has && c.Blob == nil {
			contents[i]["text"] = json.RawMessage(`""`)
		}
	}
	if top["contents"], err = json.Marshal(contents); err != nil {
		return nil, err
	}
	return json.Marshal(top)
}
