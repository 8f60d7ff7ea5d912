package server

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/ssh"
)

// Hosts: tmux servers on other machines, reached over OpenSSH. An operator names
// them (LIBTMUX_MCP_HOSTS); every tool that takes socket_name then takes host too, by that
// name, and results that name the socket name the host. A one-machine server advertises none
// of it: the host arguments and result fields are left out of its schemas (hostOnly).

// LocalHost names this machine when hosts are configured.
const LocalHost = "local"

// HostConfig names one host: Destination is what ssh takes (user@host, a ~/.ssh/config alias,
// ssh://user@host:port).
type HostConfig struct {
	Name, Destination string
}

// hostOnly are the properties only a server with hosts advertises, wherever they appear in a
// tool's schemas: inferred schemas leave them out, and withHosts puts them back.
var hostOnly = []string{"host", "unreachable_hosts"}

// checkHosts validates the host settings.
func (o *Options) checkHosts() error {
	seen := map[string]bool{}
	for _, h := range o.Hosts {
		if err := ssh.CheckName(h.Name); err != nil {
			return fmt.Errorf("LIBTMUX_MCP_HOSTS: %v", err)
		}
		if h.Name == LocalHost {
			return fmt.Errorf("LIBTMUX_MCP_HOSTS: the name %q is taken: it means this machine", LocalHost)
		}
		if seen[h.Name] {
			return fmt.Errorf("LIBTMUX_MCP_HOSTS names host %q twice", h.Name)
		}
		seen[h.Name] = true
		if err := ssh.CheckDestination(h.Destination); err != nil {
			return fmt.Errorf("LIBTMUX_MCP_HOSTS: host %q: %v", h.Name, err)
		}
	}
	if d := o.DefaultHost; d != "" && d != LocalHost && !seen[d] {
		return fmt.Errorf("LIBTMUX_MCP_DEFAULT_HOST is %q, which LIBTMUX_MCP_HOSTS does not name (it names: %s)", d, strings.Join(o.hostNames(), ", "))
	}
	return nil
}

func (o *Options) hostNames() []string {
	names := make([]string, 0, len(o.Hosts)+1)
	for _, h := range o.Hosts {
		names = append(names, h.Name)
	}
	sort.Strings(names)
	return append(names, LocalHost)
}

// newHosts makes the ssh hosts of the options; the server closes them.
func newHosts(o *Options) map[string]*ssh.Host {
	hosts := map[string]*ssh.Host{}
	for _, h := range o.Hosts {
		hosts[h.Name] = &ssh.Host{Name: h.Name, Destination: h.Destination, ConfigFile: o.SSHConfig, ConnectTimeout: o.SSHConnectTimeout, Env: o.Env}
	}
	return hosts
}

// hostFor returns the ssh host a call's host argument names: nil for this machine.
func (s *Server) hostFor(host *string) (*ssh.Host, string, error) {
	name := s.opts.DefaultHost
	if host != nil && *host != "" {
		name = *host
	}
	if name == "" || name == LocalHost {
		return nil, LocalHost, nil
	}
	if h := s.hosts[name]; h != nil {
		return h, name, nil
	}
	if len(s.hosts) == 0 {
		return nil, "", fail("Omit host: this server reaches only this machine. To reach others, configure them with LIBTMUX_MCP_HOSTS (--hosts).",
			"host %q is not configured: no hosts are", truncate(name, 80))
	}
	return nil, "", fail("Pass one of the configured hosts ("+strings.Join(s.opts.hostNames(), ", ")+"), or null for the default.",
		"host %q is not configured", truncate(name, 80))
}

// hostLabel is what results say of the host: nil on a one-machine server (the field is not in
// its schemas), else the host's name or "local".
func (s *Server) hostLabel(ts *tmux.Server) *string {
	if len(s.hosts) == 0 {
		return nil
	}
	name := ts.HostName()
	if name == "" {
		name = LocalHost
	}
	return &name
}

// hostArg is implemented by the arguments of every tool that takes the host (Socket).
type hostArg interface{ hostArg() *string }

func (s *Socket) hostArg() *string { return s.Host }

// withHosts returns t as a server with hosts offers it: the host argument (described with the
// configured names) and host result fields in its schemas. A seed's exact schemas stay as they
// are, so a seeded tool reaches the default host. t itself is shared by every server of the
// process and is not changed.
func (t *Tool) withHosts(names []string) *Tool {
	desc := " Configured: " + strings.Join(names, ", ") + "."
	in, args, validator, hasIn := t.hostInput(desc)
	out, hasOut := t.hostOutput()
	if !hasIn && !hasOut {
		return t
	}
	nt := &Tool{
		Name: t.Name, Title: t.Title, Description: t.Description, Tier: t.Tier, Annotations: t.Annotations, Toolsets: t.Toolsets, Blocking: t.Blocking, Batch: t.Batch,
		inputSchema: t.inputSchema, outputSchema: t.outputSchema, validator: t.validator, args: t.args,
		key: t.key + "/hosts", infer: t.infer, inferHosts: t.inferHosts, fullOutput: t.fullOutput, seedIn: t.seedIn, seedOut: t.seedOut, call: t.call,
		hostsNote: t.hostsNote,
	}
	if t.hostsNote != "" {
		nt.Description += " " + t.hostsNote
	}
	if hasIn {
		nt.inputSchema, nt.args, nt.validator = in, args, validator
	}
	if hasOut {
		nt.outputSchema = out
	}
	return nt
}

