package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// e2eSecret is what the person types: the test scans everything else for it.
const e2eSecret = "s3cr3t-Wire-9x!"

var e2eCSRF = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// personSubmits does the person's part: open the page, type the secret, submit it, as a
// browser posts a form (the browser itself is server/secret_browser_test.go's).
func personSubmits(t *testing.T, pageURL string) {
	res, err := http.Get(pageURL)
	if err != nil {
		t.Errorf("opening the page: %v", err)
		return
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := e2eCSRF.FindStringSubmatch(string(body))
	if m == nil {
		t.Errorf("no form: %s", body)
		return
	}
	u, _ := url.Parse(pageURL)
	req, _ := http.NewRequest(http.MethodPost, pageURL, strings.NewReader(url.Values{"csrf": {m[1]}, "secret": {e2eSecret}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://"+u.Host)
	res, err = http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Errorf("submitting: %v %v", res, err)
		return
	}
	res.Body.Close()
}

// bearer adds the e2e token to every request.
type bearer struct{}

func (bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+e2eToken)
	return http.DefaultTransport.RoundTrip(r)
}

// syncBuf is a buffer written by the client's transport log.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The person types a secret for a program in a pane, over stdio and HTTP, on 2025-11-25 and
// 2026-07-28, in bash and zsh: read -s and a sudo -S style prompt (a stand-in that turns the
// terminal's echo off: sudo may not be installed), run with run_command, which asks by
// itself, and typed with type_secret. The program gets it (its length is right); the secret
// is in no message on the wire, the audit log, the server's stderr or the recording, which
// marks "hidden input".
func TestSecretNeverSeen(t *testing.T) {
	sudo, _ := filepath.Abs("../server/testdata/fakesudo")
	cases := []struct{ transport, version, shell string }{
		{"stdio", "2025-11-25", "bash"}, {"stdio", "2026-07-28", "bash"}, {"stdio", "2025-11-25", "zsh"}, {"stdio", "2026-07-28", "zsh"},
		{"http", "2025-11-25", "bash"}, {"http", "2026-07-28", "zsh"},
		// fish's read -s reads keys one at a time with echo off, as its line editor does: the
		// prompt says it asks for a secret.
		{"stdio", "2026-07-28", "fish"},
	}
	for _, tc := range cases {
		t.Run(tc.transport+"/"+tc.version+"/"+tc.shell, func(t *testing.T) {
			tmx := testtmux.New(t)
			shell := testtmux.Bash
			readS := `read -s -p 'Password: ' pw; echo; echo "len=${#pw}"`
			hidden := []string{"-echo", "icanon"}
			switch tc.shell {
			case "zsh":
				testtmux.RequireShell(t, testtmux.Zsh)
				shell, readS = testtmux.Zsh, `read -s 'pw?Password: '; echo; echo "len=${#pw}"`
			case "fish":
				testtmux.RequireShell(t, testtmux.Fish)
				shell, readS, hidden = testtmux.Fish, `read -s -P 'Password: ' pw; echo "len="(string length -- $pw)`, []string{"-echo", "-icanon"}
			}
			_, pane := tmx.NewSession("s", shell...)
			tmx.WaitPrompt(pane)
			dir := t.TempDir()
			audit, cast := filepath.Join(dir, "audit.log"), filepath.Join(dir, "rec.cast")
			env := []string{"LIBTMUX_MCP_AUDIT=" + audit, "LIBTMUX_MCP_PIPE_ROOT=" + dir}
			var wire, stderr syncBuf
			opts := &mcp.ClientOptions{
				Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}, Form: &mcp.FormElicitationCapabilities{}}},
				ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					if r.Params.Mode != "url" {
						return &mcp.ElicitResult{Action: "decline"}, nil
					}
					personSubmits(t, r.Params.URL)
					return &mcp.ElicitResult{Action: "accept"}, nil
				},
			}
			var tr mcp.Transport
			if tc.transport == "stdio" {
				cmd := exec.Command(binary)
				cmd.Env = append(append(append([]string{}, tmx.Env...), "LIBTMUX_SOCKET_PATH="+tmx.Socket), env...)
				cmd.Stderr = &stderr
				tr = &mcp.CommandTransport{Command: cmd}
			} else {
				tr = &mcp.StreamableClientTransport{Endpoint: startHTTPBinary(t, tmx, env...), HTTPClient: &http.Client{Transport: bearer{}}}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "0"}, opts).Connect(ctx, &mcp.LoggingTransport{Transport: tr, Writer: &wire}, &mcp.ClientSessionOptions{ProtocolVersion: tc.version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			call := func(tool string, args map[string]any) string {
				t.Helper()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
				if err != nil {
					t.Fatalf("%s: %v", tool, err)
				}
				b, _ := json.Marshal(res)
				if res.IsError {
					t.Fatalf("%s: %s", tool, b)
				}
				return string(b)
			}
			call("start_recording", map[string]any{"pane_id": pane, "output_path": cast})
			want := fmt.Sprintf("len=%d", len(e2eSecret))
			if out := call("run_command", map[string]any{"pane_id": pane, "command": readS, "timeout": 60}); !strings.Contains(out, want) {
				t.Errorf("read -s: %s", out)
			}
			if out := call("run_command", map[string]any{"pane_id": pane, "command": sudo + " -S true", "timeout": 60}); !strings.Contains(out, "sudo-"+want) {
				t.Errorf("sudo -S: %s", out)
			}
			// type_secret: the agent starts the prompt itself and has the person type.
			tmx.Tmux("send-keys", "-t", pane, "clear; "+readS, "Enter")
			tty := strings.TrimSpace(tmx.Tmux("display-message", "-p", "-t", pane, "#{pane_tty}"))
			// Until read -s has the terminal: echo off in canonical mode (a line editor at the
			// prompt has echo off too, in raw mode), fish's once its prompt shows.
			for end := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				out, _ := exec.Command("stty", "-a", "-F", tty).Output()
				f := strings.Fields(string(out))
				shown := tc.shell != "fish" || strings.HasSuffix(strings.TrimSpace(tmx.Tmux("capture-pane", "-p", "-t", pane)), "Password:")
				if slices.Contains(f, hidden[0]) && slices.Contains(f, hidden[1]) && shown || time.Now().After(end) {
					break
				}
			}
			if out := call("type_secret", map[string]any{"pane_id": pane}); !strings.Contains(out, fmt.Sprintf(`"bytes":%d`, len(e2eSecret))) {
				t.Errorf("type_secret: %s", out)
			}
			tmx.WaitFor(pane, func(s string) bool { return strings.Contains(s, want) })
			call("stop_recording", map[string]any{"pane_id": pane})
			cs.Close()
			time.Sleep(200 * time.Millisecond)
			a, _ := os.ReadFile(audit)
			r, _ := os.ReadFile(cast)
			for what, text := range map[string]string{"the wire": wire.String(), "the audit log": string(a), "the recording": string(r), "stderr": stderr.String()} {
				if strings.Contains(text, e2eSecret) {
					t.Errorf("the secret is in %s", what)
				}
			}
			if n := strings.Count(string(a), `"event":"secret_typed"`); n != 3 {
				t.Errorf("audit: %d secret lines:\n%s", n, a)
			}
			if !strings.Contains(string(r), "hidden input") {
				t.Errorf("the recording has no hidden input marker")
			}
			if !strings.Contains(wire.String(), "elicitation") && !strings.Contains(wire.String(), "inputRequests") {
				t.Errorf("no question on the wire")
			}
		})
	}
}

