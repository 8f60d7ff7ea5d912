package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// resourceNames are session names of every character class create_session accepts: each
// printable ASCII character but ':', '.' and '\' (a '$' only before what is not a letter, _ or
// {), the names of the adversarial run, percent signs that look like encodings, and UTF-8.
func resourceNames() []string {
	var all strings.Builder
	for c := byte(' '); c < 0x7f; c++ {
		switch c {
		case ':', '.', '\\':
		case '$':
			all.WriteString("$1")
		default:
			all.WriteByte(c)
		}
	}
	return []string{
		all.String(),
		"a/b", "x';y", "$(z)-r", "#(z)-r", "#{?1,a,b}-r", "`id`", "semi;colon&and=eq",
		"my work", "plus+sign", "tilde~under_dash-", "pct%2Fb", "pct%zz", "100%", "q?x#y", "/lead", "trail/",
		"é日本🙂", "\u00a0nbsp", "{session_name}", "x*!()'",
	}
}

// rfc6570 expands a {var} of a URI template as RFC 6570 does: every byte of the UTF-8 value
// that is not unreserved is percent-encoded.
func rfc6570(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// encodeURIComponent is what JavaScript clients (the TypeScript SDK's UriTemplate) send:
// RFC 6570, but !'()* are left as they are.
func encodeURIComponent(v string) string {
	s := rfc6570(v)
	for _, c := range "!'()*" {
		s = strings.ReplaceAll(s, fmt.Sprintf("%%%02X", c), string(c))
	}
	return s
}

// TestResourceNamesReadBack: every session URI that resources/list hands out, or that a client
// expands from a template with a completed session_name, reads back the session, whatever the
// name holds.
func TestResourceNamesReadBack(t *testing.T) {
	c := start(t)
	ids := map[string]string{}
	for _, name := range resourceNames() {
		var sess struct {
			SessionID string `json:"session_id"`
		}
		c.OK("create_session", map[string]any{"session_name": name}, &sess)
		ids[name] = sess.SessionID
	}
	readsAs := func(uri, name string) {
		t.Helper()
		res, err := readResource(t, c, uri)
		if err != nil {
			t.Errorf("session %q: reading %s: %v", name, uri, err)
			return
		}
		var got struct {
			SessionID   string `json:"session_id"`
			SessionName string `json:"session_name"`
		}
		var wins []struct {
			SessionID  string `json:"session_id"`
			WindowName string `json:"window_name"`
		}
		text := res.Contents[0].Text
		path, _, _ := strings.Cut(uri, "?")
		if strings.HasSuffix(path, "/windows") {
			if err := json.Unmarshal([]byte(text), &wins); err != nil || len(wins) != 1 {
				t.Errorf("session %q: %s: %v %s", name, uri, err, text)
			}
			return
		}
		if err := json.Unmarshal([]byte(text), &got); err != nil {
			t.Errorf("session %q: %s: %v %s", name, uri, err, text)
		}
		if got.SessionID != ids[name] || got.SessionName != name {
			t.Errorf("session %q: %s read as %+v", name, uri, got)
		}
		if strings.HasSuffix(path, "/windows/0") {
			return
		}
		if got.SessionID != ids[name] || got.SessionName != name || res.Contents[0].URI != uri {
			t.Errorf("session %q: %s read as %+v, uri %s", name, uri, got, res.Contents[0].URI)
		}
	}

	// What resources/list hands out.
	listed := map[string]bool{}
	for r, err := range c.CS.Resources(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		listed[r.URI] = true
	}
	for name := range ids {
		base := "tmux://sessions/" + rfc6570(name)
		for _, uri := range []string{base, base + "/windows", base + "/windows/0"} {
			if !listed[uri] {
				t.Errorf("session %q: %s is not listed as RFC 6570 encodes it", name, uri)
			}
			readsAs(uri, name)
			readsAs(uri+"?socket_name=", name)
		}
		// As a JavaScript client expands the template.
		readsAs("tmux://sessions/"+encodeURIComponent(name), name)
		readsAs("tmux://sessions/"+encodeURIComponent(name)+"/windows", name)
	}
	for uri := range listed {
		if _, err := readResource(t, c, uri); err != nil {
			t.Errorf("listed %s: %v", uri, err)
		}
	}

	// What completion/complete hands out, expanded into the template as a client does.
	ref := &mcp.CompleteReference{Type: "ref/resource", URI: "tmux://sessions/{session_name}{?socket_name}"}
	res, err := c.CS.Complete(context.Background(), &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: "session_name"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Completion.Values) != len(ids) {
		t.Errorf("completed %d session names, want %d: %q", len(res.Completion.Values), len(ids), res.Completion.Values)
	}
	for _, name := range res.Completion.Values {
		if ids[name] == "" {
			t.Errorf("completion %q is no session's name", name)
			continue
		}
		readsAs("tmux://sessions/"+rfc6570(name), name)
	}

	// A decoded name is the name: '+' is not a space, and %-sequences decode once.
	for uri, want := range map[string]string{
		"tmux://sessions/plus+sign":                 "plus+sign",
		"tmux://sessions/pct%252Fb":                 "pct%2Fb",
		"tmux://sessions/my%20work":                 "my work",
		"tmux://sessions/" + url.PathEscape("x';y"): "x';y",
	} {
		readsAs(uri, want)
	}
}

// TestBlankPaneContentHasText: the content of a pane with nothing on it is sent with
// "text":"" (the TypeScript SDK rejects a text resource without it), over the raw wire.
func TestBlankPaneContentHasText(t *testing.T) {
	s := startRaw(t)
	pane := strings.TrimSpace(s.tmx.Tmux("new-session", "-d", "-P", "-F", "#{pane_id}", "-x", "80", "-y", "24", "sleep 100000"))
	for i, uri := range []string{"tmux://panes/" + pane + "/content", "tmux://panes/" + rfc6570(pane) + "/content"} {
		b, _ := json.Marshal(uri)
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":%s}}`, i+1, b))
		r := s.recv()
		var res struct {
			Contents []map[string]json.RawMessage `json:"contents"`
		}
		if err := json.Unmarshal(r["result"], &res); err != nil || len(res.Contents) != 1 {
			t.Fatalf("%s: %s %v", uri, r["result"], err)
		}
		c := res.Contents[0]
		if string(c["text"]) != `""` || string(c["uri"]) != string(b) || string(c["mimeType"]) != `"text/plain"` {
			t.Errorf("%s: contents %s, want text \"\"", uri, r["result"])
		}
	}
}
