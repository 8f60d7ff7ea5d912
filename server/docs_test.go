package server

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

var update = flag.Bool("update", false, "rewrite generated docs (docs/tools.md) from the catalogue")

const (
	toolsDoc = "../docs/tools.md"
	readme   = "../README.md"
	// The README carries the same list between these markers.
	listBegin = "<!-- tools:begin (generated: go test ./server -run TestToolsDoc -update) -->\n"
	listEnd   = "<!-- tools:end -->\n"
)

// renderToolsDoc lists every tool of the catalogue by tier, one line each.
func renderToolsDoc() string {
	var b strings.Builder
	b.WriteString("# Tools\n\n")
	b.WriteString("Generated from the catalogue (`server/*.go`) by `go test ./server -run TestToolsDoc -update`; do not edit by hand.\n")
	b.WriteString("`LIBTMUX_SAFETY` picks the tier: a tool above it is not offered at all; `LIBTMUX_MCP_TOOLS` narrows the list further.\n")
	b.WriteString("`tmux-mcp tools` prints what a client would be offered. Annotation presets (readOnly/destructive/idempotent/openWorld):\n")
	b.WriteString("RO = T/F/T/F, MUT = F/F/T/F, CREATE = F/F/F/F, SHELL = F/F/F/T, DESTR = F/T/F/F, SEED = F/T/F/T,\n")
	b.WriteString("BATCH = F/T/F/T (the worst case of the tools a batch may call).\n")
	b.WriteString(renderToolList())
	return b.String()
}

// renderToolList is the per-tier list of tools, one line each.
func renderToolList() string {
	var b strings.Builder
	for _, tier := range []policy.Tier{policy.ReadOnly, policy.Mutating, policy.Destructive} {
		var rows []string
		for _, t := range catalog() {
			if t.Tier == tier {
				rows = append(rows, fmt.Sprintf("- `%s` (%s): %s", t.Name, presetName(t), strings.ReplaceAll(firstSentence(t.Description), "<", `\<`)))
			}
		}
		fmt.Fprintf(&b, "\n### %s (%d tools)\n\n%s\n", tier, len(rows), strings.Join(rows, "\n"))
	}
	return b.String()
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

// readmeWithList returns the README with its generated tool list replaced by list.
func readmeWithList(t *testing.T, list string) (got, want string) {
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	got = string(b)
	i, j := strings.Index(got, listBegin), strings.Index(got, listEnd)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the generated tool list markers %q ... %q", readme, listBegin, listEnd)
	}
	return got, got[:i+len(listBegin)] + strings.TrimPrefix(list, "\n") + got[j:]
}

func TestToolsDoc(t *testing.T) {
	want := renderToolsDoc()
	gotReadme, wantReadme := readmeWithList(t, renderToolList())
	if *update {
		if err := os.WriteFile(toolsDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(readme, []byte(wantReadme), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if gotReadme != wantReadme {
		t.Errorf("%s's tool list is out of date with the catalogue; run: go test ./server -run TestToolsDoc -update", readme)
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
