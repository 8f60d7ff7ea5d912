package e2e

import (
	"context"
	"encoding/json"
	"net/url"
	"os/exec"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// notes records the resource notifications a client receives.
type notes struct {
	mu      sync.Mutex
	updated map[string][]time.Time
	listed  []time.Time
	changed chan struct{} // capacity 1: something arrived
}

func (n *notes) kick() {
	select {
	case n.changed <- struct{}{}:
	default:
	}
}

func (n *notes) updates(uri string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.updated[uri])
}

func (n *notes) lists() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.listed)
}

// waitFor waits until cond holds or d passed.
func (n *notes) waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.After(d)
	for !cond() {
		select {
		case <-n.changed:
		case <-deadline:
			return cond()
		}
	}
	return true
}

// startNotes runs tmux-mcp with a client that records resource notifications.
func startNotes(t *testing.T, env ...string) (*Client, *notes) {
	t.Helper()
	tmx := testtmux.New(t)
	n := &notes{updated: map[string][]time.Time{}, changed: make(chan struct{}, 1)}
	cmd := exec.Command(binary)
	cmd.Env = append(append([]string{}, tmx.Env...), "LIBTMUX_SOCKET_PATH="+tmx.Socket)
	cmd.Env = append(cmd.Env, env...)
	return connectOpts(t, tmx, cmd, n.options()), n
}

// options are client options whose handlers record the notifications in n.
func (n *notes) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			n.mu.Lock()
			n.updated[req.Params.URI] = append(n.updated[req.Params.URI], time.Now())
			n.mu.Unlock()
			n.kick()
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			n.mu.Lock()
			n.listed = append(n.listed, time.Now())
			n.mu.Unlock()
			n.kick()
		},
	}
}

func readResource(t *testing.T, c *Client, uri string) (*mcp.ReadResourceResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.CS.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
}

func TestResourceTemplates(t *testing.T) {
	c := start(t)
	got := map[string]*mcp.ResourceTemplate{}
	for tpl, err := range c.CS.ResourceTemplates(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		got[tpl.Name] = tpl
	}
	seed := seedJSON(t, "get_pane_content", "")
	if g := asJSON(t, got["get_pane_content"]); !reflect.DeepEqual(g, seed) {
		b, _ := json.MarshalIndent(g, "", "  ")
		t.Errorf("get_pane_content differs from seed 001:\n%s", b)
	}
	for name, tpl := range map[string]string{
		"get_sessions":        "tmux://sessions{?socket_name}",
		"get_session":         "tmux://sessions/{session_name}{?socket_name}",
		"get_session_windows": "tmux://sessions/{session_name}/windows{?socket_name}",
		"get_window":          "tmux://sessions/{session_name}/windows/{window_index}{?socket_name}",
		"get_pane":            "tmux://panes/{pane_id}{?socket_name}",
	} {
		if g := got[name]; g == nil || g.URITemplate != tpl || g.MIMEType != "application/json" || g.Title == "" {
			t.Errorf("%s = %+v", name, g)
		}
	}
	caps := c.CS.InitializeResult().Capabilities
	if caps.Resources == nil || !caps.Resources.Subscribe || !caps.Resources.ListChanged || caps.Completions == nil {
		t.Errorf("capabilities: %+v", caps.Resources)
	}
}

