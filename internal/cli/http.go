package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/internal/hint"

	"github.com/tmux-mcp/tmux-mcp/internal/wire"
	"github.com/tmux-mcp/tmux-mcp/server"
)

// maxBody bounds one HTTP request body.
const maxBody = 4 << 20

// minToken is the length under which a configured bearer token draws a warning.
const minToken = 32

// httpLimits bound what clients can hold of the HTTP server.
type httpLimits struct {
	maxSessions int           // MCP sessions held at once (--http-max-sessions)
	sessionIdle time.Duration // a session without a request for this long is closed; 0: never (--http-session-idle)
	header      time.Duration // to read a request's headers
	body        time.Duration // to read a request's body
	idle        time.Duration // a keep-alive connection without a request is closed
	write       time.Duration // to write to a client that reads
}

// defaultLimits: a session costs about 15 kB, and a client holds one or two; loopback clients
// send a request whole at once.
var defaultLimits = httpLimits{maxSessions: 64, sessionIdle: time.Hour, header: 10 * time.Second, body: 10 * time.Second, idle: 30 * time.Second, write: 30 * time.Second}

func (s *settings) httpLimits() (httpLimits, error) {
	l := defaultLimits
	if s.maxSessions != "" {
		n, err := strconv.Atoi(strings.TrimSpace(s.maxSessions))
		if err != nil || n < 1 {
			return l, fmt.Errorf("TMUX_MCP_HTTP_MAX_SESSIONS (--http-max-sessions) is %q: give a whole number of at least 1", s.maxSessions)
		}
		l.maxSessions = n
	}
	if s.sessionIdle != "" {
		d, err := time.ParseDuration(strings.TrimSpace(s.sessionIdle))
		if err != nil || d < 0 {
			return l, fmt.Errorf("TMUX_MCP_HTTP_SESSION_IDLE (--http-session-idle) is %q: give a duration such as 30m or 2h, or 0 for never", s.sessionIdle)
		}
		l.sessionIdle = d
	}
	return l, nil
}

// serveHTTP serves streamable HTTP: loopback unless told otherwise, a bearer token and an
// Origin check on every request, the SDK's Host (DNS-rebinding) check, bounded bodies,
// sessions and connections.
func serveHTTP(ctx context.Context, srv *server.Server, st *settings, sio IO) int {
	token, generated, err := httpToken(st, sio.Env)
	if err == nil && !generated && len(token) < minToken {
		fmt.Fprintf(sio.Stderr, "tmux-mcp: warning: the bearer token is %d characters; use at least %d random ones (`openssl rand -hex 32` prints 64)\n", len(token), minToken)
	}
	var lim httpLimits
	if err == nil {
		lim, err = st.httpLimits()
	}
	if err != nil {
		fmt.Fprintln(sio.Stderr, "tmux-mcp:", err)
		return 2
	}
	host, _, err := net.SplitHostPort(st.http)
	if err != nil {
		fmt.Fprintf(sio.Stderr, "tmux-mcp: --http %q: %v (want host:port, e.g. 127.0.0.1:8765)\n", st.http, err)
		return 2
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		fmt.Fprintf(sio.Stderr, "tmux-mcp: warning: serving on non-loopback address %s; anyone who can reach it and holds the token can drive tmux\n", host)
	}
	ln, err := net.Listen("tcp", st.http)
	if err != nil {
		fmt.Fprintln(sio.Stderr, "tmux-mcp:", err)
		return 1
	}
	if generated {
		fmt.Fprintf(sio.Stderr, "tmux-mcp: bearer token (send as 'Authorization: Bearer <token>'): %s\n", token)
	}
	fmt.Fprintf(sio.Stderr, "tmux-mcp %s: serving MCP over HTTP on http://%s/; socket: %s\n", version(), ln.Addr(), st.socketLabel())
	if err := serveOn(ctx, ln, srv, token, lim); err != nil {
		fmt.Fprintln(sio.Stderr, "tmux-mcp:", err)
		return 1
	}
	return 0
}

