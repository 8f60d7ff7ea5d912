// Package server is the MCP server for tmux: the tool catalogue, resources, prompts,
// completions and the handshake, on the official go-sdk.
package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/shellinteg"
	"github.com/tmux-mcp/tmux-mcp/server/policy"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/ssh"
)

// Server serves the tool catalogue over MCP for one or more tmux servers.
type Server struct {
	opts   Options
	mcp    *mcp.Server
	tools  map[string]*Tool  // the tools offered (tier, toolsets, allow list and exclusions applied)
	hidden map[string]string // why each other tool of the catalogue is not offered
	order  []*Tool
	caller *policy.Caller
	audit  *policy.Audit // nil without LIBTMUX_MCP_AUDIT

	mu      sync.Mutex
	sockets map[string]*tmux.Server
	closed  bool
	hosts   map[string]*ssh.Host // the configured hosts by name (hosts.go)
	// hostDown says which hosts did not answer when last asked (hostSeen).
	hostDown map[string]bool

	state *state // shared per-process bookkeeping (reservations, echoes, buffers)

	read readState // live streams for cursors, subscriptions, topology watches (resources.go)

	rec recordings // pane recordings (record.go)

	elicitKeys stateKeys        // signs the request states of calls that ask the user (elicit.go)
	cmds       follows          // panes whose shell-integration marks are followed (follow.go, commands.go)
	shellFiles shellinteg.Files // the shell integration's files (integration.go)
	secrets    secretPages      // pages where the person types a secret (secret.go)
}

// New builds a server with the tools the options allow.
func New(opts Options) (*Server, error) {
	if err := opts.normalize(); err != nil {
		return nil, err
	}
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	s := &Server{opts: opts, tools: map[string]*Tool{}, hidden: map[string]string{}, sockets: map[string]*tmux.Server{}, caller: policy.CallerFromEnv(env), state: newState(),
		hosts: newHosts(&opts), elicitKeys: newStateKeys()}
	if opts.Audit != "" {
		a, err := policy.OpenAudit(opts.Audit)
		if err != nil {
			return nil, err
		}
		s.audit = a
	}
	for _, t := range catalog() {
		if h := s.opts.hidingOf(t); !h.Offered() {
			s.hidden[t.Name] = h.Why(t.Tier, opts.Safety, t.Toolsets)
			continue
		}
		if t.variant != nil {
			t = t.variant(&s.opts)
		}
		if len(s.hosts) > 0 {
			t = t.withHosts(s.opts.hostNames())
		}
		s.tools[t.Name] = t
		s.order = append(s.order, t)
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "tmux", Title: "tmux", Version: opts.Version}, &mcp.ServerOptions{
		Instructions:       s.instructions(),
		Logger:             opts.Logger,
		CompletionHandler:  s.complete,
		SubscribeHandler:   s.subscribe,
		UnsubscribeHandler: s.unsubscribe,
		SetCacheable:       setCacheable,
		Capabilities: &mcp.ServerCapabilities{
			// The tool and prompt lists are fixed at start (tier and allow list).
			Tools:       &mcp.ToolCapabilities{ListChanged: false},
			Prompts:     &mcp.PromptCapabilities{ListChanged: false},
			Logging:     &mcp.LoggingCapabilities{},
			Completions: &mcp.CompletionCapabilities{},
		},
	})
	s.addResources()
	s.addPrompts()
	s.mcp.AddReceivingMiddleware(checkLogLevel, s.explainUnknownTool, encodeOnce)
	s.registerTools()
	return s, nil
}

// registerTools hands the offered tools to the go-sdk, through its own untyped path
// (Server.AddTool with the schemas as JSON and a handler of ours, see Tool), which re-encodes
// and re-decodes each schema: about 3 ms for 57 tools. It is done in line: overlapping it with
// the handshake gained nothing measurable (docs/performance.md).
func (s *Server) registerTools() {
	outputs := sameOutputs{}
	for _, t := range s.order {
		s.mcp.AddTool(&mcp.Tool{
			Name: t.Name, Title: t.Title, Description: t.Description,
			InputSchema: t.inputSchema, OutputSchema: outputs.advertise(t),
			Annotations: t.Annotations.mcp(),
		}, s.handler(t))
	}
}

// sameOutputs names, for each output schema already advertised, the first tool that has it.
type sameOutputs map[string]string

// advertise returns the output schema tools/list shows for t: its own, or a short one naming
// the earlier offered tool whose result has the same fields (a pane is the result of ten tools,
// a window of six: naming them saves 10 KB of the default tier's tools/list), or all of its
// fields and a few more (wait_for_run's is run_command's and four: 0.5 KB).
func (o sameOutputs) advertise(t *Tool) any {
	if t.outputSchema == nil {
		return nil
	}
	b, err := json.Marshal(t.outputSchema)
	if err != nil {
		return t.outputSchema
	}
	if first, ok := o[string(b)]; ok {
		if ref := sameAs(first, nil, nil); len(ref) < len(b) {
			return ref
		}
		return t.outputSchema
	}
	o[string(b)] = t.Name
	if ref := o.superset(b); ref != nil && len(ref) < len(b) {
		return ref
	}
	return t.outputSchema
}

