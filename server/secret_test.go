package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/termstate"
	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

// testSecret is what the person types in these tests: it must show up nowhere but the pane's
// program.
const testSecret = `hu;nt'er"2 $x\#{a} -l`

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// submitPage does what a browser does with a secret page: it reads the form and posts it, from
// the page's own origin. It returns the answer's status and body.
func submitPage(pageURL, secret string, header map[string]string) (int, string, error) {
	res, err := http.Get(pageURL)
	if err != nil {
		return 0, "", err
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := csrfRE.FindStringSubmatch(string(body))
	if m == nil {
		return res.StatusCode, string(body), fmt.Errorf("no form on the page (%d)", res.StatusCode)
	}
	u, _ := url.Parse(pageURL)
	req, _ := http.NewRequest(http.MethodPost, pageURL, strings.NewReader(url.Values{"csrf": {m[1]}, "secret": {secret}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://"+u.Host)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	body, _ = io.ReadAll(res.Body)
	return res.StatusCode, string(body), nil
}

// pageClient is a client that declares form and URL elicitation (URL only when urlMode) and
// answers a page with open (the person's part) and accept, or with action when it is not
// "accept"; forms are answered with formAction.
type pageClient struct {
	open       func(url string)
	action     string
	formAction string
	urlMode    bool
	noElicit   bool

	mu    sync.Mutex
	asked []string // the messages of the questions
}

func (pc *pageClient) client() *mcp.Client {
	caps := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}
	if pc.urlMode {
		caps.Elicitation.URL = &mcp.URLElicitationCapabilities{}
	}
	if pc.noElicit {
		// No handler either: the go-sdk declares elicitation for a client that has one.
		return mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	}
	return mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, &mcp.ClientOptions{
		Capabilities: caps,
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			pc.mu.Lock()
			pc.asked = append(pc.asked, r.Params.Message)
			pc.mu.Unlock()
			if r.Params.Mode == "url" {
				if pc.action != "" && pc.action != "accept" {
					return &mcp.ElicitResult{Action: pc.action}, nil
				}
				if pc.open != nil {
					pc.open(r.Params.URL)
				}
				return &mcp.ElicitResult{Action: "accept"}, nil
			}
			return &mcp.ElicitResult{Action: cmpOr(pc.formAction, "accept"), Content: map[string]any{}}, nil
		},
	})
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (pc *pageClient) connect(t *testing.T, s *Server, kind, version string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := pc.client().Connect(ctx, transport(t, s, kind, version), &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// hiddenPrompt starts, in pane, a program that reads a password, and waits until its terminal
// hides input.
func hiddenPrompt(t *testing.T, tmx *testtmux.Server, pane string) {
	t.Helper()
	tmx.WaitPrompt(pane)
	tmx.Tmux("send-keys", "-t", pane, `read -r -s -p 'Password: ' pw; echo; echo "len=${#pw}"`, "Enter")
	waitHidden(t, tmx, pane)
}

func waitHidden(t *testing.T, tmx *testtmux.Server, pane string) {
	t.Helper()
	tty := strings.TrimSpace(tmx.Tmux("display-message", "-p", "-t", pane, "#{pane_tty}"))
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if m, err := termstate.ReadMode(tty); err == nil && m.Hidden() {
			return
		}
	}
	t.Fatalf("pane %s never hid its input", pane)
}

func waitScreen(t *testing.T, tmx *testtmux.Server, pane, want string) string {
	t.Helper()
	var screen string
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if screen = tmx.Tmux("capture-pane", "-p", "-t", pane); strings.Contains(screen, want) {
			return screen
		}
	}
	t.Fatalf("pane %s never showed %q:\n%s", pane, want, screen)
	return ""
}

func callJSON(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	b, _ := json.Marshal(res)
	if strings.Contains(string(b), testSecret) {
		t.Fatalf("%s: the secret is in the result: %s", tool, b)
	}
	return res, string(b)
}

// type_secret on both generations and both kinds of transport: the person's secret reaches
// the program (its length is right), the result says typed and how many bytes, and the
// secret is nowhere in a result or the audit log, which records the typing.
func TestTypeSecret(t *testing.T) {
	for _, kind := range []string{"stream", "http"} {
		for _, v := range []string{"2025-11-25", "2026-07-28"} {
			t.Run(kind+"/"+v, func(t *testing.T) {
				tmx := testtmux.New(t)
				_, pane := tmx.NewSession("s")
				audit := filepath.Join(t.TempDir(), "audit.log")
				s, err := New(Options{SocketPath: tmx.Socket, Env: tmx.Env, Safety: policy.Mutating, Audit: audit})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(s.Close)
				var pageErr error
				pc := &pageClient{urlMode: true, open: func(u string) {
					code, body, err := submitPage(u, testSecret, nil)
					if err == nil && code != 200 {
						err = fmt.Errorf("submit: %d %s", code, body)
					}
					pageErr = err
				}}
				cs := pc.connect(t, s, kind, v)
				hiddenPrompt(t, tmx, pane)
				res, text := callJSON(t, cs, "type_secret", map[string]any{"pane_id": pane, "message": "sudo for apt"})
				if res.IsError || pageErr != nil {
					t.Fatalf("%s (page: %v)", text, pageErr)
				}
				var out TypeSecretOut
				if err := Structured(res, &out); err != nil || out != (TypeSecretOut{PaneID: pane, Typed: true, Bytes: len(testSecret)}) {
					t.Errorf("result %+v (%v)", out, err)
				}
				waitScreen(t, tmx, pane, fmt.Sprintf("len=%d", len(testSecret)))
				s.Close()
				b, _ := os.ReadFile(audit)
				if strings.Contains(string(b), testSecret) || !strings.Contains(string(b), fmt.Sprintf(`"event":"secret_typed","pane":"%s","bytes":%d`, pane, len(testSecret))) {
					t.Errorf("audit:\n%s", b)
				}
			})
		}
	}
}

// What type_secret refuses, in words: a client that cannot open a page (how the person types
// it themselves instead), a pane that shows what is typed, a question declined.
func TestTypeSecretRefusals(t *testing.T) {
	tmx := testtmux.New(t)
	_, pane := tmx.NewSession("s")
	s, err := New(Options{SocketPath: tmx.Socket, Env: tmx.Env, Safety: policy.Mutating})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	tmx.WaitPrompt(pane)
	formOnly := (&pageClient{}).connect(t, s, "stream", "2025-11-25")
	res, text := callJSON(t, formOnly, "type_secret", map[string]any{"pane_id": pane})
	if !res.IsError || !strings.Contains(text, "attach -t 's'") || !strings.Contains(text, "URL-mode elicitation") {
		t.Errorf("a client without URL elicitation: %s", text)
	}
	pc := &pageClient{urlMode: true, open: func(string) { t.Error("a page was opened") }}
	cs := pc.connect(t, s, "stream", "2025-11-25")
	res, text = callJSON(t, cs, "type_secret", map[string]any{"pane_id": pane})
	if !res.IsError || !strings.Contains(text, "does not wait for hidden input") {
		t.Errorf("a pane at its prompt: %s", text)
	}
	hiddenPrompt(t, tmx, pane)
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		for _, action := range []string{"decline", "cancel"} {
			no := (&pageClient{urlMode: true, action: action}).connect(t, s, "stream", v)
			res, text = callJSON(t, no, "type_secret", map[string]any{"pane_id": pane})
			if !res.IsError || !strings.Contains(text, "did not open the page") || !strings.Contains(text, action) {
				t.Errorf("%s %s: %s", v, action, text)
			}
		}
	}
	tmx.Tmux("send-keys", "-t", pane, "C-c")
}

// The page itself: no-store, a form without script, one secret once; a cross-site post, a
// post without the form's token, another Host and a second submit are refused and type
// nothing; it expires; its listener closes after the submit.
func TestSecretPage(t *testing.T) {
	var typed []string
	var mu sync.Mutex
	typeFn := func(s string) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		typed = append(typed, s)
		return len(s), nil
	}
	pg, err := openSecretPage("%7", "sudo", "[sudo] password for ada:", "<b>apt</b>", typeFn)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Get(pg.url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	page := string(body)
	if res.Header.Get("Cache-Control") != "no-store" || !strings.Contains(page, "%7") || !strings.Contains(page, "sudo") ||
		!strings.Contains(page, "&lt;b&gt;apt&lt;/b&gt;") || strings.Contains(page, "<script") || !strings.Contains(page, `type="password"`) {
		t.Errorf("the page (%v):\n%s", res.Header, page)
	}
	if res, err := http.Get("http://" + pg.addr + "/secret/wrong"); err != nil || res.StatusCode != 404 {
		t.Errorf("another path: %v %v", res, err)
	}
	for name, h := range map[string]map[string]string{
		"cross-site":     {"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"},
		"another origin": {"Origin": "http://localhost:1"},
		"same-site":      {"Sec-Fetch-Site": "same-site"},
		"no token":       {"X-Drop-Token": "1"},
	} {
		u := pg.url
		if name == "no token" {
			req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader("secret=x"))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			res, err := http.DefaultClient.Do(req)
			if err != nil || res.StatusCode != 403 {
				t.Errorf("%s: %v %v", name, res, err)
			}
			continue
		}
		if code, body, err := submitPage(u, "forged", h); err != nil || code != 403 {
			t.Errorf("%s: %d %v %s", name, code, err, body)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, pg.url, nil)
	req.Host = "attacker.example:80"
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != 403 {
		t.Errorf("another Host: %v %v", res, err)
	}
	if code, body, _ := submitPage(pg.url, "two\nlines", nil); code != 400 || !strings.Contains(body, "line break") {
		t.Errorf("a line break: %d %s", code, body)
	}
	if len(typed) != 0 {
		t.Fatalf("typed %q before a valid submit", typed)
	}
	if code, body, err := submitPage(pg.url, testSecret, nil); err != nil || code != 200 || !strings.Contains(body, fmt.Sprintf("%d bytes", len(testSecret))) || strings.Contains(body, testSecret) {
		t.Errorf("the submit: %d %v %s", code, err, body)
	}
	<-pg.done
	if n, err := pg.result(); n != len(testSecret) || err != nil {
		t.Errorf("result %d %v", n, err)
	}
	// The listener closes once the answer is out; until then a second submit is refused.
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", pg.addr, time.Second)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("the listener is still open")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, _, err := submitPage(pg.url, "again", nil); err == nil {
		t.Error("a second submit reached the page")
	}
	if len(typed) != 1 || typed[0] != testSecret {
		t.Errorf("typed %q", typed)
	}

	// A second submit while the page is still up (the first one's answer not out yet).
	pg2, _ := openSecretPage("%8", "ssh", "", "", typeFn)
	res, _ = http.Get(pg2.url)
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	csrf := csrfRE.FindStringSubmatch(string(body))[1]
	post := func() int {
		req, _ := http.NewRequest(http.MethodPost, pg2.url, strings.NewReader(url.Values{"csrf": {csrf}, "secret": {"s3"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0 // closed: also refused
		}
		res.Body.Close()
		return res.StatusCode
	}
	if a, b := post(), post(); a != 200 || (b != 410 && b != 0) {
		t.Errorf("two submits: %d then %d", a, b)
	}
	if len(typed) != 2 {
		t.Errorf("typed %d times", len(typed))
	}

	// Expiry.
	old := secretTTL
	secretTTL = 100 * time.Millisecond
	defer func() { secretTTL = old }()
	pg3, _ := openSecretPage("%9", "gpg", "", "", typeFn)
	select {
	case <-pg3.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the page did not expire")
	}
	if _, err := pg3.result(); !errors.Is(err, errPageExpired) {
		t.Errorf("expired: %v", err)
	}
	if code, _, _ := submitPage(pg3.url, "late", nil); code == 200 {
		t.Error("an expired page took a secret")
	}
	if len(typed) != 2 {
		t.Errorf("typed %d times", len(typed))
	}
}

// A run that blocks on hidden input asks the person itself (both generations) and goes on;
// LIBTMUX_MCP_SECRETS=off and a declined question return waiting_for_input with input_hidden.
func TestRunAsksForSecret(t *testing.T) {
	const cmd = `read -r -s -p 'Password: ' pw; echo; echo "len=${#pw}"`
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) {
			s, tmx, pane := newTestServer(t, policy.Mutating)
			tmx.WaitPrompt(pane)
			pc := &pageClient{urlMode: true, open: func(u string) { submitPage(u, testSecret, nil) }}
			cs := pc.connect(t, s, "stream", v)
			res, text := callJSON(t, cs, "run_command", map[string]any{"pane_id": pane, "command": cmd, "timeout": 60})
			var out runCommandOut
			if err := Structured(res, &out); err != nil || res.IsError || out.ExitStatus == nil || *out.ExitStatus != 0 ||
				!strings.Contains(strings.Join(out.Output, "\n"), fmt.Sprintf("len=%d", len(testSecret))) {
				t.Fatalf("%s", text)
			}
			// The run waited a quiet second before it asked: the round that returns (on
			// 2026-07-28, a later one than the run's) reports the run's time, not its own.
			if out.ElapsedSeconds < 0.5 {
				t.Errorf("elapsed_seconds %v, less than the run took", out.ElapsedSeconds)
			}
			// run_shell_command: the same, its text and structured half both without the secret.
			res, text = callJSON(t, cs, "run_shell_command", map[string]any{"paneId": pane, "command": cmd, "timeoutMs": 60000})
			if res.IsError || !strings.Contains(text, fmt.Sprintf("len=%d", len(testSecret))) {
				t.Fatalf("%s", text)
			}
		})
	}
	t.Run("off and declined", func(t *testing.T) {
		tmx := testtmux.New(t)
		_, pane := tmx.NewSession("s")
		s, err := New(Options{SocketPath: tmx.Socket, Env: tmx.Env, Safety: policy.Mutating, Secrets: "off"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		tmx.WaitPrompt(pane)
		pc := &pageClient{urlMode: true, open: func(string) { t.Error("asked with LIBTMUX_MCP_SECRETS=off") }}
		cs := pc.connect(t, s, "stream", "2025-11-25")
		res, text := callJSON(t, cs, "run_command", map[string]any{"pane_id": pane, "command": cmd, "timeout": 60})
		var out runCommandOut
		if err := Structured(res, &out); err != nil || !out.WaitingForInput || !out.InputHidden || !strings.Contains(out.InputHint, "type_secret") {
			t.Fatalf("%s", text)
		}
		res, text = callJSON(t, cs, "get_pane_info", map[string]any{"pane_id": pane})
		if !strings.Contains(text, `"input_hidden":true`) {
			t.Errorf("get_pane_info: %s", text)
		}
		res, text = callJSON(t, cs, "snapshot_pane", map[string]any{"pane_id": pane})
		if !strings.Contains(text, `"input_hidden":true`) {
			t.Errorf("snapshot_pane: %s", text)
		}
		tmx.Tmux("send-keys", "-t", pane, "C-c")
		s2, err := New(Options{SocketPath: tmx.Socket, Env: tmx.Env, Safety: policy.Mutating})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s2.Close)
		tmx.WaitPrompt(pane)
		for _, v := range []string{"2025-11-25", "2026-07-28"} {
			no := (&pageClient{urlMode: true, action: "decline"}).connect(t, s2, "stream", v)
			res, text = callJSON(t, no, "run_shell_command", map[string]any{"paneId": pane, "command": cmd, "timeoutMs": 60000})
			if res.IsError || !strings.Contains(text, "input_hidden") || !strings.Contains(text, "type_secret") {
				t.Errorf("%s declined: %s", v, text)
			}
			tmx.Tmux("send-keys", "-t", pane, "C-c")
			callJSON(t, no, "wait_for_run", map[string]any{"pane_id": pane, "timeout": 20})
			tmx.WaitPrompt(pane)
		}
	})
}

// A secret is never typed into a pane whose keys tmux copies to other panes (synchronize-panes):
// their shells would show it. Refused before a page opens, and when synchronize-panes was
// turned on while the page was open.
func TestTypeSecretSynchronized(t *testing.T) {
	tmx := testtmux.New(t)
	_, pane := tmx.NewSession("s")
	other := tmx.SplitWindow(pane)
	s, err := New(Options{SocketPath: tmx.Socket, Env: tmx.Env, Safety: policy.Mutating})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	hiddenPrompt(t, tmx, pane)
	syncOn := func(v string) { tmx.Tmux("set-option", "-w", "-t", pane, "synchronize-panes", v) }
	syncOn("on")
	cs := (&pageClient{urlMode: true, open: func(string) { t.Error("a page was opened") }}).connect(t, s, "stream", "2025-11-25")
	res, text := callJSON(t, cs, "type_secret", map[string]any{"pane_id": pane})
	if !res.IsError || !strings.Contains(text, "synchronize-panes") {
		t.Errorf("a synchronized pane: want a refusal, got %s", text)
	}
	syncOn("off")
	var submitted string
	late := (&pageClient{urlMode: true, open: func(u string) {
		syncOn("on")
		_, submitted, _ = submitPage(u, testSecret, nil)
	}}).connect(t, s, "stream", "2025-11-25")
	res, text = callJSON(t, late, "type_secret", map[string]any{"pane_id": pane})
	if !res.IsError || !strings.Contains(submitted, "synchronize-panes") {
		t.Errorf("synchronize-panes turned on while the page was open: want nothing typed, got %s (page: %s)", text, submitted)
	}
	if screen := tmx.Tmux("capture-pane", "-p", "-t", other); strings.Contains(screen, testSecret) {
		t.Errorf("the secret shows in the other pane:\n%s", screen)
	}
	syncOn("off")
	tmx.Tmux("send-keys", "-t", pane, "C-c")
}

// A person who declines (or cancels) the page is not asked again by the same call: a run
// waiting for a password used to open a new page after each refusal, three in a row.
func TestRunAsksOnceWhenDeclined(t *testing.T) {
	const cmd = `read -r -s -p 'Password: ' pw; echo; echo "len=${#pw}"`
	s, tmx, pane := newTestServer(t, policy.Mutating)
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		for _, action := range []string{"decline", "cancel"} {
			tmx.WaitPrompt(pane)
			pc := &pageClient{urlMode: true, action: action}
			cs := pc.connect(t, s, "stream", v)
			res, text := callJSON(t, cs, "run_command", map[string]any{"pane_id": pane, "command": cmd, "timeout": 60})
			var out runCommandOut
			if err := Structured(res, &out); err != nil || !out.WaitingForInput || !out.InputHidden {
				t.Fatalf("%s %s: want the run waiting for hidden input: %s", v, action, text)
			}
			pc.mu.Lock()
			asked := len(pc.asked)
			pc.mu.Unlock()
			if asked != 1 {
				t.Errorf("%s %s: the person was asked %d times in one call, want once", v, action, asked)
			}
			tmx.Tmux("send-keys", "-t", pane, "C-c")
			callJSON(t, cs, "wait_for_run", map[string]any{"pane_id": pane, "timeout": 20})
		}
	}
}

