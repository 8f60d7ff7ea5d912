package server

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
	"github.com/tmux-mcp/tmux-mcp/server/seeds"
)

// Annotations are a tool's MCP hints.
type Annotations struct{ ReadOnly, Destructive, Idempotent, OpenWorld bool }

// The annotation presets (docs/tools.md lists them).
var (
	annRO     = Annotations{ReadOnly: true, Idempotent: true}
	annMUT    = Annotations{Idempotent: true}
	annCREATE = Annotations{}
	annSHELL  = Annotations{OpenWorld: true}
	annDESTR  = Annotations{Destructive: true}
	annSEED   = Annotations{Destructive: true, OpenWorld: true}
)

func (a Annotations) mcp() *mcp.ToolAnnotations {
	ann := &mcp.ToolAnnotations{
		ReadOnlyHint:    a.ReadOnly,
		DestructiveHint: &a.Destructive,
		IdempotentHint:  a.Idempotent,
		OpenWorldHint:   &a.OpenWorld,
	}
	if a.ReadOnly && !a.Destructive {
		// MCP: destructiveHint is meaningful only when readOnlyHint is false. Left out, it
		// saves 24 bytes of tools/list per read-only tool (the SDK writes the other hints
		// whatever their value).
		ann.DestructiveHint = nil
	}
	return ann
}

// Tool is one tool: its declaration (the single source of truth for its name, tier, annotations
// and schemas) and its handler.
type Tool struct {
	Name        string
	Title       string
	Description string
	Tier        policy.Tier
	Annotations Annotations
	// Toolsets are the toolsets it belongs to (policy.ToolsetsOf).
	Toolsets []string
	// Blocking tools wait on their own ceiling (run_*, wait_for_*) and are refused in batches.
	Blocking bool
	// Batch tools call other tools (call_*_tools_batch); a batch cannot call them.
	Batch bool

	inputSchema  any // advertised
	outputSchema any // advertised; nil when none
	// validator is resolved from the strict input schema on first use: resolving every tool's
	// schema at start-up was half of the server's start time.
	validator func() (*jsonschema.Resolved, error)
	args      []string // argument names, sorted
	// key names the tool's entry in generatedSchemas: its name, plus the variant when the
	// options change its schema.
	key string
	// infer builds the schemas by reflection, for the drift test and for a tool added since
	// schemas_gen.go was last generated; inferHosts builds them with the host-only
	// properties that infer leaves out (see withHosts).
	infer, inferHosts func() (in, strict, out *jsonschema.Schema)
	// fullOutput is the output schema reflection infers from the result type, in full (nil
	// for a seed's or none): what the advertised one shortens, and what tests hold results to.
	fullOutput func() *jsonschema.Schema
	// seedIn and seedOut say the input or output schema is a seed's exact text, which is
	// advertised as is rather than generated.
	seedIn, seedOut bool
	call            func(ctx context.Context, c *Call, args json.RawMessage) (any, error)
	// variant, when set, builds the tool a server offers from its options (a default that
	// depends on the configuration, e.g. run_command's suppress_history); nil keeps this one.
	variant func(o *Options) *Tool
	// hostsNote is spec.HostsNote.
	hostsNote string
}

// spec declares a tool; define turns it and a typed handler into a Tool.
type spec struct {
	Name, Title, Description string
	Tier                     policy.Tier
	Ann                      Annotations
	// Toolsets are a mutating tool's toolsets (policy.Manage, Execute or Teardown); a read-only
	// tool is inspect's, a destructive one teardown's.
	Toolsets []string
	// Blocking: the tool waits on its own ceiling, so a batch cannot run it.
	Blocking bool
	// Batch: the tool calls other tools, so a batch cannot call it.
	Batch bool
	// Input patches the schema inferred from the input type (defaults, enums, patterns).
	Input func(s *jsonschema.Schema)
	// InputJSON, when set, is the exact advertised input schema (a seed); validation then uses
	// StrictInputJSON, or InputJSON itself.
	InputJSON, StrictInputJSON string
	// OutputJSON, when set, is the exact advertised output schema (a seed).
	OutputJSON string
	// NoOutputSchema advertises no output schema (a seed says so).
	NoOutputSchema bool
	// Variant names a schema that differs from the tool's usual one because of the server's
	// options (a different default); "" for the usual one.
	Variant string
	// HostsNote is added to the description when hosts are configured (withHosts).
	HostsNote string
}