// hostInput is t's input schema with the host argument, described with desc added: the
// generated schema's text with host put right after socket_name, or, for a tool added since
// schemas_gen.go was generated, the schema reflected from its types (splicing text is cheaper
// than reflecting every tool's types again at each start; docs/performance.md).
func (t *Tool) hostInput(desc string) (schema any, args []string, validator func() (*jsonschema.Resolved, error), ok bool) {
	if t.seedIn || !slices.Contains(t.args, "socket_name") {
		return nil, nil, nil, false
	}
	args = append(slices.Clone(t.args), "host")
	sort.Strings(args)
	sock, host := socketProps()
	if raw, isRaw := t.inputSchema.(json.RawMessage); isRaw {
		if i := bytes.Index(raw, sock); i >= 0 {
			h := *host
			h.Description += desc
			hb, err := json.Marshal(&h)
			if err == nil {
				j := i + len(sock)
				spliced := string(raw[:j]) + `,"host":` + string(hb) + string(raw[j:])
				return json.RawMessage(spliced), args, sync.OnceValues(func() (*jsonschema.Resolved, error) { return resolve(mustSchema(t.Name, spliced)) }), true
			}
		}
	}
	in, strict, _ := t.inferHosts()
	in.Properties["host"].Description += desc
	return in, args, sync.OnceValues(func() (*jsonschema.Resolved, error) { return resolve(strict) }), true
}

// socketProps returns the socket_name property as it appears in the generated input schemas
// (`"socket_name":{...}`), and the host property's schema, both inferred from Socket.
var socketProps = sync.OnceValues(func() ([]byte, *jsonschema.Schema) {
	s, err := jsonschema.For[Socket](&jsonschema.ForOptions{})
	if err != nil {
		panic(fmt.Sprintf("Socket's schema: %v", err))
	}
	nullDefaults(s)
	b, err := json.Marshal(s.Properties["socket_name"])
	if err != nil {
		panic(fmt.Sprintf("Socket's schema: %v", err))
	}
	return append([]byte(`"socket_name":`), b...), s.Properties["host"]
})

// hostOutput is t's output schema with the host-only fields, for a tool whose result has
// them (get_server_info's host, list_servers' unreachable_hosts): generated with the others,
// reflected only for a tool added since.
func (t *Tool) hostOutput() (any, bool) {
	if t.seedOut || t.outputSchema == nil {
		return nil, false
	}
	if g, ok := generatedSchemas[t.key]; ok {
		return json.RawMessage(g.hostOut), g.hostOut != ""
	}
	_, _, out := t.inferHosts()
	if out == nil || !hasHostOnly(out) {
		return nil, false
	}
	return out, true
}

// hasHostOnly reports whether a schema holds a host-only property at any depth.
func hasHostOnly(s *jsonschema.Schema) bool {
	found := false
	walkSchema(s, func(s *jsonschema.Schema) {
		for _, p := range hostOnly {
			if s.Properties[p] != nil {
				found = true
			}
		}
	})
	return found
}

// stripHostOnly removes the host-only properties from a schema at every depth.
func stripHostOnly(s *jsonschema.Schema) {
	walkSchema(s, func(s *jsonschema.Schema) {
		for _, p := range hostOnly {
			delete(s.Properties, p)
			s.Required = slices.DeleteFunc(s.Required, func(r string) bool { return r == p })
			s.PropertyOrder = slices.DeleteFunc(s.PropertyOrder, func(r string) bool { return r == p })
		}
	})
}

// walkSchema calls fn on s and on every schema inside it that describes an object's values.
func walkSchema(s *jsonschema.Schema, fn func(*jsonschema.Schema)) {
	if s == nil {
		return
	}
	fn(s)
	for _, p := range s.Properties {
		walkSchema(p, fn)
	}
	walkSchema(s.Items, fn)
	for _, sub := range s.AnyOf {
		walkSchema(sub, fn)
	}
	for _, sub := range s.Defs {
		walkSchema(sub, fn)
	}
}

// HostFailure is a configured host list_servers could not list, and why.
type HostFailure struct {
	Host  string `json:"host"`
	Error string `json:"error"`
}

// listBudget bounds how long list_servers spends on one host, beyond its connect timeout.
const listBudget = 3 * time.Second

// listHosts lists the live tmux servers of every configured host, the hosts at once, each
// within its connect timeout plus listBudget: an unreachable host is reported, never waited
// for past its bound, and never holds up the others.
func (s *Server) listHosts(ctx context.Context) ([]ServerInfo, []HostFailure) {
	names := make([]string, 0, len(s.hosts))
	for name := range s.hosts {
		names = append(names, name)
	}
	sort.Strings(names)
	servers := make([][]ServerInfo, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() { servers[i], errs[i] = s.listHost(ctx, s.hosts[name]) })
	}
	wg.Wait()
	var all []ServerInfo
	failed := []HostFailure{}
	for i, name := range names {
		all = append(all, servers[i]...)
		s.hostSeen(name, errs[i])
		if errs[i] != nil {
			failed = append(failed, HostFailure{Host: name, Error: errs[i].Error()})
		}
	}
	return all, failed
}

// listHost lists the live tmux servers of one host: the sockets in its user's socket
// directory, each asked for its server's description.
func (s *Server) listHost(ctx context.Context, h *ssh.Host) ([]ServerInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(h.ConnectTimeout, ssh.DefaultConnectTimeout)+listBudget)
	defer cancel()
	probe := tmux.NewServer(tmux.Config{Env: s.opts.Env, Host: h})
	defer probe.Close()
	sts, err := probe.Servers(ctx)
	var out []ServerInfo
	for _, st := range sts {
		out = append(out, s.serverInfo(st, probe))
	}
	if err != nil && ctx.Err() != nil {
		return out, fmt.Errorf("host %q (%s) did not answer within %v", h.Name, h.Destination, cmp.Or(h.ConnectTimeout, ssh.DefaultConnectTimeout)+listBudget)
	}
	return out, err
}