// minShared is how many fields a result must share with an earlier tool's to be described by
// it: a few shared names (results, cursor) would say the two are alike when they are not.
const minShared = 5

// mayLack are the fields of an earlier tool's result that a result may lack and still be
// described by it: a note present only sometimes (create_session's result is a session and a
// note, get_session_info's a session and its windows).
var mayLack = map[string]bool{"note": true}

// superset is the shortest reference to an earlier tool whose result's fields are all among
// those of schema b but for a field of mayLack, naming b's others and those it lacks; nil when
// there is none.
func (o sameOutputs) superset(b []byte) json.RawMessage {
	mine := properties(b)
	var best json.RawMessage
	for schema, tool := range o {
		theirs := properties([]byte(schema))
		more, less, ok := differ(mine, theirs)
		if !ok || len(theirs)-len(less) < minShared || len(more) == 0 && len(less) == 0 ||
			slices.ContainsFunc(less, func(f string) bool { return !mayLack[f] }) {
			continue
		}
		if ref := sameAs(tool, more, less); best == nil || len(ref) < len(best) || len(ref) == len(best) && string(ref) < string(best) {
			best = ref
		}
	}
	return best
}

// differ returns the fields of mine that theirs lacks and those of theirs that mine lacks,
// sorted; ok is false when a field of both differs.
func differ(mine, theirs map[string]json.RawMessage) (more, less []string, ok bool) {
	for name, p := range mine {
		if q, found := theirs[name]; !found {
			more = append(more, name)
		} else if !bytes.Equal(p, q) {
			return nil, nil, false
		}
	}
	for name := range theirs {
		if _, found := mine[name]; !found {
			less = append(less, name)
		}
	}
	slices.Sort(more)
	slices.Sort(less)
	return more, less, true
}

// properties are the properties of object schema b.
func properties(b []byte) map[string]json.RawMessage {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(b, &s) != nil {
		return nil
	}
	return s.Properties
}

// sameAs is the output schema of a tool whose result has the same fields as tool's. With
// less, it lacks those; with more, it has those too.
func sameAs(tool string, more, less []string) json.RawMessage {
	d := "As " + tool + "'s result"
	if len(less) > 0 {
		d += ", without " + strings.Join(less, ", ")
	}
	if len(more) > 0 {
		d += ", and " + strings.Join(more, ", ")
	}
	b, _ := json.Marshal(map[string]string{"type": "object", "description": d + "."})
	return b
}

func knownTool(name string) bool {
	for _, t := range catalog() {
		if t.Name == name {
			return true
		}
	}
	return false
}

func (s *Server) handler(t *Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		c := &Call{srv: s, req: req, Tool: t}
		return c.run(ctx, req.Params.Arguments), nil
	}
}

// Logger is the log the go-sdk server writes its warnings to (Options.Logger), for the
// transports' own.
func (s *Server) Logger() *slog.Logger { return s.opts.Logger }

// MCP returns the go-sdk server, to run over a transport.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// ToolInfo describes an offered tool.
type ToolInfo struct {
	Name, Title string
	Tier        policy.Tier
}

// Tools lists the offered tools in catalogue order.
func (s *Server) Tools() []ToolInfo {
	out := make([]ToolInfo, len(s.order))
	for i, t := range s.order {
		out[i] = ToolInfo{Name: t.Name, Title: t.Title, Tier: t.Tier}
	}
	return out
}

// ToolSchema returns an offered tool's description and advertised input schema (JSON), for
// `tmux-mcp tools NAME`.
func (s *Server) ToolSchema(name string) (desc string, input []byte, ok bool) {
	t, ok := s.tools[name]
	if !ok {
		return "", nil, false
	}
	input, err := json.Marshal(t.inputSchema)
	if err != nil {
		return "", nil, false
	}
	return t.Description, input, true
}

// Catalog lists every tool of the product with its tier, offered or not.
func Catalog() []ToolInfo {
	var out []ToolInfo
	for _, t := range catalog() {
		out = append(out, ToolInfo{Name: t.Name, Title: t.Title, Tier: t.Tier})
	}
	return out
}

// Call runs one offered tool in-process, as the `call` subcommand does.
func (s *Server) Call(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	t, ok := s.tools[name]
	if !ok {
		return nil, s.notOffered(name)
	}
	c := &Call{srv: s, Tool: t}
	return c.run(ctx, args), nil
}

