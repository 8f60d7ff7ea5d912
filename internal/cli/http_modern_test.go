package cli

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/server"
)

const discoverBody = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{` +
	`"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"},` +
	`"io.modelcontextprotocol/clientCapabilities":{}}}}`

var modern = map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"}

// sseData returns the JSON of the first SSE data line of body, or body itself.
func sseData(body string) string {
	for _, l := range strings.Split(body, "\n") {
		if d, ok := strings.CutPrefix(l, "data: "); ok {
			return d
		}
	}
	return body
}

// server/discover over HTTP lists 2026-07-28 with the older revisions, and a request of the
// per-request revision is served without a session, while the older handshake still opens one.
func TestHTTPDiscoverModern(t *testing.T) {
	addr := startHTTP(t, defaultLimits)
	code, sid, body := do(t, addr, req{body: discoverBody, header: modern})
	if code != http.StatusOK || sid != "" {
		t.Fatalf("discover: %d session %q %s", code, sid, body)
	}
	var res struct {
		Result struct {
			SupportedVersions []string `json:"supportedVersions"`
			CacheScope        string   `json:"cacheScope"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(sseData(body)), &res); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	if v := res.Result.SupportedVersions; len(v) == 0 || v[0] != "2026-07-28" || !strings.Contains(strings.Join(v, ","), "2025-11-25") {
		t.Errorf("supportedVersions %v, want 2026-07-28 first and 2025-11-25", v)
	}
	if res.Result.CacheScope == "" {
		t.Errorf("discover's cacheScope is empty: %s", body)
	}
	if sid := initSession(t, addr); sid == "" {
		t.Fatal("the older handshake opened no session")
	}
}

// The token and the Origin check hold for the per-request revision as for the older ones, and
// the body bound too.
func TestHTTPModernChecks(t *testing.T) {
	addr := startHTTP(t, defaultLimits)
	for _, c := range []struct {
		name   string
		header map[string]string
		body   string
		want   int
	}{
		{"no token", map[string]string{"Authorization": ""}, discoverBody, http.StatusUnauthorized},
		{"wrong token", map[string]string{"Authorization": "Bearer x"}, discoverBody, http.StatusUnauthorized},
		{"foreign origin", map[string]string{"Origin": "http://evil.example"}, discoverBody, http.StatusForbidden},
		{"cross-site", map[string]string{"Sec-Fetch-Site": "cross-site"}, discoverBody, http.StatusForbidden},
		{"rebinding host", map[string]string{"Host": "evil.example"}, discoverBody, http.StatusForbidden},
		{"too big", nil, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"` + strings.Repeat("a", maxBody) + `"}}`, http.StatusRequestEntityTooLarge},
		{"GET", nil, "", http.StatusMethodNotAllowed},
	} {
		h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"}
		for k, v := range c.header {
			h[k] = v
		}
		r := req{body: c.body, header: h}
		if c.name == "GET" {
			r.method = "GET"
		}
		code, _, body := doHost(t, addr, r)
		if code != c.want {
			t.Errorf("%s: status %d, want %d (%s)", c.name, code, c.want, body)
		}
	}
}

// doHost is do that honours a Host header.
func doHost(t *testing.T, addr string, r req) (int, string, string) {
	if h := r.header["Host"]; h != "" {
		t.Helper()
		hr, _ := http.NewRequest("POST", "http://"+addr+"/", strings.NewReader(r.body))
		hr.Host = h
		hr.Header.Set("Content-Type", "application/json")
		hr.Header.Set("Accept", "application/json, text/event-stream")
		hr.Header.Set("Authorization", "Bearer "+testToken)
		hr.Header.Set("MCP-Protocol-Version", "2026-07-28")
		resp, err := http.DefaultClient.Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, "", ""
	}
	return do(t, addr, r)
}

// The go-sdk's client at each generation: pinned to 2025-11-25 it opens a session (and ends it);
// at 2026-07-28 it discovers and calls without one. Both list tools, call one, and list
// resources with a cache scope.
func TestHTTPGoSDKClientGenerations(t *testing.T) {
	lim := defaultLimits
	lim.maxSessions = 1
	addr := startHTTP(t, lim)
	for _, v := range []string{"2025-11-25", "2026-07-28", "2025-06-18", "2026-07-28"} {
		t.Run(v, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx,
				&mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/", HTTPClient: &http.Client{Transport: bearer{http.DefaultTransport}}},
				&mcp.ClientSessionOptions{ProtocolVersion: v})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != v {
				t.Errorf("negotiated %s, want %s", got, v)
			}
			tl, err := cs.ListTools(ctx, nil)
			if err != nil || len(tl.Tools) == 0 {
				t.Fatalf("tools/list: %v", err)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_sessions", Arguments: map[string]any{}})
			if err != nil || len(res.Content) == 0 {
				t.Fatalf("tools/call: %v %+v", err, res)
			}
			rl, err := cs.ListResources(ctx, nil)
			if err != nil {
				t.Fatalf("resources/list: %v", err)
			}
			if rl.CacheScope != "private" {
				t.Errorf("resources/list cacheScope %q, want private", rl.CacheScope)
			}
		})
	}
}

// Progress of a long call reaches the client on both generations over HTTP: on the older ones
// within its session, on 2026-07-28 on the call's own response stream.
func TestHTTPProgressGenerations(t *testing.T) {
	tmx := testtmux.New(t)
	_, pane := tmx.NewSession("progress")
	tmx.WaitPrompt(pane)
	srv, err := server.New(server.Options{SocketPath: tmx.Socket, Env: tmx.Env})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveOn(ctx, ln, srv, testToken, defaultLimits) }()
	defer func() { cancel(); <-done; srv.Close() }()
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) {
			var got atomic.Int32
			cctx, ccancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer ccancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, &mcp.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
					if r.Params.ProgressToken == "tok" && r.Params.Total > 0 {
						got.Add(1)
					}
				}}).Connect(cctx,
				&mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + "/", HTTPClient: &http.Client{Transport: bearer{http.DefaultTransport}}},
				&mcp.ClientSessionOptions{ProtocolVersion: v})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "wait_for_text", Arguments: map[string]any{"pane_id": pane, "patterns": []string{"never-" + strings.ReplaceAll(v, "-", "x")}, "timeout": 2.5},
				Meta: mcp.Meta{"progressToken": "tok"}})
			if err != nil {
				t.Fatalf("%v", err)
			}
			if got.Load() == 0 {
				t.Errorf("no progress notification in a 2.5 s wait (result %+v %v)", res, res.Content[0])
			}
		})
	}
}
