package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/server"
)

const testToken = "0123456789abcdef0123456789abcdef"

// startHTTP serves a server (on no tmux) over HTTP on a real listener with the given limits.
func startHTTP(t *testing.T, lim httpLimits) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return startHTTPOn(t, ln, lim)
}

// startHTTPOn is startHTTP on the listener ln.
func startHTTPOn(t *testing.T, ln net.Listener, lim httpLimits) string {
	t.Helper()
	srv, err := server.New(server.Options{SocketPath: filepath.Join(t.TempDir(), "none")})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveOn(ctx, ln, srv, testToken, lim) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serveOn: %v", err)
		}
		srv.Close()
	})
	return ln.Addr().String()
}

type req struct {
	method, session, body string
	header                map[string]string
}

// do sends one request with the token (unless the header overrides it) and returns the
// status, the session id it names and the body.
func do(t *testing.T, addr string, r req) (int, string, string) {
	t.Helper()
	if r.method == "" {
		r.method = "POST"
	}
	hr, _ := http.NewRequest(r.method, "http://"+addr+"/", strings.NewReader(r.body))
	if r.body == "" {
		hr.Body = http.NoBody
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json, text/event-stream")
	hr.Header.Set("Authorization", "Bearer "+testToken)
	if r.session != "" {
		hr.Header.Set("Mcp-Session-Id", r.session)
		hr.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	for k, v := range r.header {
		hr.Header.Set(k, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(hr.WithContext(ctx))
	if err != nil {
		t.Fatalf("%s: %v", r.method, err)
	}
	defer resp.Body.Close()
	var b []byte
	if r.method != "GET" || resp.StatusCode != http.StatusOK { // a GET's stream never ends
		b, _ = io.ReadAll(resp.Body)
	}
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b)
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

// initSession opens an MCP session and returns its id.
func initSession(t *testing.T, addr string) string {
	t.Helper()
	code, sid, body := do(t, addr, req{body: initBody})
	if code != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %q %s", code, sid, body)
	}
	if code, _, body := do(t, addr, req{session: sid, body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`}); code != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", code, body)
	}
	return sid
}

func ping(t *testing.T, addr, sid string) int {
	t.Helper()
	code, _, _ := do(t, addr, req{session: sid, body: `{"jsonrpc":"2.0","id":2,"method":"ping"}`})
	return code
}

// Origin is checked on every method, scheme included; a foreign Origin with the right token is
// refused; requests without Origin (non-browser clients) pass.
func TestHTTPOrigin(t *testing.T) {
	addr := startHTTP(t, defaultLimits)
	sid := initSession(t, addr)
	for _, c := range []struct {
		method, origin, site string
		want                 int
	}{
		{"POST", "", "", http.StatusOK},
		{"POST", "http://" + addr, "", http.StatusOK},
		{"POST", "https://" + addr, "", http.StatusForbidden},
		{"POST", "http://evil.example", "", http.StatusForbidden},
		{"POST", "null", "", http.StatusForbidden},
		{"POST", "", "cross-site", http.StatusForbidden},
		{"POST", "", "same-site", http.StatusForbidden},
		{"GET", "http://evil.example", "", http.StatusForbidden},
		{"GET", "https://" + addr, "", http.StatusForbidden},
		{"GET", "", "cross-site", http.StatusForbidden},
		{"DELETE", "http://evil.example", "", http.StatusForbidden},
		{"DELETE", "https://" + addr, "", http.StatusForbidden},
	} {
		r := req{method: c.method, session: sid, header: map[string]string{}}
		if c.method == "POST" {
			r.body = `{"jsonrpc":"2.0","id":3,"method":"ping"}`
		}
		if c.origin != "" {
			r.header["Origin"] = c.origin
		}
		if c.site != "" {
			r.header["Sec-Fetch-Site"] = c.site
		}
		if code, _, body := do(t, addr, r); code != c.want {
			t.Errorf("%s Origin=%q Sec-Fetch-Site=%q: %d %s, want %d", c.method, c.origin, c.site, code, body, c.want)
		}
	}
	if code := ping(t, addr, sid); code != http.StatusOK {
		t.Fatalf("the session must survive the refusals: ping %d", code)
	}
}

// rawConn opens a TCP connection to the server.
func rawConn(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedWithin waits for the server to close c, reading and dropping what it sends.
func closedWithin(t *testing.T, c net.Conn, d time.Duration) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the connection was still open after %v", d)
	}
}

// A body that trickles in is cut at the body timeout with a 408, and its connection closed.
func TestHTTPSlowBody(t *testing.T) {
	lim := defaultLimits
	lim.body = 300 * time.Millisecond
	addr := startHTTP(t, lim)
	c := rawConn(t, addr)
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n", addr, testToken, len(initBody))
	stop := make(chan struct{})
	defer close(stop)
	go func() { // 10 bytes a second
		for i := 0; i < len(initBody); i++ {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			if _, err := c.Write([]byte{initBody[i]}); err != nil {
				return
			}
		}
	}()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no response to a slow body: %v", err)
	}
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("status %d, want 408", resp.StatusCode)
	}
	closedWithin(t, c, 5*time.Second)
}

// A keep-alive connection with no request is closed at the idle timeout.
func TestHTTPIdleKeepAliveClosed(t *testing.T) {
	lim := defaultLimits
	lim.idle = 300 * time.Millisecond
	addr := startHTTP(t, lim)
	c := rawConn(t, addr)
	br := bufio.NewReader(c)
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", addr, testToken, len(initBody), initBody)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("initialize over keep-alive: %v %v", resp, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	closedWithin(t, c, 5*time.Second)

	// A connection that never sends its headers is closed at the header timeout.
	lim.header = 300 * time.Millisecond
	c = rawConn(t, startHTTP(t, lim))
	io.WriteString(c, "POST / HTTP/1.1\r\n")
	closedWithin(t, c, 5*time.Second)
}

// At the session limit a new session closes the one idle longest; with every session busy
// (a GET stream open) it is refused with 503.
func TestHTTPSessionCap(t *testing.T) {
	lim := defaultLimits
	lim.maxSessions = 2
	addr := startHTTP(t, lim)
	a := initSession(t, addr)
	b := initSession(t, addr)
	if ping(t, addr, b) != http.StatusOK { // b is now the more recently used
		t.Fatal("ping b")
	}
	c := initSession(t, addr)
	waitStatus(t, addr, a, http.StatusNotFound)
	for _, s := range []string{b, c} {
		if code := ping(t, addr, s); code != http.StatusOK {
			t.Fatalf("session %s: ping %d", s, code)
		}
	}
	// Both sessions listening: nothing may be closed.
	for _, s := range []string{b, c} {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		hr, _ := http.NewRequestWithContext(ctx, "GET", "http://"+addr+"/", nil)
		hr.Header.Set("Accept", "text/event-stream")
		hr.Header.Set("Authorization", "Bearer "+testToken)
		hr.Header.Set("Mcp-Session-Id", s)
		hr.Header.Set("MCP-Protocol-Version", "2025-11-25")
		resp, err := http.DefaultClient.Do(hr)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET stream of %s: %v %v", s, resp, err)
		}
		defer resp.Body.Close()
	}
	code, _, body := do(t, addr, req{body: initBody})
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "--http-max-sessions") {
		t.Fatalf("initialize with every session busy: %d %s", code, body)
	}
}

// waitStatus waits for a ping of a session to get the status (closing a session is not
// instant).
func waitStatus(t *testing.T, addr, sid string, want int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		code := ping(t, addr, sid)
		if code == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s: ping %d, want %d", sid, code, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A session with no request for the idle expiry is closed.
func TestHTTPSessionExpiry(t *testing.T) {
	lim := defaultLimits
	lim.sessionIdle = 300 * time.Millisecond
	addr := startHTTP(t, lim)
	sid := initSession(t, addr)
	time.Sleep(time.Second)
	waitStatus(t, addr, sid, http.StatusNotFound)
}

// A malformed body gets a JSON-RPC error (the SDK answered with plain text in Go's words).
func TestHTTPMalformedBody(t *testing.T) {
	addr := startHTTP(t, defaultLimits)
	for _, c := range []struct {
		body string
		code int
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize"`, -32700},
		{"\x00", -32700},
		{`{"jsonrpc":"1.0","id":1,"method":"initialize"}`, -32600},
		{`{"jsonrpc":"2.0","id":{},"method":"initialize"}`, -32600},
		{strings.Repeat("[", 10000) + strings.Repeat("]", 10000), -32600},
	} {
		status, _, body := do(t, addr, req{body: c.body})
		var reply struct {
			ID    json.RawMessage `json:"id"`
			Error struct{ Code int }
		}
		if err := json.Unmarshal([]byte(body), &reply); status != http.StatusBadRequest || err != nil || reply.Error.Code != c.code || !bytes.Equal(reply.ID, []byte("null")) && c.code == -32700 {
			t.Errorf("%.40q: %d %s, want 400 with JSON-RPC error %d", c.body, status, body, c.code)
		}
	}
	initSession(t, addr)
}

// A request of the session revisions without a session, other than initialize, gets a 400
// with a JSON-RPC error (its id, Invalid Request) that says how to get one.
func TestHTTPRequestWithoutSession(t *testing.T) {
	addr := startHTTP(t, defaultLimits)
	status, _, body := do(t, addr, req{body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_sessions","arguments":{}}}`})
	var reply struct {
		ID    json.RawMessage `json:"id"`
		Error struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal([]byte(body), &reply); status != http.StatusBadRequest || err != nil || reply.Error.Code != -32600 ||
		string(reply.ID) != "7" || !strings.Contains(reply.Error.Message, "initialize") {
		t.Errorf("tools/call without a session: %d %s", status, body)
	}
	initSession(t, addr)
}

func TestHTTPSettings(t *testing.T) {
	for _, c := range []struct {
		env  []string
		args []string
		says string
	}{
		{nil, []string{"--http-max-sessions", "0"}, "at least 1"},
		{[]string{"TMUX_MCP_HTTP_MAX_SESSIONS=many"}, nil, "TMUX_MCP_HTTP_MAX_SESSIONS"},
		{[]string{"TMUX_MCP_HTTP_SESSION_IDLE=soon"}, nil, "30m"},
		{nil, []string{"--http-session-idle", "-1s"}, "--http-session-idle"},
	} {
		env := append([]string{"TMUX_MCP_TOKEN=" + testToken, "LIBTMUX_SOCKET=tmux-mcp-cli-test-none"}, c.env...)
		args := append([]string{"serve", "--http", "127.0.0.1:0"}, c.args...)
		if code, _, errs := runCLI(t, env, args...); code != 2 || !strings.Contains(errs, c.says) {
			t.Errorf("%v %v: %d %q, want %q", c.env, c.args, code, errs, c.says)
		}
	}
	st := &settings{maxSessions: "3", sessionIdle: "0"}
	if l, err := st.httpLimits(); err != nil || l.maxSessions != 3 || l.sessionIdle != 0 {
		t.Fatalf("%+v %v", l, err)
	}
}

type bearer struct{ rt http.RoundTripper }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+testToken)
	return b.rt.RoundTrip(r)
}

// The go-sdk's own client works through the front: its standalone GET stream, its calls, and
// its DELETE at the end, which frees the session at once.
func TestHTTPGoSDKClient(t *testing.T) {
	lim := defaultLimits
	lim.maxSessions = 1
	addr := startHTTP(t, lim)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := 0; i < 3; i++ { // one session at a time, each ended by its client
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/", HTTPClient: &http.Client{Transport: bearer{http.DefaultTransport}}}, nil)
		if err != nil {
			t.Fatalf("connect %d: %v", i, err)
		}
		res, err := cs.ListTools(ctx, nil)
		if err != nil || len(res.Tools) == 0 {
			t.Fatalf("tools/list: %v", err)
		}
		cs.Close()
	}
}

// A request naming a session that is not (or no longer) open gets the 404 that tells an MCP
// client to start a new one, and says so in words: what the id names, why a session ends, and
// what to send instead (the SDK's body was "session not found"). A POST's body is a JSON-RPC
// error with the request's id.
func TestHTTPUnknownSession(t *testing.T) {
	addr := startHTTP(t, defaultLimits)
	gone := initSession(t, addr)
	if code, _, body := do(t, addr, req{method: "DELETE", session: gone}); code != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", code, body)
	}
	waitStatus(t, addr, gone, http.StatusNotFound)
	for _, sid := range []string{gone, "NOSUCHSESSION"} {
		for _, method := range []string{"POST", "GET", "DELETE"} {
			r := req{method: method, session: sid, header: map[string]string{"Accept": "application/json, text/event-stream"}}
			if method == "POST" {
				r.body = `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`
			}
			code, _, body := do(t, addr, r)
			if code != http.StatusNotFound || !strings.Contains(body, sid) || !strings.Contains(body, "initialize") {
				t.Errorf("%s with session %s: %d %q, want 404 naming the id and initialize", method, sid, code, body)
			}
			if method != "POST" {
				continue
			}
			var reply struct {
				ID    json.RawMessage `json:"id"`
				Error struct{ Code int }
			}
			if err := json.Unmarshal([]byte(body), &reply); err != nil || string(reply.ID) != "9" || reply.Error.Code != -32600 {
				t.Errorf("POST with session %s: %s, want a JSON-RPC error with id 9", sid, body)
			}
		}
	}
	initSession(t, addr)
}

// smallSendBuffers gives every accepted connection a small socket send buffer, so that a
// client that does not read blocks the server's writes after a few kilobytes.
type smallSendBuffers struct{ net.Listener }

func (l smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(4096)
	}
	return c, err
}

// A client that stops reading (suspended, its machine asleep) is cut off after the write
// timeout: its request ends and frees what it held. A write blocked on it held its session for
// good (busy, so never closed for a new one), and on a listening stream every notification
// sent after it to other clients (the go-sdk sends them one session after another):
// resources/updated stopped for every subscriber of the pane.
func TestHTTPStalledReader(t *testing.T) {
	lim := defaultLimits
	lim.maxSessions, lim.write = 1, 300*time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := startHTTPOn(t, smallSendBuffers{ln}, lim)
	sid := initSession(t, addr)
	// A small receive buffer set before connecting keeps the window the client offers small.
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// tools/list answers are about 60 kB: a few, never read, fill every buffer on the way.
	for i := range 8 {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i+10)
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
			"Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: %d\r\n\r\n%s", addr, testToken, sid, len(body), body)
	}
	time.Sleep(500 * time.Millisecond)
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, _, reply := do(t, addr, req{body: initBody})
		if code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a client that stopped reading still holds the only session 10 s later: initialize got %d %s", code, reply)
		}
	}
}