// notOffered explains a call of a tool this server does not offer: why, for a tool of the
// catalogue (its tier, toolset or the allow lists), else the tool it most likely meant
// (meantTool), and why that one is not offered when it is not.
func (s *Server) notOffered(name string) error {
	if why := s.hidden[name]; why != "" {
		return fail("Call only tools the server offers (tools/list).", "tool %q is not offered by this server: %s", name, why)
	}
	names := make([]string, 0, len(s.tools))
	for n := range s.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	offered := fmt.Sprintf("Offered at tier %s: %s.", s.opts.Safety, strings.Join(names, ", "))
	all := slices.Concat(names, slices.Collect(maps.Keys(s.hidden)))
	switch c := meantTool(name, all); {
	case c == "":
		return fail(offered, "unknown tool %q", truncate(name, 80))
	case s.hidden[c] != "":
		return fail(offered, "unknown tool %q; the tool for that is %q, which this server does not offer: %s", truncate(name, 80), c, s.hidden[c])
	default:
		return fail(offered, "unknown tool %q; did you mean %q?", truncate(name, 80), c)
	}
}

// explainUnknownTool words the go-sdk's "unknown tool" error (v1.8.0 names the tool only) as
// notOffered does: a model that calls kill_server at the mutating tier learns which setting
// offers it, one that calls list_session the name it meant. The code stays Invalid params,
// as MCP specifies for an unknown tool.
func (s *Server) explainUnknownTool(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		var je *jsonrpc.Error
		if method != "tools/call" || !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.HasPrefix(je.Message, "unknown tool") {
			return res, err
		}
		p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
		if !ok || p == nil {
			return res, err
		}
		if _, offered := s.tools[p.Name]; offered {
			return res, err
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: oneLine(s.notOffered(p.Name))}
	}
}

// oneLine is a tool error as one line, for a JSON-RPC error's message.
func oneLine(err error) string {
	if te, ok := err.(*toolError); ok && te.Hint != "" {
		if strings.HasSuffix(te.Msg, "?") || strings.HasSuffix(te.Msg, ".") {
			return te.Msg + " " + te.Hint
		}
		return te.Msg + ". " + te.Hint
	}
	return err.Error()
}

// tmuxDefault returns the engine handle of the default socket on the default host. A tool
// reaches its call's server with Call.tmuxFor, which honours the host argument.
func (s *Server) tmuxDefault() (*tmux.Server, error) { return s.tmuxOn(nil, nil) }

// tmuxFor returns the engine handle for the call's host and socket_name.
func (c *Call) tmuxFor(socketName *string) (*tmux.Server, error) {
	return c.srv.tmuxOn(c.host, socketName)
}

// tmuxOn returns the engine handle for a host (nil: the default host) and socket_name (nil:
// the configured default; LIBTMUX_SOCKET_PATH, a path on this machine, applies only here).
func (s *Server) tmuxOn(host, socketName *string) (*tmux.Server, error) {
	h, hostName, err := s.hostFor(host)
	if err != nil {
		return nil, err
	}
	cfg := tmux.Config{Bin: s.opts.TmuxBin, Env: s.opts.Env, Timeout: s.opts.TmuxTimeout, Host: h}
	if h != nil {
		cfg.Bin = "" // LIBTMUX_TMUX_BIN is a path here; there, tmux is on the PATH
	}
	switch {
	case socketName != nil && *socketName != "":
		if !socketNameRe().MatchString(*socketName) || *socketName == "." || *socketName == ".." {
			return nil, fail("Pass the bare name tmux -L takes (letters, digits, . _ - @ + =), or omit socket_name for the default; list_servers shows the running servers.",
				"socket_name %q is not a valid tmux socket name", truncate(*socketName, 80))
		}
		cfg.SocketName = *socketName
	case s.opts.SocketName != "":
		cfg.SocketName = s.opts.SocketName
	case h == nil:
		cfg.SocketPath = s.opts.SocketPath
	}
	key := hostName + "\x00L:" + cfg.SocketName + "\x00S:" + cfg.SocketPath
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("the server is shutting down")
	}
	if ts, ok := s.sockets[key]; ok {
		return ts, nil
	}
	ts := tmux.NewServer(cfg)
	s.sockets[key] = ts
	return ts, nil
}

// servers returns every engine handle made so far.
func (s *Server) servers() []*tmux.Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*tmux.Server, 0, len(s.sockets))
	for _, ts := range s.sockets {
		out = append(out, ts)
	}
	return out
}

// Close releases this server's tmux resources: private buffers, streams and connections.
func (s *Server) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	s.rec.closeAll()
	s.secrets.closeAll()
	s.state.cleanup(ctx, s)
	s.read.close()
	s.cmds.closeAll()
	s.shellFiles.Close()
	s.mu.Lock()
	s.closed = true
	socks := s.sockets
	s.sockets = map[string]*tmux.Server{}
	s.mu.Unlock()
	for _, ts := range socks {
		ts.Close()
	}
	for _, h := range s.hosts {
		h.Close() // after every connection on it
	}
	if s.audit != nil {
		s.audit.Close()
	}
}
