package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

func TestCatalogDeclarations(t *testing.T) {
	seen := map[string]bool{}
	for _, tool := range catalog() {
		if seen[tool.Name] {
			t.Errorf("%s declared twice", tool.Name)
		}
		seen[tool.Name] = true
		if tool.Title == "" || tool.Description == "" {
			t.Errorf("%s: missing title or description", tool.Name)
		}
		if tool.seedIn {
			continue // a seed schema, checked against its seed
		}
		s, _, _ := tool.infer()
		if s.AdditionalProperties == nil {
			t.Errorf("%s: input schema allows unknown arguments", tool.Name)
		}
		if tool.Tier != policy.ReadOnly && tool.Annotations.ReadOnly {
			t.Errorf("%s: read-only annotation above the readonly tier", tool.Name)
		}
		// What a tool is comes from its declaration; the names agree with it.
		if waits := strings.HasPrefix(tool.Name, "run_") || strings.HasPrefix(tool.Name, "wait_for_"); waits != tool.Blocking {
			t.Errorf("%s: Blocking is %v", tool.Name, tool.Blocking)
		}
		if batch := strings.HasSuffix(tool.Name, "_tools_batch"); batch != tool.Batch {
			t.Errorf("%s: Batch is %v", tool.Name, tool.Batch)
		}
	}
}

func TestInstructions(t *testing.T) {
	for _, tier := range []policy.Tier{policy.ReadOnly, policy.Mutating, policy.Destructive} {
		s, err := New(Options{Safety: tier, SocketName: "x", Env: []string{"TMUX=/tmp/tmux-0/default,1,$0", "TMUX_PANE=%12345"}})
		if err != nil {
			t.Fatal(err)
		}
		in := s.instructions()
		if len(in) > maxInstructions {
			t.Errorf("%s: instructions are %d bytes", tier, len(in))
		}
		for _, want := range []string{"Safety tier: " + tier.String(), "%12345", "do not poll"} {
			if !strings.Contains(in, want) {
				t.Errorf("%s: instructions lack %q:\n%s", tier, want, in)
			}
		}
		s.Close()
	}
}

func TestDecodeErrors(t *testing.T) {
	var tool *Tool
	for _, tl := range catalog() {
		if tl.Name == "list_sessions" {
			tool = tl
		}
	}
	var in listIn
	for raw, want := range map[string]string{
		`{"bogus":1,"also":2}`: `"also", "bogus"`,
		`[1,2]`:                "the arguments are an array, not an object",
		`"str"`:                "the arguments are a string, not an object",
		`42`:                   "the arguments are a number, not an object",
		`{"socket_name":7}`:    "socket_name got 7; it takes a string or null",
	} {
		err := tool.decode(json.RawMessage(raw), &in)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "\n\n") {
			t.Errorf("decode(%s) = %v, want a hinted error mentioning %s", raw, err, want)
		}
	}
	if err := tool.decode(nil, &in); err != nil {
		t.Errorf("decode(nil) = %v", err)
	}
}

// Every input schema resolves (they are resolved lazily, on a tool's first call).
func TestInputSchemasResolve(t *testing.T) {
	for _, tool := range catalog() {
		if _, err := tool.validator(); err != nil {
			t.Errorf("%s: %v", tool.Name, err)
		}
	}
}
