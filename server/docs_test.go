package server

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

var update = flag.Bool("update", false, "rewrite generated docs (docs/tools.md) from the catalogue")

const toolsDoc = "../docs/tools.md"

// renderToolsDoc lists every tool of the catalogue by tier, one line each.
func renderToolsDoc() string {
	var b strings.Builder
	b.WriteString("# Tools\n\n")
	b.WriteString("Generated from the catalogue (`server/*.go`) by `go test ./server -run TestToolsDoc -update`; do not edit by hand.\n")
	b.WriteString("`LIBTMUX_SAFETY` picks the tier: a tool above it is not offered at all; `LIBTMUX_MCP_TOOLS` narrows the list further.\n")
	b.WriteString("`tmux-mcp tools` prints what a client would be offered. Annotation presets (readOnly/destructive/idempotent/openWorld):\n")
	b.WriteString("RO = T/F/T/F, MUT = F/F/T/F, CREATE = F/F/F/F, SHELL = F/F/F/T, DESTR = F/T/F/F, SEED = F/T/F/T,\n")
	b.WriteString("BATCH = F/T/F/T (the worst case of the tools a batch may call).\n")
	b.WriteString("\n## Tiers and toolsets\n\n")
	b.WriteString(tiersAndToolsets)
	b.WriteString("\n## The tools\n\n")
	b.WriteString("Each tool's arguments follow its line: type, whether required, default, and description where it\n")
	b.WriteString("has one. With other hosts configured (`LIBTMUX_MCP_HOSTS`), every tool that takes `socket_name`\n")
	b.WriteString("also takes `host`. `tmux-mcp tools NAME` prints the same for one tool.\n")
	for _, tier := range []policy.Tier{policy.ReadOnly, policy.Mutating, policy.Destructive} {
		var rows []string
		for _, t := range catalog() {
			if t.Tier == tier {
				rows = append(rows, fmt.Sprintf("- `%s` (%s): %s", t.Name, presetName(t), mdEscape(firstSentence(t.Description)))+renderArgs(t))
			}
		}
		fmt.Fprintf(&b, "\n### %s (%d tools)\n\n%s\n", tier, len(rows), strings.Join(rows, "\n"))
	}
	return b.String()
}

// mdEscape keeps a description's text from being read as HTML by a Markdown renderer.
func mdEscape(s string) string { return strings.ReplaceAll(s, "<", `\<`) }

// tiersAndToolsets explains what the tiers and toolsets offer (by hand: it names the groups).
const tiersAndToolsets = `Safety tiers: a tool above ` + "`" + `LIBTMUX_SAFETY` + "`" + ` is not registered at all, so it is neither listed nor
callable, nor reachable through a batch. ` + "`" + `readonly` + "`" + ` offers the RO tools; ` + "`" + `mutating` + "`" + ` (the default)
adds the M tools; ` + "`" + `destructive` + "`" + ` adds the D tools. ` + "`" + `tmux-mcp tools` + "`" + ` prints what your configuration
offers; the presets below are its annotations. Calling a tool that is not offered
(with ` + "`" + `call` + "`" + `, or in a batch) names the setting and the flag that would offer it.

Toolsets are the libtmux TypeScript and Go servers' four groups, mapped onto this catalogue, so their
` + "`" + `LIBTMUX_TOOLSETS` + "`" + ` and ` + "`" + `LIBTMUX_EXCLUDE_TOOLS` + "`" + ` mean the same here (` + "`" + `LIBTMUX_TOOLSETS=inspect` + "`" + ` offers
only reads). They narrow the tier and never offer a tool above it: ` + "`" + `teardown` + "`" + ` at the default tier
offers ` + "`" + `clear_pane` + "`" + ` and the kills of what this server created, with a warning naming
` + "`" + `--safety destructive` + "`" + ` for ` + "`" + `kill_server` + "`" + `.

- ` + "`" + `inspect` + "`" + `: every read-only tool (the RO tools and ` + "`" + `call_readonly_tools_batch` + "`" + `).
- ` + "`" + `manage` + "`" + `: changes that type nothing and start nothing: renames, selects, resizes, layouts, moves,
  swaps, pane titles, channels, ` + "`" + `set_option` + "`" + `, ` + "`" + `set_environment` + "`" + `, copy mode, ` + "`" + `load_buffer` + "`" + `,
  ` + "`" + `delete_buffer` + "`" + `.
- ` + "`" + `execute` + "`" + `: creating sessions, windows and panes, ` + "`" + `respawn_pane` + "`" + `, ` + "`" + `run_shell_command` + "`" + `,
  ` + "`" + `run_command` + "`" + `, ` + "`" + `send_keys` + "`" + `, ` + "`" + `send_keys_batch` + "`" + `, ` + "`" + `paste_text` + "`" + `, ` + "`" + `paste_buffer` + "`" + `, ` + "`" + `pipe_pane` + "`" + `,
  ` + "`" + `type_secret` + "`" + `.
- ` + "`" + `teardown` + "`" + `: ` + "`" + `clear_pane` + "`" + ` and the kill tools.

` + "`" + `call_mutating_tools_batch` + "`" + ` comes with ` + "`" + `manage` + "`" + ` or ` + "`" + `execute` + "`" + `, ` + "`" + `call_destructive_tools_batch` + "`" + ` with
` + "`" + `teardown` + "`" + `; a batch calls only offered tools.
`