// A client without URL elicitation: run_command returns waiting_for_input with input_hidden,
// type_secret refuses with how the person types it themselves, and wait_for_run goes on after.
func TestSecretWithoutElicitation(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("s")
	c.Tmx.WaitPrompt(pane)
	var out struct {
		WaitingForInput bool   `json:"waiting_for_input"`
		InputHidden     bool   `json:"input_hidden"`
		InputHint       string `json:"input_hint"`
	}
	c.OK("run_command", map[string]any{"pane_id": pane, "command": `read -s -p 'Password: ' pw; echo "len=${#pw}"`, "timeout": 60}, &out)
	// The hint says how the person types it in tmux: type_secret would refuse here.
	if !out.WaitingForInput || !out.InputHidden || !strings.Contains(out.InputHint, "attach -t 's'") || strings.Contains(out.InputHint, "type_secret pane_id") {
		t.Fatalf("%+v", out)
	}
	msg := c.Fail("type_secret", map[string]any{"pane_id": pane})
	if !strings.Contains(msg, "attach -t 's'") || !strings.Contains(msg, "wait_for_run") {
		t.Errorf("%s", msg)
	}
	c.Tmx.Tmux("send-keys", "-t", pane, "-l", "typed-by-person")
	c.Tmx.Tmux("send-keys", "-t", pane, "Enter")
	var done struct {
		ExitStatus *int     `json:"exit_status"`
		Output     []string `json:"output"`
	}
	c.OK("wait_for_run", map[string]any{"pane_id": pane, "timeout": 30}, &done)
	if done.ExitStatus == nil || !strings.Contains(strings.Join(done.Output, "\n"), "len=15") {
		t.Errorf("%+v", done)
	}
}
