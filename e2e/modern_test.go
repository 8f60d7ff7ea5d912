package e2e

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

const e2eToken = "e2e-token-0123456789abcdef0123456789abcdef"

// startHTTPBinary runs the binary over HTTP (--http 127.0.0.1:0) on tmx with the bearer token
// e2eToken, and returns its endpoint.
func startHTTPBinary(t *testing.T, tmx *testtmux.Server, env ...string) string {
	t.Helper()
	cmd := exec.Command(binary, "--http", "127.0.0.1:0")
	cmd.Env = append(append([]string{}, tmx.Env...), "LIBTMUX_SOCKET_PATH="+tmx.Socket, "TMUX_MCP_TOKEN="+e2eToken)
	cmd.Env = append(cmd.Env, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	found := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`serving MCP over HTTP on (http://\S+/)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
			t.Logf("server stderr: %s", sc.Text())
		}
	}()
	select {
	case u := <-found:
		return u
	case <-time.After(20 * time.Second):
		t.Fatal("tmux-mcp --http did not say where it serves")
		return ""
	}
}

// tokenProxy serves endpoint to clients that cannot send a bearer token (the conformance
// suite), adding it.
func tokenProxy(t *testing.T, endpoint string) string {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	p := httputil.NewSingleHostReverseProxy(u)
	p.FlushInterval = -1 // SSE streams as they come
	inner := p.Director
	p.Director = func(r *http.Request) {
		inner(r) // the Host header stays the client's: the server's rebinding check sees it
		r.Header.Set("Authorization", "Bearer "+e2eToken)
	}
	hs := httptest.NewServer(p)
	t.Cleanup(hs.Close)
	return hs.URL + strings.TrimSuffix(u.Path, "/") + "/"
}