// A client that cannot open the page is told how the person types the secret in tmux, not to
// call type_secret, which would only refuse; run_shell_command's text says the same.
func TestHiddenHintWithoutPages(t *testing.T) {
	const cmd = `read -r -s -p 'Password: ' pw; echo; echo "len=${#pw}"`
	s, tmx, pane := newTestServer(t, policy.Mutating)
	tmx.WaitPrompt(pane)
	cs := (&pageClient{noElicit: true}).connect(t, s, "stream", "2025-11-25")
	res, text := callJSON(t, cs, "run_command", map[string]any{"pane_id": pane, "command": cmd, "timeout": 60})
	var out runCommandOut
	if err := Structured(res, &out); err != nil || !out.InputHidden {
		t.Fatalf("want the run waiting for hidden input: %s", text)
	}
	for _, hint := range []string{out.InputHint, resultText(mustCall(t, cs, "wait_for_run", map[string]any{"pane_id": pane, "timeout": 0}))} {
		if strings.Contains(hint, "type_secret pane_id") || !strings.Contains(hint, "attach -t") || !strings.Contains(hint, pane) || !strings.Contains(hint, "detach") {
			t.Errorf("the hint for a client without pages: %s", hint)
		}
	}
	tmx.Tmux("send-keys", "-t", pane, "C-c")
	callJSON(t, cs, "wait_for_run", map[string]any{"pane_id": pane, "timeout": 20})
	tmx.WaitPrompt(pane)
	_, text = callJSON(t, cs, "run_shell_command", map[string]any{"paneId": pane, "command": cmd, "timeoutMs": 60000})
	if strings.Contains(text, "type_secret pane_id") || !strings.Contains(text, "attach -t") {
		t.Errorf("run_shell_command's hint for a client without pages: %s", text)
	}
	tmx.Tmux("send-keys", "-t", pane, "C-c")
	callJSON(t, cs, "wait_for_run", map[string]any{"pane_id": pane, "timeout": 20})
}