// Call is what a handler knows of the call in progress.
type Call struct {
	srv *Server
	req *mcp.CallToolRequest // nil for in-process calls (the call subcommand)
	// Tool is the tool being called.
	Tool *Tool
	// host is the call's host argument (nil: the default host), set once its arguments are
	// decoded.
	host *string
	// notes are kept for the call's next round (Call.keep, elicit.go).
	notes map[string]string
	// confirmed: the person allowed this call of a batch already (confirm.go); batchRefused
	// says why a batch's operations they did not allow may not run, by index.
	confirmed    bool
	batchRefused map[int]error
	// batchTier is the tier of the batch tool that made this call (a mutating batch at the
	// destructive tier still acts at mutating); unset (capped false) for a direct call.
	batchTier policy.Tier
	capped    bool
}

// tier is the tier the call acts at: the server's, or its batch's when lower.
func (c *Call) tier() policy.Tier {
	if c.capped && c.batchTier < c.srv.opts.Safety {
		return c.batchTier
	}
	return c.srv.opts.Safety
}

// texter lets a result choose its own text block instead of its JSON.
type texter interface{ Text() string }

// contenter lets a result add content blocks after its text (screenshot_pane's image).
type contenter interface{ Content() []mcp.Content }

// define makes a tool of a handler. Only what needs the types is generic: decoding the
// arguments into In and calling h. Everything else (schemas, the validator) takes In and Out
// as reflect.Types, so that 57 instantiations do not each carry their own copy of it: a copy
// each would double the package's code, which a process maps at start.
func define[In, Out any](sp spec, h func(ctx context.Context, c *Call, in *In) (Out, error)) *Tool {
	return newTool(sp, reflect.TypeFor[In](), reflect.TypeFor[Out](), func(ctx context.Context, c *Call, raw json.RawMessage) (any, error) {
		var args In
		// c.Tool, not t: the tool offered may be a copy of t with other schemas (withHosts).
		if err := c.Tool.decode(raw, &args); err != nil {
			return nil, err
		}
		if h, ok := any(&args).(hostArg); ok {
			c.host = h.hostArg()
		}
		return h(ctx, c, &args)
	})
}

// newTool is define's work for a tool whose arguments are of type in and result of type out.
func newTool(sp spec, in, out reflect.Type, call func(ctx context.Context, c *Call, raw json.RawMessage) (any, error)) *Tool {
	t := &Tool{Name: sp.Name, Title: sp.Title, Description: sp.Description, Tier: sp.Tier, Annotations: sp.Ann,
		Toolsets: policy.ToolsetsOf(sp.Tier, sp.Toolsets), Blocking: sp.Blocking, Batch: sp.Batch, hostsNote: sp.HostsNote, call: call}
	t.key = sp.Name
	if sp.Variant != "" {
		t.key += "/" + sp.Variant
	}
	t.infer = func() (i, strict, o *jsonschema.Schema) { return inferSchemas(sp, in, out, false) }
	t.inferHosts = func() (i, strict, o *jsonschema.Schema) { return inferSchemas(sp, in, out, true) }
	t.fullOutput = func() *jsonschema.Schema {
		if sp.OutputJSON != "" || sp.NoOutputSchema {
			return nil
		}
		return mustInfer(sp.Name, "output", out)
	}
	t.seedIn, t.seedOut = sp.InputJSON != "", sp.OutputJSON != ""
	g, ok := generatedSchemas[t.key]
	if !ok {
		// A tool added since schemas_gen.go was generated (TestSchemasGenerated says so).
		in, strict, out := t.infer()
		t.inputSchema, t.args = advertised(in, sp.InputJSON), argNames(strict)
		if out != nil {
			t.outputSchema = advertised(out, sp.OutputJSON)
		}
		t.validator = sync.OnceValues(func() (*jsonschema.Resolved, error) { return resolve(strict) })
		return t
	}
	// Schemas inferred at build time, so start-up does no reflection and parses no schema;
	// the validator parses the strict schema on the tool's first call.
	strict := g.strict
	t.inputSchema = json.RawMessage(g.in)
	if sp.InputJSON != "" {
		t.inputSchema, strict = json.RawMessage(sp.InputJSON), cmp.Or(sp.StrictInputJSON, sp.InputJSON)
	}
	switch {
	case sp.OutputJSON != "":
		t.outputSchema = json.RawMessage(sp.OutputJSON)
	case g.out != "":
		t.outputSchema = json.RawMessage(g.out)
	}
	t.args = g.args
	t.validator = sync.OnceValues(func() (*jsonschema.Resolved, error) { return resolve(mustSchema(sp.Name, strict)) })
	return t
}

