package cli

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/server"
)

// maxBody bounds one HTTP request body.
const maxBody = 4 << 20

// serveHTTP serves streamable HTTP: loopback unless told otherwise, a bearer token on every
// request, the SDK's Host (DNS-rebinding) and cross-origin protection, bounded bodies.
func serveHTTP(ctx context.Context, srv *server.Server, st *settings, sio IO) int {
	token, generated, err := httpToken(st, sio.Env)
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
	mh := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, &mcp.StreamableHTTPOptions{
		MaxRequestBodyBytes:          maxBody,
		CrossOriginProtection:        http.NewCrossOriginProtection(),
		PropagateRequestCancellation: true,
	})
	want := []byte("Bearer " + token)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Constant time, so a wrong token costs the same whatever it shares with the right one.
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		mh.ServeHTTP(w, r)
	})
	ln, err := net.Listen("tcp", st.http)
	if err != nil {
		fmt.Fprintln(sio.Stderr, "tmux-mcp:", err)
		return 1
	}
	if generated {
		fmt.Fprintf(sio.Stderr, "tmux-mcp: bearer token (send as 'Authorization: Bearer <token>'): %s\n", token)
	}
	fmt.Fprintf(sio.Stderr, "tmux-mcp %s: serving MCP over HTTP on http://%s/; socket: %s\n", version(), ln.Addr(), st.socketLabel())
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(sio.Stderr, "tmux-mcp:", err)
		return 1
	}
	return 0
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
