package cli

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/internal/hint"
	"github.com/tmux-mcp/tmux-mcp/server"
)

// describeTool prints one offered tool: its description, then each argument with its type,
// default and description (`tmux-mcp tools NAME`).
func describeTool(srv *server.Server, name string, sio IO) int {
	desc, input, ok := srv.ToolSchema(name)
	if !ok {
		var names []string
		for _, t := range srv.Tools() {
			names = append(names, t.Name)
		}
		msg := fmt.Sprintf("tmux-mcp: no tool %q is offered", name)
		if c := hint.Closest(name, names); c != "" {
			msg += fmt.Sprintf("; did you mean %q?", c)
		}
		fmt.Fprintln(sio.Stderr, msg+" (tmux-mcp tools lists them)")
		return 2
	}
	var schema inputSchema
	if err := json.Unmarshal(input, &schema); err != nil {
		fmt.Fprintln(sio.Stderr, "tmux-mcp: reading the input schema:", err)
		return 1
	}
	fmt.Fprintf(sio.Stdout, "%s\n\n%s\n\nArguments:\n", name, desc)
	names := make([]string, 0, len(schema.Properties))
	for n := range schema.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		fmt.Fprintln(sio.Stdout, "  (none)")
	}
	for _, n := range names {
		fmt.Fprintln(sio.Stdout, argumentLine(n, schema.Properties[n], containsString(schema.Required, n)))
	}
	return 0
}

// inputSchema is the part of a tool's input schema that describeTool prints.
type inputSchema struct {
	Properties map[string]argSchema `json:"properties"`
	Required   []string             `json:"required"`
}

// argSchema is one argument's schema, as far as describeTool prints it.
type argSchema struct {
	Type        any                  `json:"type"`
	AnyOf       []struct{ Type any } `json:"anyOf"`
	Enum        []any                `json:"enum"`
	Default     json.RawMessage      `json:"default"`
	Description string               `json:"description"`
}

// argumentLine spells one argument: "  name (type, required, default D, one of [...]): description".
func argumentLine(n string, p argSchema, required bool) string {
	typ := typeName(p.Type)
	for _, a := range p.AnyOf {
		typ = strings.Trim(typ+"|"+typeName(a.Type), "|")
	}
	line := fmt.Sprintf("  %s (%s", n, typ)
	if required {
		line += ", required"
	}
	if len(p.Default) > 0 {
		line += ", default " + string(p.Default)
	}
	if len(p.Enum) > 0 {
		b, _ := json.Marshal(p.Enum)
		line += ", one of " + string(b)
	}
	line += ")"
	if p.Description != "" {
		line += ": " + p.Description
	}
	return line
}

// typeName spells a JSON schema type ("string", or ["null","string"]) as string|null.
func typeName(t any) string {
	switch t := t.(type) {
	case string:
		return t
	case []any:
		var parts []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "|")
	}
	return ""
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