// mustInfer is the schema of type t; what is wrong with a tool's types is a programming error.
func mustInfer(tool, what string, t reflect.Type) *jsonschema.Schema {
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: argTypeSchemas})
	if err != nil {
		panic(fmt.Sprintf("tool %s: %s schema: %v", tool, what, err))
	}
	return s
}

// toolSchemas is a tool's schemas as JSON, inferred at build time (schemas_gen.go).
type toolSchemas struct {
	// in and out are advertised, strict validates the arguments (schema.go says how they
	// differ); each is "" for a seed's schema, and out when the tool advertises none.
	in, strict, out string
	hostOut         string   // out with the host-only fields, when it has any (withHosts)
	args            []string // the strict input's property names, sorted
}

// inferSchemas builds a tool's schemas from its types and spec: the input schema clients see,
// the strict one arguments are validated with (for a seed, its text unless it names a strict
// one), and the output schema clients see (nil when the tool advertises none). Without hosts
// the host-only properties are left out of all three.
func inferSchemas(sp spec, inType, outType reflect.Type, hosts bool) (in, strict, out *jsonschema.Schema) {
	defer func() {
		if !hosts {
			stripHostOnly(in)
			stripHostOnly(strict)
			stripHostOnly(out)
		}
	}()
	if sp.InputJSON != "" {
		in = mustSchema(sp.Name, sp.InputJSON)
		strict = in
		if sp.StrictInputJSON != "" {
			strict = mustSchema(sp.Name, sp.StrictInputJSON)
		}
	} else {
		in = mustInfer(sp.Name, "input", inType)
		if sp.Input != nil {
			sp.Input(in)
		}
		nullDefaults(in)
		in, strict = advertisedInput(in), validationSchema(in)
	}
	switch {
	case sp.OutputJSON != "":
		out = mustSchema(sp.Name, sp.OutputJSON)
	case !sp.NoOutputSchema:
		out = advertisedOutput(mustInfer(sp.Name, "output", outType))
	}
	return in, strict, out
}

// advertised is what tools/list shows for a schema: a seed's exact text when there is one.
func advertised(s *jsonschema.Schema, seed string) any {
	if seed != "" {
		return json.RawMessage(seed)
	}
	return s
}

// argNames lists a schema's property names, sorted.
func argNames(s *jsonschema.Schema) []string {
	names := slices.Collect(maps.Keys(s.Properties))
	sort.Strings(names)
	return names
}

func resolve(s *jsonschema.Schema) (*jsonschema.Resolved, error) {
	return s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
}

func mustSchema(name, js string) *jsonschema.Schema {
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(js), &s); err != nil {
		panic(fmt.Sprintf("tool %s: schema: %v", name, err))
	}
	s.Schema = "" // the validator speaks draft 2020-12; the seeds' keywords mean the same there
	return &s
}

