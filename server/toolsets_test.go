package server

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

// Every tool is in a toolset and every toolset holds tools; inspect is exactly the read-only
// tier, and teardown holds every destructive tool.
func TestToolsetsCoverTheCatalogue(t *testing.T) {
	held := map[string]int{}
	for _, tool := range catalog() {
		for _, set := range tool.Toolsets {
			held[set]++
		}
	}
	for _, set := range policy.Toolsets() {
		if held[set] == 0 {
			t.Errorf("toolset %s holds no tool", set)
		}
	}
	for _, tool := range catalog() {
		sets := ToolsetsOf(tool.Name)
		if len(sets) == 0 {
			t.Errorf("%s is in no toolset", tool.Name)
		}
		if (tool.Tier == policy.ReadOnly) != slices.Equal(sets, []string{"inspect"}) {
			t.Errorf("%s (%s) is in %v: inspect must be the read-only tools", tool.Name, tool.Tier, sets)
		}
		if tool.Tier == policy.Destructive && !slices.Equal(sets, []string{"teardown"}) {
			t.Errorf("%s is destructive but in %v", tool.Name, sets)
		}
	}
}

func newOffline(t *testing.T, o Options) (*Server, error) {
	t.Helper()
	o.SocketPath = filepath.Join(t.TempDir(), "none")
	s, err := New(o)
	if err == nil {
		t.Cleanup(s.Close)
	}
	return s, err
}

func offered(s *Server) []string {
	var out []string
	for _, t := range s.Tools() {
		out = append(out, t.Name)
	}
	return out
}

// LIBTMUX_TOOLSETS=inspect, the advice of pipe_pane's description, leaves the read-only tools;
// a call of another names the setting.
func TestToolsetsNarrowTheTier(t *testing.T) {
	s, err := newOffline(t, Options{Safety: policy.Destructive, Toolsets: []string{"inspect"}})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, tool := range catalog() {
		if tool.Tier == policy.ReadOnly {
			want = append(want, tool.Name)
		}
	}
	if got := offered(s); !slices.Equal(got, want) {
		t.Fatalf("inspect offers %v, want %v", got, want)
	}
	_, err = s.Call(context.Background(), "pipe_pane", json.RawMessage(`{}`))
	if err == nil || !strings.Contains(err.Error(), "execute") || !strings.Contains(err.Error(), "LIBTMUX_TOOLSETS (--toolsets)") {
		t.Fatalf("pipe_pane: %v", err)
	}

	// Toolsets narrow within the tier: teardown at the mutating tier offers clear_pane and the
	// kills of what this server created, and says what offers the rest.
	s, err = newOffline(t, Options{Safety: policy.Mutating, Toolsets: []string{"teardown"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := offered(s); !slices.Equal(got, []string{"clear_pane", "kill_pane", "kill_window", "kill_session"}) {
		t.Fatalf("teardown at mutating offers %v", got)
	}
	if n := s.Notes(); len(n) != 1 || !strings.Contains(n[0], "kill_server") || !strings.Contains(n[0], "--safety destructive") {
		t.Fatalf("notes %q", n)
	}

	// An empty selection offers no tool (as in the libtmux servers).
	if s, err = newOffline(t, Options{Safety: policy.Destructive, Toolsets: []string{}}); err != nil || len(s.Tools()) != 0 {
		t.Fatalf("empty toolsets: %v %v", err, offered(s))
	}
}

// Exclusions win last, inside batches too.
func TestExcludeTools(t *testing.T) {
	s, err := newOffline(t, Options{Safety: policy.ReadOnly, ExcludeTools: []string{"capture_pane"}})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(offered(s), "capture_pane") || !slices.Contains(offered(s), "snapshot_pane") {
		t.Fatalf("offered %v", offered(s))
	}
	res, err := s.Call(context.Background(), "call_readonly_tools_batch", json.RawMessage(`{"operations":[{"tool":"capture_pane","arguments":{"pane_id":"%0"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(b), "LIBTMUX_EXCLUDE_TOOLS (--exclude-tools)") {
		t.Fatalf("batch of an excluded tool: %s", b)
	}
}

func TestToolSettingsRefuseUnknownNames(t *testing.T) {
	for _, o := range []Options{{Toolsets: []string{"inspct"}}, {ExcludeTools: []string{"no_such_tool"}}} {
		if _, err := newOffline(t, o); err == nil || !strings.Contains(err.Error(), "not a") {
			t.Errorf("%+v: %v", o, err)
		}
	}
}

// A tool named by LIBTMUX_MCP_TOOLS but above the tier is noted, and calling it names the
// setting that offers it.
func TestNamedToolAboveTheTier(t *testing.T) {
	s, err := newOffline(t, Options{Safety: policy.Mutating, Tools: []string{"list_sessions", "kill_server"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := s.Notes(); len(n) != 1 || !strings.Contains(n[0], "LIBTMUX_MCP_TOOLS names kill_server") || !strings.Contains(n[0], "LIBTMUX_SAFETY=destructive or --safety destructive") {
		t.Fatalf("notes %q", n)
	}
	if _, err := s.Call(context.Background(), "kill_server", nil); err == nil || !strings.Contains(err.Error(), "--safety destructive") {
		t.Fatalf("kill_server: %v", err)
	}
}
