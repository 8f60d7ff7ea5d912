package e2e

import (
	"context"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/server"
	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

// listTools returns the offered tools by name.
func (c *Client) listTools() map[string]*mcp.Tool {
	c.t.Helper()
	got := map[string]*mcp.Tool{}
	for tool, err := range c.CS.Tools(context.Background(), nil) {
		if err != nil {
			c.t.Fatal(err)
		}
		got[tool.Name] = tool
	}
	return got
}

// callErr calls a tool that must not exist: the go-sdk answers with a JSON-RPC error.
func (c *Client) callErr(name string, args any) error {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := c.CS.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err == nil {
		c.t.Errorf("%s: want a protocol error for a tool that is not offered, got a result (error=%v): %s", name, res.IsError, text(res))
	}
	return err
}

func sortedKeys(m map[string]*mcp.Tool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestTierMatrix(t *testing.T) {
	tiers := []struct {
		env  string
		tier policy.Tier
	}{{"readonly", policy.ReadOnly}, {"mutating", policy.Mutating}, {"destructive", policy.Destructive}, {"bogus", policy.ReadOnly}}
	for _, tt := range tiers {
		t.Run(tt.env, func(t *testing.T) {
			c := start(t, "LIBTMUX_SAFETY="+tt.env)
			_, p := c.Tmx.NewSession("s")
			got := c.listTools()
			var want, hidden []string
			for _, ti := range server.Catalog() {
				if ti.Tier <= tt.tier {
					want = append(want, ti.Name)
				} else {
					hidden = append(hidden, ti.Name)
				}
			}
			sort.Strings(want)
			if names := sortedKeys(got); !slices.Equal(names, want) {
				t.Fatalf("tier %s offers %v, want %v", tt.env, names, want)
			}
			for _, name := range hidden {
				c.callErr(name, map[string]any{"pane_id": p})
			}
			if !c.paneExists(p) {
				t.Fatal("a hidden tool ran")
			}
		})
	}
}

func TestToolsAllowList(t *testing.T) {
	c := start(t, "LIBTMUX_SAFETY=mutating", "LIBTMUX_MCP_TOOLS=list_sessions, get_pane_info,kill_server,call_mutating_tools_batch")
	_, p := c.Tmx.NewSession("s")
	got := sortedKeys(c.listTools())
	// kill_server is named but above the tier: the list narrows the tier, never widens it.
	if want := []string{"call_mutating_tools_batch", "get_pane_info", "list_sessions"}; !slices.Equal(got, want) {
		t.Fatalf("offered %v, want %v", got, want)
	}
	c.callErr("kill_server", nil)
	c.callErr("select_pane", map[string]any{"pane_id": p})
	out := batch(c, "call_mutating_tools_batch", "continue",
		op("get_pane_info", map[string]any{"pane_id": p}),
		op("select_pane", map[string]any{"pane_id": p}),
	)
	if out.Succeeded != 1 || !strings.Contains(deref(out.Results[1].Error), "not offered") {
		t.Errorf("allow list through a batch = %+v", out)
	}
}

// TestAnnotations checks the tier and annotation preset of each tool this file's groups
// declare (docs/tools.md lists them).
func TestAnnotations(t *testing.T) {
	type ann struct{ ro, destr, idem, open bool }
	var (
		RO     = ann{true, false, true, false}
		MUT    = ann{false, false, true, false}
		CREATE = ann{false, false, false, false}
		SHELL  = ann{false, false, false, true}
		DESTR  = ann{false, true, false, false}
		BATCH  = ann{false, true, false, true}
	)
	want := map[string]ann{
		"select_pane": MUT, "swap_pane": CREATE, "resize_pane": MUT, "set_pane_title": MUT, "clear_pane": DESTR,
		"enter_copy_mode": CREATE, "exit_copy_mode": MUT, "respawn_pane": DESTR, "kill_pane": DESTR,
		"rename_session": MUT, "select_window": MUT, "kill_session": DESTR, "kill_server": DESTR,
		"rename_window": MUT, "select_layout": MUT, "resize_window": MUT, "move_window": MUT, "kill_window": DESTR,
		"show_option": RO, "set_option": MUT, "show_environment": RO, "set_environment": MUT,
		"load_buffer": SHELL, "paste_buffer": SHELL, "show_buffer": RO, "delete_buffer": MUT,
		"show_hooks": RO, "show_hook": RO,
		"call_readonly_tools_batch": RO, "call_mutating_tools_batch": BATCH, "call_destructive_tools_batch": BATCH,
	}
	c := start(t, "LIBTMUX_SAFETY=destructive")
	got := c.listTools()
	for name, w := range want {
		tool, ok := got[name]
		if !ok {
			t.Errorf("%s is not offered at the destructive tier", name)
			continue
		}
		a := tool.Annotations
		g := ann{a.ReadOnlyHint, a.DestructiveHint != nil && *a.DestructiveHint, a.IdempotentHint, a.OpenWorldHint != nil && *a.OpenWorldHint}
		if g != w {
			t.Errorf("%s annotations = %+v, want %+v", name, g, w)
		}
		if tool.Title == "" || tool.Description == "" || tool.OutputSchema == nil {
			t.Errorf("%s: missing title, description or output schema", name)
		}
		if in := tool.InputSchema.(map[string]any); in["additionalProperties"] != false {
			t.Errorf("%s: input schema is not strict", name)
		}
	}
}

// The server registers its tools beside the handshake (server.TestToolsWaitForRegistration
// holds the registration to show tools/list waits for it): through the built binary, a
// tools/list sent the moment initialize is answered lists every tool, the capability does not
// claim the list changes, and no tools/list_changed notification follows.
func TestToolsRegisteredAtStart(t *testing.T) {
	tmx := testtmux.New(t)
	for i := 0; i < 5; i++ {
		cmd := exec.Command(binary)
		cmd.Env = append(append([]string{}, tmx.Env...), "LIBTMUX_SOCKET_PATH="+tmx.Socket, "LIBTMUX_SAFETY=destructive")
		changed := make(chan struct{}, 1)
		client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "0"}, &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
				select {
				case changed <- struct{}{}:
				default:
				}
			},
		})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Tools) != len(server.Catalog()) {
			t.Fatalf("start %d: tools/list right after initialize lists %d tools, want %d", i, len(res.Tools), len(server.Catalog()))
		}
		if caps := cs.InitializeResult().Capabilities; caps.Tools == nil || caps.Tools.ListChanged {
			t.Fatalf("tools capability %+v: want tools without listChanged", caps.Tools)
		}
		select {
		case <-changed:
			t.Fatalf("start %d: a tools/list_changed notification arrived", i)
		case <-time.After(100 * time.Millisecond):
		}
		cs.Close()
		cancel()
	}
}