// decode validates raw arguments against the tool's schema, applies defaults and fills args.
// Every call is validated: skipping a repeat's saves too little of a call to be worth the state.
func (t *Tool) decode(raw json.RawMessage, args any) error {
	m := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &m); err != nil {
			return t.notAnObject(raw)
		}
	}
	var unknown []string
	for k := range m {
		if !slices.Contains(t.args, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		var meant []string
		for _, u := range unknown {
			switch c := meantArg(u, t.Name, t.args); {
			case c != "" && len(unknown) == 1:
				meant = append(meant, fmt.Sprintf("%q", c))
			case c != "":
				meant = append(meant, fmt.Sprintf("%q for %q", c, u))
			}
		}
		guess := ""
		if len(meant) > 0 {
			guess = " (did you mean " + strings.Join(meant, ", ") + "?)"
		}
		return &toolError{
			Msg:  fmt.Sprintf("%s does not take the argument(s) %s%s", t.Name, quoteList(unknown), guess),
			Hint: fmt.Sprintf("Remove or correct them; %s takes: %s.", t.Name, t.argList()),
		}
	}
	v, err := t.validator()
	if err != nil {
		return fmt.Errorf("%s: resolving its input schema: %w", t.Name, err)
	}
	if err := v.ApplyDefaults(&m); err != nil {
		return t.invalidArgument(v.Schema(), m, err)
	}
	if err := v.Validate(m); err != nil {
		return t.invalidArgument(v.Schema(), m, err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, args); err != nil {
		return t.unfitValue(v.Schema(), m, err)
	}
	return nil
}

func (t *Tool) argList() string {
	if len(t.args) == 0 {
		return "no arguments"
	}
	return strings.Join(t.args, ", ")
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// Run calls the tool in-process with raw JSON arguments, with the same validation, tier check
// and audit as a call over MCP.
func (c *Call) run(ctx context.Context, raw json.RawMessage) *mcp.CallToolResult {
	start := time.Now()
	var out any
	var err error
	if !c.confirmed && c.srv.needsConfirm(c.Tool) {
		err = c.confirm(ctx, "confirm", c.Tool, raw) // LIBTMUX_MCP_CONFIRM (confirm.go)
	}
	if err == nil {
		out, err = c.safeCall(ctx, raw)
	}
	res := c.result(out, err)
	if c.srv.audit != nil {
		c.srv.audit.Call(c.Tool.Name, raw, res.IsError, time.Since(start))
	}
	return res
}

func (c *Call) safeCall(ctx context.Context, raw json.RawMessage) (out any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error in %s: %v", c.Tool.Name, r)
		}
	}()
	return c.Tool.call(ctx, c, raw)
}

// result is a call's MCP result: its JSON as text (or the text it chooses) and out itself as
// structured content. out, not its JSON again: the JSON-RPC layer encodes a value in one
// pass, where it re-scans ("compacts") bytes that are already JSON, at 2.5 times the cost.
func (c *Call) result(out any, err error) *mcp.CallToolResult {
	if r := inputResult(err); r != nil {
		return r // the call asked the user a question (Call.Elicit)
	}
	if err != nil {
		return errorResult(c.Tool.Name, forTool(c.Tool, err))
	}
	var text string
	if tx, ok := out.(texter); ok {
		// Its JSON is written once, as structured content, by the JSON-RPC layer.
		text = tx.Text()
	} else {
		var err error
		if text, err = marshalText(out); err != nil {
			return errorResult(c.Tool.Name, fmt.Errorf("encoding the result: %w", err))
		}
	}
	content := []mcp.Content{&mcp.TextContent{Text: text}}
	if cr, ok := out.(contenter); ok {
		content = append(content, cr.Content()...)
	}
	return &mcp.CallToolResult{Content: content, StructuredContent: out}
}

// Structured decodes a successful result's structured content into v.
func Structured(res *mcp.CallToolResult, v any) error {
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return fmt.Errorf("encoding the structured content: %w", err)
	}
	return json.Unmarshal(b, v)
}

func errorResult(tool string, err error) *mcp.CallToolResult {
	var te *toolError
	if !errors.As(err, &te) {
		te = describe(err)
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: te.Error()}}}
}

// Progress sends a progress notification when the request carries a progress token.
func (c *Call) Progress(ctx context.Context, progress, total float64, msg string) {
	if c.req == nil || c.req.Session == nil {
		return
	}
	tok := c.req.Params.GetProgressToken()
	if tok == nil {
		return
	}
	c.req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: progress, Total: total, Message: msg})
}

// hasProgressToken reports whether the client asked for progress notifications.
func (c *Call) hasProgressToken() bool {
	return c.req != nil && c.req.Session != nil && c.req.Params != nil && c.req.Params.GetProgressToken() != nil
}

// seeded fills a seeded tool's spec from its seed (server/seeds): the description and the exact
// input and output schemas (none when the seed advertises none).
func seeded(sp spec) spec {
	sd := seeds.ToolNamed(sp.Name)
	sp.Description, sp.InputJSON, sp.OutputJSON = sd.Description, string(sd.InputSchema), string(sd.OutputSchema)
	sp.NoOutputSchema = sd.OutputSchema == nil
	return sp
}

// marshalText is json.Marshal without HTML escaping, for the text half of a result: a model
// reads `2>&1` and `>>> ` there, not `2\u003e\u00261` (the same JSON string, more tokens).
// The encoder writes its JSON in one Write, which a strings.Builder takes in one allocation
// and hands on without copying it again.
func marshalText(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
