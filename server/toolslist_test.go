package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/schemalint"
	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

// maxToolsList bounds the tools/list response at the default tier, in bytes: a client puts all
// of it in an agent's context, so it stays at half the 114 KB (about 28,000 tokens) it once was.
const maxToolsList = 57_000

var tiers = []policy.Tier{policy.ReadOnly, policy.Mutating, policy.Destructive}

// recorder keeps what the server writes to its client.
type recorder struct {
	mu  sync.Mutex
	buf bytes.Buffer
	w   io.WriteCloser
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	r.buf.Write(p)
	r.mu.Unlock()
	return r.w.Write(p)
}

func (r *recorder) Close() error { return r.w.Close() }

// listTools serves a server with opts over a pipe to a go-sdk client and returns the tools it
// lists with the size of the tools/list response, as the server wrote it.
func listTools(t *testing.T, opts Options) ([]*mcp.Tool, int) {
	t.Helper()
	opts.SocketPath = filepath.Join(t.TempDir(), "none")
	opts.Env = []string{}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	toServerR, toServerW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	rec := &recorder{w: toClientW}
	ss, err := s.MCP().Connect(ctx, &mcp.IOTransport{Reader: toServerR, Writer: rec}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, &mcp.IOTransport{Reader: toClientR, Writer: toServerW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.NextCursor != "" {
		t.Fatalf("tools/list is paged; the size below would be one page's")
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, line := range bytes.Split(rec.buf.Bytes(), []byte("\n")) {
		if bytes.Contains(line, []byte(`"tools":[`)) {
			return res.Tools, len(line)
		}
	}
	t.Fatal("no tools/list response was written")
	return nil, 0
}

// The default tier's tools/list stays within maxToolsList; each tier's size is logged (the
// benchmark reports them too).
func TestToolsListSize(t *testing.T) {
	for _, tier := range tiers {
		tools, n := listTools(t, Options{Safety: tier, SuppressHistory: true})
		t.Logf("%s: %d tools, tools/list %d bytes", tier, len(tools), n)
		if tier == policy.Mutating && n > maxToolsList {
			t.Errorf("tools/list at the default tier (%s) is %d bytes, more than %d: shorten descriptions (docs/adding-tools.md)", tier, n, maxToolsList)
		}
	}
}

// Every schema tools/list advertises, at every tier and in every variant, passes the MCP
// Inspector's --strict portability rules (internal/schemalint): no type arrays, every
// property typed, no bare booleans.
func TestToolsListPortable(t *testing.T) {
	for _, suppress := range []bool{true, false} {
		tools, _ := listTools(t, Options{Safety: policy.Destructive, SuppressHistory: suppress})
		if len(tools) != len(catalog()) {
			t.Fatalf("%d tools listed, the catalogue has %d", len(tools), len(catalog()))
		}
		for _, tool := range tools {
			for _, f := range schemalint.Tool(tool.InputSchema, tool.OutputSchema) {
				t.Errorf("%s: %s", tool.Name, f)
			}
		}
	}
}

// The advertised input schema has the same arguments, required ones and defaults as the strict
// one arguments are validated with: only the spelling of types differs.
func TestAdvertisedMatchesStrict(t *testing.T) {
	for _, tool := range allVariants() {
		if tool.seedIn {
			continue
		}
		in, strict, _ := tool.infer()
		if got, want := argNames(in), argNames(strict); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: advertised arguments %v, strict %v", tool.Name, got, want)
		}
		if got, want := strings.Join(in.Required, ","), strings.Join(strict.Required, ","); got != want {
			t.Errorf("%s: advertised required %s, strict %s", tool.Name, got, want)
		}
		for name, p := range in.Properties {
			if d := string(strict.Properties[name].Default); string(p.Default) != d && d != "null" {
				t.Errorf("%s: %s advertises default %s, validation applies %s", tool.Name, name, p.Default, d)
			}
		}
	}
}

// nullable lists the arguments libtmux-mcp (the Python server) takes null for, beyond
// the shared ones (socket_name and the pane, window and session targets, in every tool).
var nullable = map[string][]string{
	"capture_pane":     {"start", "end", "max_lines"},
	"capture_since":    {"cursor", "max_lines", "max_bytes"},
	"search_panes":     {"limit", "content_start", "content_end"},
	"wait_for_text":    {"patterns", "stop", "cursor", "interval"},
	"list_sessions":    {"filters"},
	"list_windows":     {"filters"},
	"list_panes":       {"filters"},
	"create_session":   {"environment", "start_directory", "window_name", "x", "y"},
	"create_window":    {"environment", "direction", "start_directory", "window_name"},
	"split_window":     {"environment", "direction", "size", "shell", "start_directory"},
	"run_command":      {"max_lines"},
	"load_buffer":      {"logical_name"},
	"show_buffer":      {"max_lines"},
	"show_option":      {"scope", "target"},
	"set_option":       {"scope", "target"},
	"show_environment": {"session_name", "session_id"},
}

var sharedNullable = []string{"socket_name", "pane_id", "session_name", "session_id", "window_id", "window_index"}

// The advertised schemas no longer say null, but validation still takes it wherever
// libtmux-mcp does.
func TestNullStillAccepted(t *testing.T) {
	for _, tool := range allVariants() {
		if tool.seedIn {
			continue
		}
		_, strict, _ := tool.infer()
		names := append(append([]string{}, nullable[tool.Name]...), sharedNullable...)
		for _, name := range names {
			p, ok := strict.Properties[name]
			if !ok {
				if slices.Contains(nullable[tool.Name], name) {
					t.Errorf("%s has no argument %s", tool.Name, name)
				}
				continue
			}
			if slices.Contains(strict.Required, name) {
				continue // a required id (kill_pane's pane_id): never null
			}
			r, err := (&jsonschema.Schema{Properties: map[string]*jsonschema.Schema{name: p}}).Resolve(nil)
			if err != nil {
				t.Fatalf("%s.%s: %v", tool.Name, name, err)
			}
			if err := r.Validate(map[string]any{name: nil}); err != nil {
				t.Errorf("%s: %s=null is refused: %v", tool.Name, name, err)
			}
		}
	}
}

// An output schema the same as an earlier offered tool's is advertised as a reference to it,
// and only when that tool is offered.
func TestSameOutputs(t *testing.T) {
	byName := func(tools []*mcp.Tool) map[string]*mcp.Tool {
		m := map[string]*mcp.Tool{}
		for _, tl := range tools {
			m[tl.Name] = tl
		}
		return m
	}
	tools, _ := listTools(t, Options{Safety: policy.Mutating, SuppressHistory: true})
	all := byName(tools)
	desc := func(tl *mcp.Tool) string {
		b, _ := json.Marshal(tl.OutputSchema)
		var s struct{ Description string }
		json.Unmarshal(b, &s)
		return s.Description
	}
	if d := desc(all["select_pane"]); d != "As get_pane_info's result." {
		t.Errorf("select_pane's output schema: %q", d)
	}
	if d := desc(all["get_pane_info"]); d != "" {
		t.Errorf("get_pane_info's output schema refers elsewhere: %q", d)
	}
	// A result with all of an earlier one's fields and a few more names them.
	if d := desc(all["wait_for_run"]); d != "As run_command's result, and command, missed_bytes, outcome, still_running." {
		t.Errorf("wait_for_run's output schema: %q", d)
	}
	narrowed, _ := listTools(t, Options{Safety: policy.Mutating, SuppressHistory: true, Tools: []string{"select_pane", "resize_pane"}})
	some := byName(narrowed)
	if d := desc(some["select_pane"]); d != "" {
		t.Errorf("select_pane refers to %q, which is not offered", d)
	}
	if d := desc(some["resize_pane"]); d != "As select_pane's result." {
		t.Errorf("resize_pane's output schema: %q", d)
	}
}