// renderArgs lists a tool's arguments from its advertised input schema, one indented line each
// ("" when it takes none).
func renderArgs(t *Tool) string {
	b, err := json.Marshal(t.inputSchema)
	if err != nil {
		return "\n  - (input schema unreadable: " + err.Error() + ")"
	}
	var schema struct {
		Properties map[string]struct {
			Type        any                  `json:"type"`
			AnyOf       []struct{ Type any } `json:"anyOf"`
			Enum        []any                `json:"enum"`
			Default     json.RawMessage      `json:"default"`
			Description string               `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	json.Unmarshal(b, &schema)
	names := make([]string, 0, len(schema.Properties))
	for n := range schema.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	var out strings.Builder
	for _, n := range names {
		p := schema.Properties[n]
		typ := ""
		if p.Type != nil || len(p.AnyOf) == 0 {
			typ = schemaType(p.Type)
		}
		for _, a := range p.AnyOf {
			typ = strings.Trim(typ+"|"+schemaType(a.Type), "|")
		}
		fmt.Fprintf(&out, "\n  - `%s` (%s", n, typ)
		if slices.Contains(schema.Required, n) {
			out.WriteString(", required")
		}
		if len(p.Default) > 0 {
			fmt.Fprintf(&out, ", default `%s`", p.Default)
		}
		if len(p.Enum) > 0 {
			e, _ := json.Marshal(p.Enum)
			fmt.Fprintf(&out, ", one of `%s`", e)
		}
		out.WriteString(")")
		if p.Description != "" {
			out.WriteString(": " + mdEscape(strings.Join(strings.Fields(p.Description), " ")))
		}
	}
	return out.String()
}

// schemaType spells a JSON schema type ("string", or ["null","string"]) as string|null.
func schemaType(t any) string {
	switch t := t.(type) {
	case string:
		return t
	case []any:
		var parts []string
		for _, x := range t {
			parts = append(parts, fmt.Sprint(x))
		}
		return strings.Join(parts, "|")
	}
	return "any"
}

func presetName(t *Tool) string {
	if strings.HasSuffix(t.Name, "_tools_batch") && t.Annotations == annBatch {
		return "BATCH"
	}
	presets := []struct {
		name string
		ann  Annotations
	}{{"RO", annRO}, {"MUT", annMUT}, {"CREATE", annCREATE}, {"SHELL", annSHELL}, {"DESTR", annDESTR}, {"SEED", annSEED}}
	for _, p := range presets {
		if t.Annotations == p.ann {
			return p.name
		}
	}
	return fmt.Sprintf("%+v", t.Annotations)
}

// firstSentence cuts a description at its first line break, or at its first full stop followed
// by a space (not one of "e.g." or "i.e.").
func firstSentence(s string) string {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '\n' {
			return strings.TrimSpace(s[:i])
		}
		if s[i] == '.' && (s[i+1] == ' ' || s[i+1] == '\n') && !strings.HasSuffix(s[:i+1], "e.g.") && !strings.HasSuffix(s[:i+1], "i.e.") {
			return s[:i+1]
		}
	}
	return s
}

// TestToolsDoc holds docs/tools.md to the catalogue: each tool, its tier and annotations, its
// first sentence and its arguments.
func TestToolsDoc(t *testing.T) {
	want := renderToolsDoc()
	if *update {
		if err := os.WriteFile(toolsDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(toolsDoc)
	if err != nil {
		t.Fatalf("%v (run go test ./server -run TestToolsDoc -update)", err)
	}
	if string(got) != want {
		t.Errorf("%s is out of date with the catalogue; run: go test ./server -run TestToolsDoc -update", toolsDoc)
	}
}

func TestFirstSentence(t *testing.T) {
	for in, want := range map[string]string{
		"One. Two.":                "One.",
		"Use ids (e.g. %1). More.": "Use ids (e.g. %1).",
		"No stop":                  "No stop",
		"Ends with a stop.":        "Ends with a stop.",
		"Cut at 1.5 cells. Rest":   "Cut at 1.5 cells.",
	} {
		if got := firstSentence(in); got != want {
			t.Errorf("firstSentence(%q) = %q, want %q", in, got, want)
		}
	}
}