// serveOn serves MCP over HTTP on ln until ctx ends.
func serveOn(ctx context.Context, ln net.Listener, srv *server.Server, token string, lim httpLimits) error {
	ms := srv.MCP()
	get := func(*http.Request) *mcp.Server { return ms }
	f := &httpFront{
		mcp: ms,
		sdk: mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
			MaxRequestBodyBytes:          maxBody,
			SessionTimeout:               lim.sessionIdle,
			PropagateRequestCancellation: true,
			Logger:                       srv.Logger(),
		}),
		// The go-sdk (v1.8.0) serves 2026-07-28 over HTTP only from a stateless handler, and a
		// stateless handler has no sessions for the older revisions' clients (no GET stream,
		// no server-to-client requests, no resources/subscribe): one endpoint, two handlers.
		stateless: mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
			Stateless:                    true,
			MaxRequestBodyBytes:          maxBody,
			PropagateRequestCancellation: true,
			Logger:                       srv.Logger(),
		}),
		auth:     []byte("Bearer " + token),
		lim:      lim,
		sessions: map[string]*sessionUse{},
	}
	// No ReadTimeout or WriteTimeout: net/http would apply them to the whole exchange and cut
	// the long-lived responses (SSE streams, waits of up to 600 s); readBody bounds the body.
	hs := &http.Server{Handler: f, ReadHeaderTimeout: lim.header, IdleTimeout: lim.idle}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// httpFront checks every request before the go-sdk's streamable handler sees it, and bounds
// the sessions it holds: the SDK's handler expires idle sessions (SessionTimeout) but holds
// any number of them.
type httpFront struct {
	mcp       *mcp.Server
	sdk       http.Handler // the stateful handler: protocol revisions up to 2025-11-25
	stateless http.Handler // 2026-07-28 and later: every request stands alone (perRequest)
	auth      []byte       // "Bearer <token>"
	lim       httpLimits

	mu       sync.Mutex
	sessions map[string]*sessionUse // live sessions, by Mcp-Session-Id
	opening  int                    // requests without a session id in flight: each may open one, or is one (stateless)
	freed    chan struct{}          // closed when one of them ends, for admit's waiters
}

// sessionUse is what the front knows of a session: requests in flight (a listening GET stream
// included) and when the last one came.
type sessionUse struct {
	inFlight int
	last     time.Time
	closing  bool
}

func (f *httpFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w = &boundedWriter{ResponseWriter: w, rc: http.NewResponseController(w), d: f.lim.write}
	body, ok := f.checked(w, r)
	if !ok {
		return
	}
	id := r.Header.Get("Mcp-Session-Id")
	if id == "" && perRequest(r, body) {
		// A request of the per-request revisions holds an ephemeral session of the SDK's
		// while it runs (a wait, a subscriptions/listen stream): it counts as a session.
		if r.Method == http.MethodPost {
			if !f.admit(w) {
				return
			}
			defer f.admitted()
		}
		f.stateless.ServeHTTP(w, r)
		return
	}
	if id != "" {
		if !f.use(id, 1) {
			unknownSession(w, r.Method, id, body)
			return
		}
		defer f.use(id, -1)
		if r.Method == http.MethodDelete {
			// The SDK closes the session, but its streams end and it leaves Sessions() a
			// little later: a new session admitted meanwhile must not count it.
			defer f.closing(id)
		}
	} else if r.Method == http.MethodPost {
		if e := sessionless(body); e != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write(e.Reply())
			return
		}
		if !f.admit(w) {
			return
		}
		defer f.admitted()
	}
	f.sdk.ServeHTTP(w, r)
}

// boundedWriter bounds each write to the client (and each flush) by d. A client that stops
// reading (suspended, its machine asleep) would otherwise block a write forever once the
// socket's buffers are full, and with it its request (holding its session busy) or, on a
// listening stream, the go-sdk's notifier, which writes to one session after another: every
// later client's resources/updated and list_changed stopped. A timed-out write breaks the
// connection, so later writes to it fail at once.
type boundedWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
	d  time.Duration
}

func (w *boundedWriter) Write(b []byte) (int, error) {
	w.rc.SetWriteDeadline(time.Now().Add(w.d))
	defer w.rc.SetWriteDeadline(time.Time{}) // a stream may stay quiet for longer than d
	return w.ResponseWriter.Write(b)
}

func (w *boundedWriter) FlushError() error {
	w.rc.SetWriteDeadline(time.Now().Add(w.d))
	defer w.rc.SetWriteDeadline(time.Time{})
	return w.rc.Flush()
}

func (w *boundedWriter) Flush() { w.FlushError() }