func mustCall(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, _ := callJSON(t, cs, tool, args)
	return res
}

// gpg asks for a passphrase in pinentry's dialog (pinentry-curses, started by gpg-agent):
// keys one at a time with echo off, not hidden input by the terminal's mode alone. The run
// has the person type it on the page, both times gpg asks, and it was reported as a program
// reading keys (a pager, an editor), inviting the agent to type the passphrase itself.
func TestRunAsksForGPGPassphrase(t *testing.T) {
	for _, prog := range []string{"gpg", "gpgconf", "gpg-agent", "pinentry-curses"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s is not installed", prog)
		}
	}
	const pass = "Kq8-mZ2vP9x-long-Passphrase"
	s, tmx, pane := newTestServer(t, policy.Mutating)
	home := filepath.Join(tmx.Dir, "gnupg")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { exec.Command("gpgconf", "--homedir", home, "--kill", "gpg-agent").Run() })
	plain := filepath.Join(tmx.Dir, "plain.txt")
	os.WriteFile(plain, []byte("hello\n"), 0o600)
	tmx.WaitPrompt(pane)
	pc := &pageClient{urlMode: true, open: func(u string) { submitPage(u, pass, nil) }}
	cs := pc.connect(t, s, "stream", "2025-11-25")
	cmd := fmt.Sprintf("export GNUPGHOME=%s GPG_TTY=$(tty); gpg -c -o %s.gpg %s && echo encrypted", home, plain, plain)
	res, text := callJSON(t, cs, "run_command", map[string]any{"pane_id": pane, "command": cmd, "timeout": 60})
	var out runCommandOut
	if err := Structured(res, &out); err != nil || out.ExitStatus == nil || *out.ExitStatus != 0 || !strings.Contains(strings.Join(out.Output, "\n"), "encrypted") {
		t.Fatalf("gpg under pinentry: %s", text)
	}
	pc.mu.Lock()
	n := len(pc.asked)
	pc.mu.Unlock()
	if n != 2 {
		t.Errorf("the person was asked %d times, want twice (the passphrase, then again)", n)
	}
	exec.Command("gpgconf", "--homedir", home, "--kill", "gpg-agent").Run()
	b, err := exec.Command("gpg", "--homedir", home, "--batch", "--pinentry-mode", "loopback", "--passphrase", pass, "-d", plain+".gpg").Output()
	if err != nil || string(b) != "hello\n" {
		t.Errorf("the file does not decrypt with the passphrase typed: %q %v", b, err)
	}
}
