package server

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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

// decode remembers the last valid arguments: a repeat must decode exactly like a first call,
// defaults included, and invalid arguments are never remembered.
func TestDecodeRemembers(t *testing.T) {
	var tool *Tool
	for _, tl := range catalog() {
		if tl.Name == "wait_for_text" {
			tool = tl
		}
	}
	fresh := func(raw string) waitForTextIn {
		t.Helper()
		var in waitForTextIn
		tool.lastArgs.Store(nil)
		if err := tool.decode(json.RawMessage(raw), &in); err != nil {
			t.Fatalf("decode(%s): %v", raw, err)
		}
		return in
	}
	a, b := `{"pane_id":"%1","patterns":["x"]}`, `{"pane_id":"%2","timeout":3}`
	wantA, wantB := fresh(a), fresh(b)
	if wantA.Timeout == 0 {
		t.Fatalf("the test needs a tool whose defaults apply: %+v", wantA)
	}
	bad := `{"pane_id":"%1","timeout":"soon"}`
	for i, raw := range []string{a, a, b, bad, a, bad, b, b} {
		var in waitForTextIn
		err := tool.decode(json.RawMessage(raw), &in)
		switch raw {
		case bad:
			if err == nil {
				t.Fatalf("step %d: invalid arguments were accepted", i)
			}
		case a:
			if err != nil || !reflect.DeepEqual(in, wantA) {
				t.Fatalf("step %d: %+v, %v; want %+v", i, in, err, wantA)
			}
		case b:
			if err != nil || !reflect.DeepEqual(in, wantB) {
				t.Fatalf("step %d: %+v, %v; want %+v", i, in, err, wantB)
			}
		}
	}
}

// Requests other than initialize wait for the tools to be registered: a tools/list that
// arrives while registration is held answers only once it is done, with every tool.
func TestToolsWaitForRegistration(t *testing.T) {
	release := make(chan struct{})
	beforeRegister = func() { <-release }
	t.Cleanup(func() { beforeRegister = nil })
	s, err := New(Options{SocketPath: filepath.Join(t.TempDir(), "none"), Safety: policy.Destructive})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	released := sync.OnceFunc(func() { close(release) })
	defer released() // before Close, which waits for the registration
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("initialize must be answered while the tools are being registered: %v", err)
	}
	defer cs.Close()
	listed := make(chan int, 1)
	go func() {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			listed <- -1
			return
		}
		listed <- len(res.Tools)
	}()
	select {
	case n := <-listed:
		t.Fatalf("tools/list answered (%d tools) before the tools were registered", n)
	case <-time.After(200 * time.Millisecond):
	}
	released()
	select {
	case n := <-listed:
		if n != len(s.Tools()) {
			t.Fatalf("tools/list listed %d tools, want %d", n, len(s.Tools()))
		}
	case <-ctx.Done():
		t.Fatal("tools/list never answered")
	}
}