// Unwrap lets http.NewResponseController reach the connection's own deadlines.
func (w *boundedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// checked makes the checks of every request (Origin, token, body, JSON-RPC framing) and
// returns its body; when one fails it has answered.
func (f *httpFront) checked(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if err := checkOrigin(r); err != nil {
		http.Error(w, err.Error(), http.StatusForbidden)
		return nil, false
	}
	// Constant time, so a wrong token costs the same whatever it shares with the right one.
	if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), f.auth) != 1 {
		w.Header().Set("WWW-Authenticate", "Bearer")
		http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
		return nil, false
	}
	body, ok := f.readBody(w, r)
	if !ok {
		return nil, false
	}
	if r.Method == http.MethodPost {
		// The SDK answers these with a plain-text 400 in Go's words; a JSON-RPC error says
		// the same as over stdio.
		if e := wire.Check(body); e != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write(e.Reply())
			return nil, false
		}
	}
	return body, true
}

// unknownSession answers a request whose Mcp-Session-Id names no open session with the 404
// that tells a client to start a new session (MCP), saying why a session ends and what to send:
// the SDK's body is only "session not found". A POST with an id gets a JSON-RPC error.
func unknownSession(w http.ResponseWriter, method, id string, body []byte) {
	msg := fmt.Sprintf("Mcp-Session-Id %q names no open session: it was deleted, went idle past --http-session-idle, was closed for a new one past --http-max-sessions, or the server restarted. Start a new session with initialize (without Mcp-Session-Id) and send the Mcp-Session-Id of its reply, or send MCP-Protocol-Version: 2026-07-28 to call without a session", hint.Truncate(id, 60))
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if method != http.MethodPost || json.Unmarshal(body, &m) != nil || m.ID == nil {
		http.Error(w, msg, http.StatusNotFound)
		return
	}
	e := &wire.Error{ID: m.ID, Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: " + msg}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	w.Write(e.Reply())
}

// sessionless refuses a request of the session revisions (2025-11-25 and before) that has no
// Mcp-Session-Id and does not start one: as MCP asks, a 400, with a JSON-RPC error that says
// how to get a session. The go-sdk (v1.8.0) makes a session for it and answers, with HTTP 200,
// an error of code 0 ("invalid during session initialization"). initialize, ping, notifications
// and batches go on to the SDK.
func sessionless(body []byte) *wire.Error {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(body, &m) != nil || m.ID == nil || m.Method == "" || m.Method == "initialize" || m.Method == "ping" {
		return nil
	}
	return &wire.Error{ID: m.ID, Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf(
		"Invalid Request: %s without an Mcp-Session-Id header: a session starts with initialize (send the Mcp-Session-Id of its reply with every later request), or send MCP-Protocol-Version: 2026-07-28 to call without a session", hint.Truncate(m.Method, 60))}
}

// metaVersionKey is the _meta key of the per-request protocol version (SEP-2575).
const metaVersionKey = mcp.MetaKeyProtocolVersion

// perRequest reports whether a request without a session id follows the per-request protocol
// (2026-07-28 and later): its MCP-Protocol-Version header names such a revision, or, without
// the header, its _meta names a version (the stateless handler then answers that the header
// is required, where the stateful one would refuse the revision).
func perRequest(r *http.Request, body []byte) bool {
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
		return v >= "2026-07-28"
	}
	if !bytes.Contains(body, []byte(metaVersionKey)) {
		return false
	}
	var m struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil {
		return false
	}
	_, ok := m.Params.Meta[metaVersionKey]
	return ok
}

// checkOrigin refuses a request that a browser sent from another origin, whatever its method.
// The go-sdk's CrossOriginProtection (net/http's) lets GET, HEAD and OPTIONS through, and
// compares an Origin's host with Host but not its scheme: https://127.0.0.1:PORT passed.
func checkOrigin(r *http.Request) error {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return fmt.Errorf("cross-site request refused (Sec-Fetch-Site: %s): tmux-mcp does not serve web pages", r.Header.Get("Sec-Fetch-Site"))
	}
	if o := r.Header.Get("Origin"); o != "" && !strings.EqualFold(o, "http://"+r.Host) {
		return fmt.Errorf("origin %q refused: only http://%s may call this server from a browser", o, r.Host)
	}
	return nil
}

// readBody reads the whole body within the body timeout and the size bound, so that a slow
// body holds a connection that long at most, and hands it on to the SDK.
func (f *httpFront) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, true
	}
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(f.lim.body))
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		http.Error(w, fmt.Sprintf("request body over %d bytes", maxBody), http.StatusRequestEntityTooLarge)
		return nil, false
	case err != nil:
		// The deadline stays, so that net/http does not wait for the rest of the body before
		// it closes the connection.
		w.Header().Set("Connection", "close")
		http.Error(w, fmt.Sprintf("request body not received within %s", f.lim.body), http.StatusRequestTimeout)
		return nil, false
	}
	rc.SetReadDeadline(time.Time{}) // the SDK still watches the connection for the client leaving
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b, true
}