func TestResourceRead(t *testing.T) {
	c := start(t)
	sid, p := c.Tmx.NewSession("my work")
	c.Tmx.NewWindow(sid)
	c.Tmx.Tmux("send-keys", "-t", p, "echo resource-text", "Enter")
	c.Tmx.WaitFor(p, func(s string) bool { return strings.Contains(s, "\nresource-text\n") })

	// The content template, with the pane id raw and percent-encoded.
	for _, uri := range []string{"tmux://panes/" + p + "/content", "tmux://panes/" + strings.Replace(p, "%", "%25", 1) + "/content", "tmux://panes/" + p + "/content?socket_name="} {
		res, err := readResource(t, c, uri)
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		if len(res.Contents) != 1 || res.Contents[0].MIMEType != "text/plain" || res.Contents[0].URI != uri ||
			!strings.Contains(res.Contents[0].Text, "\nresource-text\n$") || strings.HasSuffix(res.Contents[0].Text, "\n") {
			t.Errorf("%s: %+v", uri, res.Contents[0])
		}
	}
	// JSON resources.
	jsonOf := func(uri string, v any) {
		t.Helper()
		res, err := readResource(t, c, uri)
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		if res.Contents[0].MIMEType != "application/json" {
			t.Errorf("%s: mime %s", uri, res.Contents[0].MIMEType)
		}
		if err := json.Unmarshal([]byte(res.Contents[0].Text), v); err != nil {
			t.Fatalf("%s: %v: %s", uri, err, res.Contents[0].Text)
		}
	}
	var sessions []session
	jsonOf("tmux://sessions", &sessions)
	if len(sessions) != 1 || sessions[0].SessionName != "my work" {
		t.Errorf("sessions = %+v", sessions)
	}
	var sess struct {
		session
		Windows []window
	}
	jsonOf("tmux://sessions/my%20work", &sess)
	if sess.SessionID != sid || len(sess.Windows) != 2 {
		t.Errorf("session = %+v", sess)
	}
	var wins []window
	jsonOf("tmux://sessions/my%20work/windows", &wins)
	if len(wins) != 2 {
		t.Errorf("windows = %+v", wins)
	}
	var win struct {
		window
		Panes []pane
	}
	jsonOf("tmux://sessions/my%20work/windows/1", &win)
	if win.WindowIndex != 1 || len(win.Panes) != 1 {
		t.Errorf("window = %+v", win)
	}
	var pn pane
	jsonOf("tmux://panes/"+p, &pn)
	if pn.PaneID != p || pn.SessionID != sid {
		t.Errorf("pane = %+v", pn)
	}
	jsonOf("tmux://panes/%25"+p[1:]+"?socket_name=", &pn)
	if pn.PaneID != p {
		t.Errorf("encoded pane = %+v", pn)
	}

	// Misses name what is missing; malformed URIs are refused.
	for uri, want := range map[string]string{
		"tmux://panes/%999/content":           "no pane %999",
		"tmux://panes/%25999":                 "no pane %999",
		"tmux://sessions/nope":                `no session is named "nope"`,
		"tmux://sessions/my%20work/windows/7": "no window at index 7",
		"tmux://sessions/nope/windows":        `no session is named "nope"`,
		"tmux://panes/x1/content":             "not a pane id",
		"tmux://sessions/s/windows/x":         "not a window index",
		"tmux://elsewhere":                    "no resource has the path",
	} {
		_, err := readResource(t, c, uri)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one mentioning %q", uri, err, want)
		}
	}
	// Another socket that has no server.
	if _, err := readResource(t, c, "tmux://panes/%251/content?socket_name=no-such-e2e-sock"); err == nil || !strings.Contains(err.Error(), "no tmux server") {
		t.Errorf("unknown socket: %v", err)
	}
}

