// Package schemalint checks tool schemas for what makes them unportable between MCP clients,
// by the rules of the MCP Inspector's `--strict` check of tools/list.
//
// The rules are those of @modelcontextprotocol/inspector 2.12.0 (core/json/schemaLint.ts,
// bundled in clients/cli/build/index.js as lintToolSchemas), where `inspector --cli … --method
// tools/list --strict` reports them:
//   - type-union (warning): `type` is an array of type names, which a client that maps schemas
//     onto a one-type dialect (the OpenAPI subset of Gemini's function declarations) rejects;
//   - untyped-schema (warning): a schema object with no validation keyword at all (it accepts
//     any value), anywhere but directly under `not`;
//   - boolean-schema (error): a bare true or false where a schema object is expected (allowed
//     only as additionalProperties, unevaluatedProperties, additionalItems, unevaluatedItems);
//   - remote-ref (warning): a `$ref` outside the document, when it declares no `$id`.
package schemalint

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
)

// Finding is one portability problem.
type Finding struct {
	Rule     string // type-union, untyped-schema, boolean-schema, remote-ref
	Severity string // "error" or "warning", as the Inspector rates it
	Path     string // where, e.g. "properties.pane_id"; "" for the schema itself
	Issue    string
}

func (f Finding) String() string {
	return fmt.Sprintf("%s %s at %q: %s", f.Severity, f.Rule, f.Path, f.Issue)
}

// The Inspector's keyword sets.
var (
	booleanValued = []string{"additionalProperties", "unevaluatedProperties", "additionalItems", "unevaluatedItems"}
	single        = []string{"items", "contains", "not", "propertyNames", "if", "then", "else",
		"additionalProperties", "unevaluatedProperties", "additionalItems", "unevaluatedItems", "contentSchema"}
	arrays = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	maps   = []string{"properties", "patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions"}
	// constraining keywords: a schema with none of them accepts every value. `if` counts only
	// with `then` or `else`.
	constraining = []string{"type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
		"exclusiveMinimum", "maxLength", "minLength", "pattern", "format", "contentMediaType", "contentEncoding",
		"contentSchema", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties",
		"minProperties", "required", "dependentRequired", "allOf", "anyOf", "oneOf", "not", "items", "prefixItems",
		"contains", "additionalItems", "unevaluatedItems", "properties", "patternProperties",
		"additionalProperties", "unevaluatedProperties", "propertyNames", "dependentSchemas", "dependencies",
		"$ref", "$dynamicRef", "$recursiveRef"}
	typeNames = []string{"null", "boolean", "object", "array", "number", "string", "integer"}
)

// maxDepth is the Inspector's bound on nesting.
const maxDepth = 64

// Lint returns the portability findings of one schema, decoded from JSON (map[string]any).
func Lint(schema any) []Finding {
	l := &linter{embeddedIDs: declaresID(schema, 0)}
	l.walk(schema, "", "", 0)
	return l.findings
}

type linter struct {
	embeddedIDs bool
	findings    []Finding
}

func (l *linter) add(rule, severity, path, issue string) {
	l.findings = append(l.findings, Finding{Rule: rule, Severity: severity, Path: path, Issue: issue})
}

func (l *linter) walk(node any, path, keyword string, depth int) {
	if depth > maxDepth {
		return
	}
	if b, ok := node.(bool); ok {
		if !slices.Contains(booleanValued, keyword) {
			l.add("boolean-schema", "error", path, fmt.Sprintf("a bare %v where a schema object is expected", b))
		}
		return
	}
	m, ok := node.(map[string]any)
	if !ok {
		return
	}
	l.lintNode(m, path, keyword)
	eachSubschema(m, path, func(child any, childPath, childKeyword string) {
		l.walk(child, childPath, childKeyword, depth+1)
	})
}

func (l *linter) lintNode(m map[string]any, path, keyword string) {
	if t, ok := m["type"].([]any); ok && typeUnion(t) {
		l.add("type-union", "warning", path, fmt.Sprintf("type is an array (%v): give each branch of an anyOf one type", t))
	}
	if ref, ok := m["$ref"].(string); ok && ref != "" && ref[0] != '#' && !l.embeddedIDs {
		l.add("remote-ref", "warning", path, fmt.Sprintf("$ref %q points outside the document", ref))
	}
	if !constrains(m) && keyword != "not" {
		l.add("untyped-schema", "warning", path, "no validation keyword: it accepts any value; declare its type")
	}
}

// typeUnion is the Inspector's isPortableTypeUnion: a non-empty array of distinct type names.
func typeUnion(t []any) bool {
	seen := map[string]bool{}
	for _, v := range t {
		s, ok := v.(string)
		if !ok || !slices.Contains(typeNames, s) || seen[s] {
			return false
		}
		seen[s] = true
	}
	return len(t) > 0
}

func constrains(m map[string]any) bool {
	for k := range m {
		if slices.Contains(constraining, k) {
			return true
		}
	}
	_, then := m["then"]
	_, els := m["else"]
	_, cond := m["if"]
	return cond && (then || els)
}

func declaresID(node any, depth int) bool {
	m, ok := node.(map[string]any)
	if depth > maxDepth || !ok {
		return false
	}
	if id, ok := m["$id"].(string); ok && id != "" {
		return true
	}
	found := false
	eachSubschema(m, "", func(child any, _, _ string) { found = found || declaresID(child, depth+1) })
	return found
}

// eachSubschema calls visit for every subschema position of m, in the Inspector's order.
func eachSubschema(m map[string]any, path string, visit func(child any, path, keyword string)) {
	for _, k := range maps {
		sub, ok := m[k].(map[string]any)
		if !ok {
			continue
		}
		for _, name := range sortedKeys(sub) {
			visit(sub[name], child(child(path, k), name), k)
		}
	}
	for _, k := range arrays {
		if list, ok := m[k].([]any); ok {
			for i, v := range list {
				visit(v, child(path, k)+"["+strconv.Itoa(i)+"]", k)
			}
		}
	}
	for _, k := range single {
		v, ok := m[k]
		if !ok {
			continue
		}
		if list, isList := v.([]any); isList && k == "items" {
			for i, it := range list {
				visit(it, child(path, k)+"["+strconv.Itoa(i)+"]", k)
			}
			continue
		}
		visit(v, child(path, k), k)
	}
}

var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

func child(parent, key string) string {
	if !identifier.MatchString(key) {
		return parent + "[" + strconv.Quote(key) + "]"
	}
	if parent == "" {
		return key
	}
	return parent + "." + key
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Tool returns the findings of a tool's input and output schemas (either may be nil), with
// paths that start as the Inspector's do: "inputSchema.properties.x".
func Tool(inputSchema, outputSchema any) []Finding {
	var out []Finding
	for _, s := range []struct {
		name   string
		schema any
	}{{"inputSchema", inputSchema}, {"outputSchema", outputSchema}} {
		if s.schema == nil {
			continue
		}
		for _, f := range Lint(s.schema) {
			if f.Path == "" {
				f.Path = s.name
			} else {
				f.Path = s.name + "." + f.Path
			}
			out = append(out, f)
		}
	}
	return out
}