// use counts a request of a session in or out, and reports whether id names an open session.
// An id the front does not know yet may be a session the SDK has just opened.
func (f *httpFront) use(id string, delta int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	u := f.sessions[id]
	if u == nil && delta > 0 {
		f.refresh()
		u = f.sessions[id]
	}
	if u == nil || u.closing && delta > 0 {
		return false // deleted or evicted: the SDK would answer 404 too, once it has closed it
	}
	u.inFlight += delta
	u.last = time.Now()
	return true
}

// admitWait bounds how long a request without a session id waits for a slot at the limit:
// a client's previous request may have had its answer and still be leaving the handler.
const admitWait = time.Second

// admit lets a request without a session id in: it may open a session, or, stateless, is one
// while it runs. At the limit it first closes the session idle longest (no request in flight,
// no stream open); when every session is busy it waits admitWait for one to end, then answers
// 503.
func (f *httpFront) admit(w http.ResponseWriter) bool {
	deadline := time.Now().Add(admitWait)
	for {
		ok, freed := f.tryAdmit()
		if ok {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		t := time.NewTimer(left)
		select {
		case <-freed:
		case <-t.C:
		}
		t.Stop()
	}
	w.Header().Set("Retry-After", "5")
	http.Error(w, fmt.Sprintf("all %d MCP sessions are busy; retry later, end sessions you no longer use (DELETE), or raise --http-max-sessions (TMUX_MCP_HTTP_MAX_SESSIONS)", f.lim.maxSessions), http.StatusServiceUnavailable)
	return false
}

// tryAdmit is admit's attempt; when it fails, freed is closed once a request without a
// session id ends.
func (f *httpFront) tryAdmit() (ok bool, freed <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refresh()
	n := f.opening
	var idlest *mcp.ServerSession
	var since time.Time
	for ss := range f.mcp.Sessions() {
		if ss.ID() == "" {
			continue // a stateless request's, counted in f.opening while it runs
		}
		u := f.sessions[ss.ID()]
		if u == nil || u.closing {
			continue
		}
		n++
		if u.inFlight == 0 && (idlest == nil || u.last.Before(since)) {
			idlest, since = ss, u.last
		}
	}
	if n >= f.lim.maxSessions {
		if idlest == nil {
			if f.freed == nil {
				f.freed = make(chan struct{})
			}
			return false, f.freed
		}
		f.sessions[idlest.ID()].closing = true
		go idlest.Close() // it has nothing in flight; its next request gets the SDK's 404
	}
	f.opening++
	return true, nil
}

// closing marks session id as on its way out (its client deleted it).
func (f *httpFront) closing(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if u := f.sessions[id]; u != nil {
		u.closing = true
	}
}

func (f *httpFront) admitted() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.opening--
	f.refresh()
	if f.freed != nil {
		close(f.freed)
		f.freed = nil
	}
}

// refresh brings the front's sessions in line with the SDK's: new ones start idle now, closed
// ones (expired, deleted, evicted) are dropped. f.mu is held.
func (f *httpFront) refresh() {
	live := map[string]bool{}
	for ss := range f.mcp.Sessions() {
		id := ss.ID()
		if id == "" {
			continue // a stateless request's, or stdio's
		}
		live[id] = true
		if f.sessions[id] == nil {
			f.sessions[id] = &sessionUse{last: time.Now()}
		}
	}
	for id := range f.sessions {
		if !live[id] {
			delete(f.sessions, id)
		}
	}
}

func httpToken(st *settings, env []string) (token string, generated bool, err error) {
	if st.tokenFile != "" {
		b, err := os.ReadFile(st.tokenFile)
		if err != nil {
			return "", false, fmt.Errorf("--token-file: %w", err)
		}
		if t := strings.TrimSpace(string(b)); t != "" {
			return t, false, nil
		}
		return "", false, fmt.Errorf("--token-file %s is empty", st.tokenFile)
	}
	if t, ok := lookup(env, "TMUX_MCP_TOKEN"); ok && strings.TrimSpace(t) != "" {
		return strings.TrimSpace(t), false, nil
	}
	b := make([]byte, 24)
	rand.Read(b)
	return hex.EncodeToString(b), true, nil
}
