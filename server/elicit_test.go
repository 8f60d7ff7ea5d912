package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

type askIn struct {
	Note string `json:"note,omitempty"`
}

type askOut struct {
	Name    string `json:"name"`
	Visited string `json:"visited"`
}

// withAskTool adds a tool that asks two questions (a form, then a page to visit) and counts
// how often its handler ran.
func withAskTool(t *testing.T) (*Server, *atomic.Int32) {
	t.Helper()
	s, err := New(Options{SocketPath: filepath.Join(t.TempDir(), "none"), Safety: policy.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	var runs atomic.Int32
	tool := define(spec{Name: "ask_test", Title: "Ask", Description: "Asks.", Tier: policy.ReadOnly, Ann: annRO},
		func(ctx context.Context, c *Call, in *askIn) (askOut, error) {
			runs.Add(1)
			name, err := c.Elicit(ctx, "name", &mcp.ElicitParams{Message: "Your name?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
			if err != nil {
				return askOut{}, err
			}
			page, err := c.Elicit(ctx, "visit", &mcp.ElicitParams{Mode: "url", Message: "Sign in", URL: "https://example.com/x", ElicitationID: "e1"})
			if err != nil {
				return askOut{}, err
			}
			n, _ := name.Content["name"].(string)
			return askOut{Name: n, Visited: page.Action}, nil
		})
	s.tools[tool.Name] = tool
	s.mcp.AddTool(&mcp.Tool{Name: tool.Name, Description: tool.Description, InputSchema: tool.inputSchema, OutputSchema: tool.outputSchema}, s.handler(tool))
	return s, &runs
}

// answering is a client that accepts both questions, and declares form and URL elicitation
// unless formOnly.
func answering(formOnly bool) *mcp.Client {
	caps := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}}
	if formOnly {
		caps.Elicitation.URL = nil
	}
	return mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, &mcp.ClientOptions{
		Capabilities: caps,
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if r.Params.Mode == "url" {
				return &mcp.ElicitResult{Action: "accept"}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "ada"}}, nil
		},
	})
}

// transports connects the server to a client over a stream (stdio's kind) or HTTP (the
// stateful handler for the older revisions, the stateless one for 2026-07-28, as tmux-mcp's
// HTTP front routes them).
func transport(t *testing.T, s *Server, kind, version string) mcp.Transport {
	switch kind {
	case "stream":
		ct, st := mcp.NewInMemoryTransports()
		ss, err := s.MCP().Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		return ct
	default:
		get := func(*http.Request) *mcp.Server { return s.MCP() }
		h := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: version >= "2026-07-28"})
		hs := httptest.NewServer(h)
		t.Cleanup(hs.Close)
		return &mcp.StreamableClientTransport{Endpoint: hs.URL}
	}
}

// A tool asks the user on both generations and both kinds of transport: on 2026-07-28 through
// input_required results (its handler runs once per question and once more), before that
// through elicitation/create within one run.
func TestElicit(t *testing.T) {
	for _, kind := range []string{"stream", "http"} {
		for _, v := range []string{"2025-11-25", "2026-07-28"} {
			t.Run(kind+"/"+v, func(t *testing.T) {
				s, runs := withAskTool(t)
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				cs, err := answering(false).Connect(ctx, transport(t, s, kind, v), &mcp.ClientSessionOptions{ProtocolVersion: v})
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask_test", Arguments: map[string]any{}})
				if err != nil || res.IsError {
					t.Fatalf("%v %+v", err, res)
				}
				var out askOut
				if err := Structured(res, &out); err != nil || out != (askOut{Name: "ada", Visited: "accept"}) {
					t.Errorf("result %+v (%v)", out, err)
				}
				want := int32(1)
				if v >= "2026-07-28" {
					want = 3
				}
				if n := runs.Load(); n != want {
					t.Errorf("the handler ran %d times, want %d", n, want)
				}
			})
		}
	}
}

// What cannot ask fails in words: a client without URL-mode elicitation, and on 2026-07-28 a
// forged request state (the question is asked again, not answered by the forger).
func TestElicitRefusals(t *testing.T) {
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		s, _ := withAskTool(t)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cs, err := answering(true).Connect(ctx, transport(t, s, "stream", v), &mcp.ClientSessionOptions{ProtocolVersion: v})
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask_test", Arguments: map[string]any{}})
		if err != nil || !res.IsError || !strings.Contains(resultText(res), "URL-mode elicitation") {
			t.Errorf("%s: %v %s", v, err, resultText(res))
		}
		cs.Close()
	}
	s, _ := withAskTool(t)
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}}).
		Connect(ctx, transport(t, s, "stream", "2026-07-28"), &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	forged := &mcp.CallToolParams{Name: "ask_test", Arguments: map[string]any{}, RequestState: "e30.AAAA",
		InputResponses: mcp.InputResponseMap{"name": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "mallory"}}}}
	res, err := cs.CallTool(ctx, forged)
	if err != nil || !res.NeedsInput() || res.InputRequests["name"] == nil {
		t.Errorf("a forged state: %v %+v", err, res)
	}
	// The real state, with the arguments changed, is no good either.
	first, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask_test", Arguments: map[string]any{}})
	other := &mcp.CallToolParams{Name: "ask_test", Arguments: map[string]any{"note": "x"}, RequestState: first.RequestState,
		InputResponses: mcp.InputResponseMap{"name": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "ada"}}}}
	if res, err := cs.CallTool(ctx, other); err != nil || res.InputRequests["name"] == nil {
		t.Errorf("a state for other arguments: %v %+v", err, res)
	}
}
