package schemalint

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"testing"
)

// TestMatchesInspector lints testdata/tools.json and compares the findings with the report
// the MCP Inspector's --strict check wrote for the same tools (testdata/inspector-strict.txt).
func TestMatchesInspector(t *testing.T) {
	b, err := os.ReadFile("testdata/tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []struct {
			Name                      string
			InputSchema, OutputSchema any
		}
	}
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tool := range list.Tools {
		for _, f := range Tool(tool.InputSchema, tool.OutputSchema) {
			got = append(got, fmt.Sprintf("%s %s %s", f.Severity, tool.Name, f.Path))
		}
	}
	want := inspectorReport(t, "testdata/inspector-strict.txt")
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("findings differ from the Inspector's:\n got %q\nwant %q", got, want)
	}
}

var (
	headRe = regexp.MustCompile(`^(Error|Warning): tool "([^"]+)"$`)
	pathRe = regexp.MustCompile(`^  Path: (.*)$`)
)

// inspectorReport reads the Inspector's report as "severity tool path" lines.
func inspectorReport(t *testing.T, file string) []string {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	head := ""
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if m := headRe.FindStringSubmatch(sc.Text()); m != nil {
			sev := map[string]string{"Error": "error", "Warning": "warning"}[m[1]]
			head = sev + " " + m[2]
		} else if m := pathRe.FindStringSubmatch(sc.Text()); m != nil && head != "" {
			out = append(out, head+" "+m[1])
			head = ""
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s holds no findings", file)
	}
	return out
}

func TestRules(t *testing.T) {
	for _, c := range []struct {
		schema string
		rules  []string
	}{
		{`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`, nil},
		{`{"type":"object","properties":{"a":{"type":["null","string"]}}}`, []string{"type-union"}},
		{`{"type":"object","properties":{"a":{"description":"x","default":null}}}`, []string{"untyped-schema"}},
		{`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`, nil},
		{`{"type":"object","properties":{"a":true}}`, []string{"boolean-schema"}},
		{`{"type":"object","properties":{"a":{"$ref":"x.json"}}}`, []string{"remote-ref"}},
		{`{"not":{}}`, nil},
	} {
		var s any
		if err := json.Unmarshal([]byte(c.schema), &s); err != nil {
			t.Fatal(err)
		}
		var rules []string
		for _, f := range Lint(s) {
			rules = append(rules, f.Rule)
		}
		if !slices.Equal(rules, c.rules) {
			t.Errorf("Lint(%s) = %v, want %v", c.schema, rules, c.rules)
		}
	}
}

func ExampleLint() {
	var schema any
	json.Unmarshal([]byte(`{"type":"object","properties":{"pane_id":{"type":["null","string"]},"size":{"description":"cells"}}}`), &schema)
	for _, f := range Lint(schema) {
		fmt.Println(f.Rule, f.Path)
	}
	// Output:
	// type-union properties.pane_id
	// untyped-schema properties.size
}
