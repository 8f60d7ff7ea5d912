package e2e

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type promptCall struct {
	tool string
	args []string
}

var callStartRe = regexp.MustCompile(`\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\(`)

// parseCalls finds every tool(arg=value, ...) in text. Values may hold JSON strings, lists and
// objects; a bare word followed by "(" that is not snake_case is not a call.
func parseCalls(t *testing.T, text string) []promptCall {
	var calls []promptCall
	for _, m := range callStartRe.FindAllStringSubmatchIndex(text, -1) {
		call := promptCall{tool: text[m[2]:m[3]]}
		i, depth, inStr, argStart := m[1], 0, false, m[1]
		flush := func(end int) {
			part := strings.TrimSpace(text[argStart:end])
			if part == "" {
				return
			}
			name, _, ok := strings.Cut(part, "=")
			if !ok || strings.ContainsAny(name, " \n\"") {
				t.Errorf("%s: argument %q is not name=value", call.tool, part)
				return
			}
			call.args = append(call.args, name)
		}
	scan:
		for ; i < len(text); i++ {
			ch := text[i]
			switch {
			case inStr && ch == '\\':
				i++
			case ch == '"':
				inStr = !inStr
			case inStr:
			case ch == '[' || ch == '{' || ch == '(':
				depth++
			case (ch == ']' || ch == '}') && depth > 0:
				depth--
			case ch == ')' && depth > 0:
				depth--
			case ch == ')':
				flush(i)
				break scan
			case ch == ',' && depth == 0:
				flush(i)
				argStart = i + 1
			}
		}
		if i == len(text) {
			t.Errorf("%s( is never closed", call.tool)
		}
		calls = append(calls, call)
	}
	return calls
}

func TestPromptsNameRealTools(t *testing.T) {
	c := start(t, "LIBTMUX_SAFETY=destructive")
	offered := map[string][]string{}
	for name, tool := range c.listTools() {
		props, _ := tool.InputSchema.(map[string]any)["properties"].(map[string]any)
		for p := range props {
			offered[name] = append(offered[name], p)
		}
		if offered[name] == nil {
			offered[name] = []string{}
		}
	}
	ctx := context.Background()
	var names []string
	for p, err := range c.CS.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, p.Name)
	}
	slices.Sort(names)
	if want := []string{"build_dev_workspace", "diagnose_failing_pane", "interrupt_gracefully", "run_and_wait"}; !slices.Equal(names, want) {
		t.Fatalf("prompts = %v, want %v", names, want)
	}
	sample := map[string]map[string]string{
		"run_and_wait":          {"command": `make test (fast) "quoted", done`, "pane_id": "%1", "timeout": "90"},
		"diagnose_failing_pane": {"pane_id": "%1"},
		"build_dev_workspace":   {"session_name": "dev", "log_command": "tail -F app.log"},
		"interrupt_gracefully":  {"pane_id": "%1"},
	}
	for name, args := range sample {
		res, err := c.CS.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
			t.Errorf("%s: want one user message, got %d", name, len(res.Messages))
			continue
		}
		body := res.Messages[0].Content.(*mcp.TextContent).Text
		calls := parseCalls(t, body)
		if len(calls) < 2 {
			t.Errorf("%s names %d tool calls:\n%s", name, len(calls), body)
		}
		for _, call := range calls {
			known, ok := offered[call.tool]
			if !ok {
				t.Errorf("prompt %s names %s, which is not a tool", name, call.tool)
				continue
			}
			for _, a := range call.args {
				if !slices.Contains(known, a) {
					t.Errorf("prompt %s calls %s with %s, which it does not take (%v)", name, call.tool, a, known)
				}
			}
		}
		for _, v := range args {
			if !strings.Contains(body, v) && !strings.Contains(body, strings.ReplaceAll(v, `"`, `\"`)) {
				t.Errorf("%s does not mention its argument %q", name, v)
			}
		}
	}
	for name, args := range map[string]map[string]string{
		"run_and_wait":          {"command": "true", "pane_id": "1"},
		"interrupt_gracefully":  {"pane_id": "%1;kill-server"},
		"build_dev_workspace":   {"session_name": "a:b", "log_command": "x"},
		"diagnose_failing_pane": {},
	} {
		if _, err := c.CS.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args}); err == nil {
			t.Errorf("%s(%v): want an error", name, args)
		}
	}
	if _, err := c.CS.GetPrompt(ctx, &mcp.GetPromptParams{Name: "run_and_wait", Arguments: map[string]string{"command": "true", "pane_id": "%1", "timeout": "-5"}}); err == nil {
		t.Error("run_and_wait with a negative timeout: want an error")
	}
}

func TestParseCalls(t *testing.T) {
	text := `1. run_command(pane_id="%1", command="make (x), \"y\"", timeout=60).
Then wait_for_text(pane_id=LOG, patterns=["a,b", "c)"], timeout=5) and get_pane_info(pane_id=%1)
not a call: (see above), Ctrl(C), split_window( direction="below" )`
	got := parseCalls(t, text)
	want := []promptCall{
		{"run_command", []string{"pane_id", "command", "timeout"}},
		{"wait_for_text", []string{"pane_id", "patterns", "timeout"}},
		{"get_pane_info", []string{"pane_id"}},
		{"split_window", []string{"direction"}},
	}
	if len(got) != len(want) {
		t.Fatalf("parseCalls = %+v", got)
	}
	for i := range want {
		if got[i].tool != want[i].tool || !slices.Equal(got[i].args, want[i].args) {
			t.Errorf("call %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