func TestResourceSubscribe(t *testing.T) {
	c, n := startNotes(t)
	_, p := c.Tmx.NewSession("sub")
	quiet := c.Tmx.SplitWindow(p)
	ctx := context.Background()
	uri := "tmux://panes/" + p + "/content"
	quietURI := "tmux://panes/%25" + quiet[1:] + "/content"
	if err := c.CS.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	if err := c.CS.Subscribe(ctx, &mcp.SubscribeParams{URI: quietURI}); err != nil {
		t.Fatal(err)
	}
	// Only content URIs of existing panes.
	if err := c.CS.Subscribe(ctx, &mcp.SubscribeParams{URI: "tmux://panes/%999/content"}); err == nil || !strings.Contains(err.Error(), "no pane %999") {
		t.Errorf("subscribe to a missing pane: %v", err)
	}
	if err := c.CS.Subscribe(ctx, &mcp.SubscribeParams{URI: "tmux://sessions"}); err == nil {
		t.Errorf("subscribe to tmux://sessions accepted")
	}
	time.Sleep(300 * time.Millisecond)
	base := n.updates(uri)

	sent := time.Now()
	c.Tmx.Tmux("send-keys", "-t", p, "echo hello", "Enter")
	if !n.waitFor(3*time.Second, func() bool { return n.updates(uri) > base }) {
		t.Fatalf("no notifications/resources/updated after the pane printed")
	}
	n.mu.Lock()
	t.Logf("resources/updated %v after send-keys was issued", n.updated[uri][base].Sub(sent))
	n.mu.Unlock()

	// A flood is coalesced to at most one notification every 250 ms.
	time.Sleep(400 * time.Millisecond)
	before := n.updates(uri)
	c.Tmx.Tmux("send-keys", "-t", p, "for i in $(seq 1 40); do echo $i; sleep 0.025; done", "Enter")
	time.Sleep(1500 * time.Millisecond)
	got := n.updates(uri) - before
	if got < 1 || got > 1500/250+2 {
		t.Errorf("%d notifications for 1.5 s of continuous output, want 1..8", got)
	}
	// Spaced by the server at least 250 ms apart; delivery jitter on a loaded machine can
	// bring two closer at the client, so allow some.
	n.mu.Lock()
	ts := n.updated[uri]
	for i := before + 1; i < len(ts); i++ {
		if d := ts[i].Sub(ts[i-1]); d < 100*time.Millisecond {
			t.Errorf("two notifications %v apart", d)
		}
	}
	n.mu.Unlock()
	if q := n.updates(quietURI); q != 0 {
		t.Errorf("%d notifications for a quiet pane", q)
	}

	// Unsubscribed: silence.
	if err := c.CS.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	after := n.updates(uri)
	c.Tmx.Tmux("send-keys", "-t", p, "echo again", "Enter")
	time.Sleep(700 * time.Millisecond)
	if n.updates(uri) != after {
		t.Errorf("notifications after unsubscribe")
	}
}

func TestResourceListChanged(t *testing.T) {
	c, n := startNotes(t)
	sid, p := c.Tmx.NewSession("one")
	other, _ := c.Tmx.NewSession("two")
	// Any resource request starts the topology watch.
	if _, err := readResource(t, c, "tmux://sessions"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond) // let the watch settle (tmux reports subscriptions each second)
	if k := n.lists(); k != 0 {
		t.Errorf("%d list_changed with nothing changed", k)
	}
	step := func(what string, act func()) {
		t.Helper()
		before := n.lists()
		t0 := time.Now()
		act()
		if !n.waitFor(4*time.Second, func() bool { return n.lists() > before }) {
			t.Errorf("%s: no notifications/resources/list_changed", what)
			return
		}
		t.Logf("%s: list_changed after %v", what, time.Since(t0))
	}
	step("new window", func() { c.Tmx.NewWindow(sid) })
	step("split in the other session", func() { c.Tmx.SplitWindow(other + ":") })
	step("new session", func() { c.Tmx.NewSession("three") })
	step("kill pane", func() { c.Tmx.Tmux("kill-pane", "-t", p) })
	step("kill session", func() { c.Tmx.Tmux("kill-session", "-t", "three") })
	// A resize is no topology change.
	time.Sleep(1200 * time.Millisecond)
	before := n.lists()
	c.Tmx.Tmux("resize-window", "-t", other+":", "-x", "100", "-y", "30")
	time.Sleep(1500 * time.Millisecond)
	if n.lists() != before {
		t.Errorf("list_changed after a resize")
	}
}

