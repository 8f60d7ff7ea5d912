package server

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

func schemaMap(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func canonical(t *testing.T, m map[string]any) string {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// dropHostOnly removes the host-only properties from a schema map, at every depth.
func dropHostOnly(v any) {
	switch x := v.(type) {
	case map[string]any:
		if props, ok := x["properties"].(map[string]any); ok {
			for _, p := range hostOnly {
				delete(props, p)
			}
		}
		for _, sub := range x {
			dropHostOnly(sub)
		}
	case []any:
		for _, sub := range x {
			dropHostOnly(sub)
		}
	}
}

// TestHostArgsOnlyWithHosts: a one-machine server advertises no host anywhere; with hosts,
// every tool that takes socket_name takes host (its description naming the hosts), results
// that name the socket name the host, the seeded tools keep their exact schemas, and nothing
// else changes.
func TestHostArgsOnlyWithHosts(t *testing.T) {
	one, err := New(Options{Safety: policy.Destructive})
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	many, err := New(Options{Safety: policy.Destructive, Hosts: []HostConfig{{"build", "me@build.example"}, {"gpu", "ssh://me@gpu:2222"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer many.Close()
	withHost := 0
	for _, t1 := range one.order {
		t2 := many.tools[t1.Name]
		in1, in2 := schemaMap(t, t1.inputSchema), schemaMap(t, t2.inputSchema)
		if strings.Contains(canonical(t, in1), `"host"`) || slices.Contains(t1.args, "host") {
			t.Errorf("%s: a one-machine server advertises host", t1.Name)
		}
		if t1.outputSchema != nil && strings.Contains(canonical(t, schemaMap(t, t1.outputSchema)), `"unreachable_hosts"`) {
			t.Errorf("%s: a one-machine server advertises unreachable_hosts", t1.Name)
		}
		switch {
		case t1.seedIn:
			if canonical(t, in1) != canonical(t, in2) || slices.Contains(t2.args, "host") {
				t.Errorf("%s: a seeded input schema changed with hosts", t1.Name)
			}
		case slices.Contains(t1.args, "socket_name"):
			withHost++
			h, _ := in2["properties"].(map[string]any)["host"].(map[string]any)
			if h == nil || !slices.Contains(t2.args, "host") {
				t.Errorf("%s: no host argument with hosts configured", t1.Name)
			} else if d, _ := h["description"].(string); !strings.Contains(d, "Configured: build, gpu, local.") {
				t.Errorf("%s: host description %q", t1.Name, d)
			}
			// The generated schema with host spliced in is what reflection gives.
			ref, _, _ := t1.inferHosts()
			ref.Properties["host"].Description += " Configured: build, gpu, local."
			if a, b := canonical(t, schemaMap(t, ref)), canonical(t, in2); a != b {
				t.Errorf("%s: spliced input schema differs from the reflected one:\n%s\n%s", t1.Name, b, a)
			}
		}
		dropHostOnly(in2)
		if canonical(t, in1) != canonical(t, in2) {
			t.Errorf("%s: the input schema changed beyond host:\n%s\n%s", t1.Name, canonical(t, in1), canonical(t, in2))
		}
		if t1.outputSchema == nil {
			continue
		}
		out1, out2 := schemaMap(t, t1.outputSchema), schemaMap(t, t2.outputSchema)
		if t1.seedOut && canonical(t, out1) != canonical(t, out2) {
			t.Errorf("%s: a seeded output schema changed with hosts", t1.Name)
		}
		dropHostOnly(out2)
		if canonical(t, out1) != canonical(t, out2) {
			t.Errorf("%s: the output schema changed beyond the host fields", t1.Name)
		}
	}
	if withHost < 40 {
		t.Errorf("only %d tools take host", withHost)
	}
	for name, want := range map[string][]string{"get_server_info": {`"host"`}, "list_servers": {`"unreachable_hosts"`}} {
		out := canonical(t, schemaMap(t, many.tools[name].outputSchema))
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output schema with hosts lacks %s: %s", name, w, out)
			}
		}
	}
	if d := many.tools["list_servers"].Description; !strings.Contains(d, "unreachable_hosts") || strings.Contains(one.tools["list_servers"].Description, "unreachable_hosts") {
		t.Errorf("list_servers descriptions: %q / %q", one.tools["list_servers"].Description, d)
	}
}

// TestHostRefused: a host that is not configured is refused naming those that are; a
// one-machine server takes no host at all.
func TestHostRefused(t *testing.T) {
	ctx := context.Background()
	one, _ := New(Options{})
	defer one.Close()
	many, _ := New(Options{Hosts: []HostConfig{{"build", "me@build"}}})
	defer many.Close()
	res, err := one.Call(ctx, "list_sessions", json.RawMessage(`{"host":"build"}`))
	if err != nil || !res.IsError || !strings.Contains(resultText(res), `"host"`) {
		t.Errorf("one-machine server, host given: %v %s", err, resultText(res))
	}
	res, err = many.Call(ctx, "list_sessions", json.RawMessage(`{"host":"nope"}`))
	if err != nil || !res.IsError || !strings.Contains(resultText(res), `host "nope" is not configured`) || !strings.Contains(resultText(res), "build, local") {
		t.Errorf("unknown host: %v %s", err, resultText(res))
	}
	res, err = many.Call(ctx, "snapshot_pane", json.RawMessage(`{"pane_id":"%1","host":"build"}`))
	if err != nil || !res.IsError || !strings.Contains(resultText(res), `"host"`) {
		t.Errorf("a seeded tool took host: %v %s", err, resultText(res))
	}
}

func TestHostOptions(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Hosts: []HostConfig{{"a", "x"}, {"a", "y"}}}, "twice"},
		{Options{Hosts: []HostConfig{{"local", "x"}}}, "this machine"},
		{Options{Hosts: []HostConfig{{"a b", "x"}}}, "letters"},
		{Options{Hosts: []HostConfig{{"a", "-oProxyCommand=evil"}}}, "option"},
		{Options{Hosts: []HostConfig{{"a", "x y"}}}, "blank"},
		{Options{Hosts: []HostConfig{{"a", "x"}}, DefaultHost: "b"}, "does not name"},
		{Options{DefaultHost: "b"}, "does not name"},
	} {
		if err := c.o.normalize(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
	for _, o := range []Options{{DefaultHost: "local"}, {Hosts: []HostConfig{{"a", "ssh://me@a:2222"}}, DefaultHost: "a"}} {
		if err := o.normalize(); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
	}
}

func TestResourceURIHost(t *testing.T) {
	u, err := parseResourceURI("tmux://panes/%251/content?socket_name=s&host=build")
	if err != nil || str(u.host) != "build" || str(u.socket) != "s" || u.kind != "content" {
		t.Errorf("%+v %v", u, err)
	}
	for in, want := range map[string]string{
		"tmux://panes/%251/content?host=b":             "tmux://panes/%251/content",
		"tmux://sessions?socket_name=x":                "tmux://sessions?socket_name=x",
		"tmux://sessions?socket_name=x&host=b":         "tmux://sessions",
		"tmux://sessions/a/windows":                    "tmux://sessions/a/windows",
		"tmux://panes/%251?host=b&socket_name=c&bad=1": "tmux://panes/%251",
	} {
		if got := matchURI(in); got != want {
			t.Errorf("matchURI(%s) = %s, want %s", in, got, want)
		}
	}
}
