// Package seeds holds the seeded contracts (the seed documents the project was made from), as
// the JSON the server advertises: one file per tool (its description and its exact input and
// output schemas) or resource template (its registration). The server embeds them, and the
// tests compare what it advertises with the same files; README.md says where each came from.
package seeds

import (
	"embed"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

//go:embed *.json
var files embed.FS

// Tool is a seeded tool's contract. The schemas are the seed's text; OutputSchema is nil when
// the seed advertises none.
type Tool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// ToolNamed returns the contract of the seeded tool name; it panics when there is none (a
// build without its seed file).
func ToolNamed(name string) Tool {
	var t Tool
	mustRead(name, &t)
	return t
}

// Template returns the registration of the seeded resource template name.
func Template(name string) *mcp.ResourceTemplate {
	var t mcp.ResourceTemplate
	mustRead(name, &t)
	return &t
}

// JSON returns the seed file of the tool or template name as it is written, or nil.
func JSON(name string) []byte {
	b, _ := files.ReadFile(name + ".json")
	return b
}

// Names lists the seeded tools and templates, by file.
func Names() []string {
	entries, _ := files.ReadDir(".")
	var out []string
	for _, e := range entries {
		out = append(out, e.Name()[:len(e.Name())-len(".json")])
	}
	return out
}

func mustRead(name string, v any) {
	b, err := files.ReadFile(name + ".json")
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		panic(fmt.Sprintf("seed %s: %v", name, err))
	}
}
