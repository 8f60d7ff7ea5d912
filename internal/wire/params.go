package wire

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The params of a request the go-sdk cannot decode are answered in words here, before the SDK
// sees them. Why (go-sdk v1.8.0): the SDK decodes params into its own types before any
// middleware runs, and answers one it cannot decode with encoding/json's words, Go's types
// and the params quoted back: `handling 'tools/call': invalid params: unmarshaling
// "{\"name\":5}" into a *mcp.CallToolParamsRaw: json: cannot unmarshal … into Go struct field
// mcp.CallToolParamsRaw.name of type string`. checkParams decodes them into the same SDK types
// and, when that fails, says which member is wrong, what it is, what it takes and what to send.

// paramsOf are, per method a client sends, the SDK's type for its params and whether the method
// takes none (the SDK's missingParamsOK).
var paramsOf = map[string]struct {
	typ      reflect.Type
	optional bool
}{
	"initialize":               {reflect.TypeFor[mcp.InitializeParams](), false},
	"ping":                     {reflect.TypeFor[mcp.PingParams](), true},
	"tools/list":               {reflect.TypeFor[mcp.ListToolsParams](), true},
	"tools/call":               {reflect.TypeFor[mcp.CallToolParamsRaw](), false},
	"resources/list":           {reflect.TypeFor[mcp.ListResourcesParams](), true},
	"resources/templates/list": {reflect.TypeFor[mcp.ListResourceTemplatesParams](), true},
	"resources/read":           {reflect.TypeFor[mcp.ReadResourceParams](), false},
	"resources/subscribe":      {reflect.TypeFor[mcp.SubscribeParams](), false},
	"resources/unsubscribe":    {reflect.TypeFor[mcp.UnsubscribeParams](), false},
	"prompts/list":             {reflect.TypeFor[mcp.ListPromptsParams](), true},
	"prompts/get":              {reflect.TypeFor[mcp.GetPromptParams](), false},
	"completion/complete":      {reflect.TypeFor[mcp.CompleteParams](), false},
	"logging/setLevel":         {reflect.TypeFor[mcp.SetLoggingLevelParams](), false},
}

// paramsExample is what to send, per method whose params must be given.
var paramsExample = map[string]string{
	"initialize":            `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"my-client","version":"1.0"}}`,
	"tools/call":            `{"name":"list_sessions","arguments":{}}`,
	"resources/read":        `{"uri":"tmux://sessions"}`,
	"resources/subscribe":   `{"uri":"tmux://panes/%1/content"}`,
	"resources/unsubscribe": `{"uri":"tmux://panes/%1/content"}`,
	"prompts/get":           `{"name":"run_and_wait","arguments":{"command":"ls"}}`,
	"completion/complete":   `{"ref":{"type":"ref/resource","uri":"tmux://panes/{pane_id}/content"},"argument":{"name":"pane_id","value":"%"}}`,
	"logging/setLevel":      `{"level":"info"}`,
}

// memberHint says what a member holds, for the members a client names most.
var memberHint = map[string]string{
	"tools/call name":    "the name of the tool to call, as a string (tools/list shows them)",
	"prompts/get name":   "the name of the prompt, as a string (prompts/list shows them)",
	"resources/read uri": "the resource's URI, as a string (resources/list shows them)",
	"_meta":              "an object, such as {\"progressToken\":1}",
}

func invalidParams(id json.RawMessage, format string, args ...any) *Error {
	return &Error{ID: id, Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: " + fmt.Sprintf(format, args...)}
}

// checkParams refuses params of a known method that the SDK could not decode, or that lack
// what the method needs, saying so in words; nil lets the request through.
func checkParams(method string, params, id json.RawMessage) *Error {
	p, known := paramsOf[method]
	if !known {
		return nil
	}
	example := paramsExample[method]
	if len(params) == 0 || string(params) == "null" {
		if p.optional {
			return nil
		}
		return invalidParams(id, `%s needs "params", an object such as %s`, method, example)
	}
	if params[0] != '{' {
		return invalidParams(id, `the "params" of %s are %s; send an object of named members, such as %s`, method, kind(params), cmp.Or(example, "{}"))
	}
	v := reflect.New(p.typ)
	if err := json.Unmarshal(params, v.Interface()); err != nil {
		return paramError(method, params, id, err)
	}
	switch method {
	case "tools/call", "prompts/get":
		if v.Elem().FieldByName("Name").String() == "" {
			return invalidParams(id, `%s needs "name": %s; for example %s`, method, memberHint[method+" name"], example)
		}
	}
	return nil
}

// paramError words a failure to decode params into the SDK's type.
func paramError(method string, params, id json.RawMessage, err error) *Error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Field == "" {
		return invalidParams(id, "the params of %s are not what it takes; send an object such as %s", method, cmp.Or(paramsExample[method], "{}"))
	}
	field, got := te.Field, "a value of another kind"
	if raw := member(params, field); raw != nil {
		if raw[0] == '{' && takes(te.Type) != "an object" {
			// A map's value is wrong (prompts/get's arguments): name it.
			field, raw = badValue(field, raw, takes(te.Type))
		}
		got = kind(raw) + describeShort(raw)
	}
	hint := memberHint[method+" "+field]
	if hint == "" {
		hint = memberHint[field]
	}
	if hint == "" {
		hint = takes(te.Type)
	}
	msg := fmt.Sprintf(`%s: "%s" is %s; it takes %s`, method, field, got, hint)
	if ex := paramsExample[method]; ex != "" {
		msg += "; for example " + ex
	}
	return invalidParams(id, "%s", msg)
}

// member returns the raw value at a dotted path of object members, or nil.
func member(raw json.RawMessage, path string) json.RawMessage {
	for _, name := range strings.Split(path, ".") {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return nil
		}
		if raw = m[name]; raw == nil {
			return nil
		}
	}
	return raw
}

// badValue finds, in an object whose values should all be of the kind want, the first that is
// not, and returns its path and value (the object itself when none is found).
func badValue(path string, obj json.RawMessage, want string) (string, json.RawMessage) {
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil {
		return path, obj
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v := m[k]; v[0] != 'n' && kind(v) != want {
			return path + "." + k, v
		}
	}
	return path, obj
}

// describeShort adds a short value to kind's words: a number or a string itself.
func describeShort(v json.RawMessage) string {
	switch v[0] {
	case '{', '[', 'n':
		return ""
	}
	return " (" + shorten(v) + ")"
}

// takes says in words what a Go type of the SDK holds in JSON.
func takes(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another kind of value"
}