func TestCompletions(t *testing.T) {
	c := start(t)
	sid, p := c.Tmx.NewSession("alpha")
	c.Tmx.NewSession("beta")
	for i := 0; i < 12; i++ {
		c.Tmx.NewWindow(sid)
	}
	ctx := context.Background()
	complete := func(ref *mcp.CompleteReference, name, value string, args map[string]string) mcp.CompletionResultDetails {
		t.Helper()
		params := &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: name, Value: value}}
		if args != nil {
			params.Context = &mcp.CompleteContext{Arguments: args}
		}
		res, err := c.CS.Complete(ctx, params)
		if err != nil {
			t.Fatalf("complete %s=%q: %v", name, value, err)
		}
		if res.Completion.Values == nil {
			t.Errorf("complete %s=%q: values is nil", name, value)
		}
		return res.Completion
	}
	content := &mcp.CompleteReference{Type: "ref/resource", URI: "tmux://panes/{pane_id}/content{?socket_name}"}
	got := complete(content, "pane_id", "%", nil)
	if len(got.Values) != 14 || got.Values[0] != p || got.Total != 14 {
		t.Errorf("pane ids: %+v", got)
	}
	got = complete(content, "pane_id", "%1", nil)
	for _, v := range got.Values {
		if !strings.HasPrefix(v, "%1") {
			t.Errorf("prefix %%1: %v", got.Values)
		}
	}
	window := &mcp.CompleteReference{Type: "ref/resource", URI: "tmux://sessions/{session_name}/windows/{window_index}{?socket_name}"}
	if got = complete(window, "session_name", "al", nil); !reflect.DeepEqual(got.Values, []string{"alpha"}) {
		t.Errorf("session_name al: %v", got.Values)
	}
	if got = complete(window, "window_index", "1", map[string]string{"session_name": "alpha"}); !reflect.DeepEqual(got.Values, []string{"1", "10", "11", "12"}) {
		t.Errorf("window_index 1 in alpha: %v", got.Values)
	}
	if got = complete(window, "window_index", "", map[string]string{"session_name": "beta"}); !reflect.DeepEqual(got.Values, []string{"0"}) {
		t.Errorf("window_index in beta: %v", got.Values)
	}
	if got = complete(content, "pane_id", "%99", nil); len(got.Values) != 0 {
		t.Errorf("no match: %v", got.Values)
	}
	prompt := &mcp.CompleteReference{Type: "ref/prompt", Name: "run_and_wait"}
	if got = complete(prompt, "pane_id", "", nil); len(got.Values) != 14 {
		t.Errorf("prompt pane_id: %v", got.Values)
	}
	if got = complete(prompt, "command", "ls", nil); len(got.Values) != 0 {
		t.Errorf("prompt command: %v", got.Values)
	}
}

// TestResourceList: resources/list holds the live objects, each one readable, and follows
// tmux after list_changed.
func TestResourceList(t *testing.T) {
	c, n := startNotes(t)
	list := func() map[string]*mcp.Resource {
		t.Helper()
		got := map[string]*mcp.Resource{}
		for r, err := range c.CS.Resources(context.Background(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			got[r.URI] = r
		}
		return got
	}
	// No tmux server yet: only the (empty) session list.
	if got := list(); len(got) != 1 || got["tmux://sessions"] == nil {
		t.Errorf("with no server: %v", keys(got))
	}
	// The client keeps that list until list_changed: create_session on a server that was not
	// running must announce the change.
	before := n.lists()
	var sess struct {
		SessionID string `json:"session_id"`
	}
	c.OK("create_session", map[string]any{"session_name": "my work"}, &sess)
	if !n.waitFor(4*time.Second, func() bool { return n.lists() > before }) {
		t.Fatal("no list_changed after create_session started the server")
	}
	sid := sess.SessionID
	p := strings.TrimSpace(c.Tmx.Tmux("display-message", "-p", "-t", sid+":", "#{pane_id}"))
	got := list()
	for _, uri := range []string{"tmux://sessions", "tmux://sessions/my%20work", "tmux://sessions/my%20work/windows",
		"tmux://sessions/my%20work/windows/0", "tmux://panes/" + url.PathEscape(p), "tmux://panes/" + url.PathEscape(p) + "/content"} {
		r := got[uri]
		if r == nil || r.Name == "" || r.Title == "" || r.MIMEType == "" {
			t.Errorf("%s: %+v (listed: %v)", uri, r, keys(got))
			continue
		}
		res, err := readResource(t, c, uri)
		if err != nil || len(res.Contents) != 1 || res.Contents[0].MIMEType != r.MIMEType {
			t.Errorf("reading listed %s: %v %v", uri, res, err)
		}
	}
	if len(got) != 6 {
		t.Errorf("listed %d resources, want 6: %v", len(got), keys(got))
	}
	before = n.lists()
	p2 := c.Tmx.SplitWindow(sid + ":")
	if !n.waitFor(4*time.Second, func() bool { return n.lists() > before }) {
		t.Fatal("no list_changed after a split")
	}
	if got := list(); got["tmux://panes/"+url.PathEscape(p2)+"/content"] == nil {
		t.Errorf("the new pane %s is not listed: %v", p2, keys(got))
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
