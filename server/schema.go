package server

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// schemaEdit changes an inferred input schema.
type schemaEdit func(s *jsonschema.Schema)

func edits(fns ...schemaEdit) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		for _, f := range fns {
			f(s)
		}
	}
}

func prop(s *jsonschema.Schema, name string) *jsonschema.Schema {
	p, ok := s.Properties[name]
	if !ok {
		panic("schema has no property " + name)
	}
	return p
}

// def sets a property's default.
func def(name string, v any) schemaEdit {
	return func(s *jsonschema.Schema) {
		b, _ := json.Marshal(v)
		prop(s, name).Default = b
	}
}

// enum restricts a property to values (null stays allowed for nullable properties).
func enum(name string, vals ...any) schemaEdit {
	return func(s *jsonschema.Schema) {
		p := prop(s, name)
		p.Enum = append([]any{}, vals...)
		if slices.Contains(p.Types, "null") {
			p.Enum = append(p.Enum, nil)
		}
	}
}

// pattern sets a string property's pattern.
func pattern(name, re string) schemaEdit {
	return func(s *jsonschema.Schema) { prop(s, name).Pattern = re }
}

// minimum sets a numeric property's minimum.
func minimum(name string, v float64) schemaEdit {
	return func(s *jsonschema.Schema) { prop(s, name).Minimum = &v }
}

// maximum sets a numeric property's maximum.
func maximum(name string, v float64) schemaEdit {
	return func(s *jsonschema.Schema) { prop(s, name).Maximum = &v }
}

// objectOrJSON makes a property accept an object of strings, a JSON string of one, or null
// (some clients can only send strings).
func objectOrJSON(name, desc string) schemaEdit {
	return func(s *jsonschema.Schema) {
		s.Properties[name] = &jsonschema.Schema{
			Description: desc,
			AnyOf:       []*jsonschema.Schema{{Type: "object"}, {Type: "string"}, {Type: "null"}},
			Default:     json.RawMessage("null"),
		}
	}
}

// oneOfTypes types a property that takes a value of any of types, or null (its handler reads
// which it got): tools/list must give every property a type.
func oneOfTypes(name string, types ...string) schemaEdit {
	return func(s *jsonschema.Schema) {
		p := prop(s, name)
		p.Type, p.Types, p.AnyOf = "", nil, nil
		for _, t := range append(types, "null") {
			p.AnyOf = append(p.AnyOf, &jsonschema.Schema{Type: t})
		}
	}
}

// nullDefaults gives every nullable property without a default the default null, as the seeds do.
func nullDefaults(s *jsonschema.Schema) {
	for _, p := range s.Properties {
		if p.Default == nil && slices.Contains(p.Types, "null") {
			p.Default = json.RawMessage("null")
		}
	}
}

// ---- what tools/list advertises

// Every client must take the schemas tools/list shows. The MCP Inspector's --strict check
// (internal/schemalint holds its rules) flags a type array such as ["null","string"], which
// clients that map tool schemas onto a one-type dialect (Gemini's OpenAPI subset) reject, and a
// property with no type. So a tool has two input schemas: the strict one arguments are
// validated with (inferred from the Go types: null is accepted wherever a field is a pointer,
// as libtmux-mcp accepts it) and the advertised one, the same arguments with plain types.
// Leaving an argument out and passing null mean the same, except where a description says
// what null means (max_lines: null keeps every line).

// advertisedInput is the input schema tools/list shows for a strict one: each nullable type
// becomes its plain type, the null branch of an anyOf goes, and so do null defaults and null
// enum values. Descriptions, defaults, enums and bounds stay.
func advertisedInput(strict *jsonschema.Schema) *jsonschema.Schema {
	s := strict.CloneSchemas()
	eachSchema(s, func(n *jsonschema.Schema) {
		if i := slices.Index(n.Types, "null"); i >= 0 {
			n.Types = slices.Delete(slices.Clone(n.Types), i, i+1)
			if len(n.Types) == 1 {
				n.Type, n.Types = n.Types[0], nil
			}
		}
		for _, t := range n.Types { // a value of several types (Index): one branch each
			n.AnyOf = append(n.AnyOf, &jsonschema.Schema{Type: t})
		}
		n.Types = nil
		n.Enum = slices.DeleteFunc(slices.Clone(n.Enum), func(v any) bool { return v == nil })
		if string(n.Default) == "null" {
			n.Default = nil
		}
		n.AnyOf = slices.DeleteFunc(slices.Clone(n.AnyOf), func(b *jsonschema.Schema) bool { return b.Type == "null" })
		if len(n.AnyOf) == 0 {
			n.AnyOf = nil
		}
	})
	return s
}

// validationSchema is a strict schema without its descriptions: validation and its error
// messages never read them, and the advertised schema carries them.
func validationSchema(strict *jsonschema.Schema) *jsonschema.Schema {
	s := strict.CloneSchemas()
	eachSchema(s, func(n *jsonschema.Schema) { n.Description = "" })
	return s
}

// advertisedOutput is the output schema tools/list shows: each field of the result with its
// type, one level deep (an object inside the result is typed "object", an array gives the type
// of its items), with no descriptions and no required list. It stays true of every result
// (null where a field can be null), and it is what the size allows: a client puts tools/list
// in an agent's context, and the full inferred schemas would be several times the size (a
// result like an earlier tool's is also named rather than repeated: sameOutputs). The tool
// descriptions say what a field means where its name does not.
func advertisedOutput(out *jsonschema.Schema) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}, PropertyOrder: out.PropertyOrder}
	for name, p := range out.Properties {
		s.Properties[name] = shallow(name, p)
	}
	return s
}

// shallow is a field's type, with its items' type for an array; null last.
func shallow(name string, p *jsonschema.Schema) *jsonschema.Schema {
	types := p.Types
	if p.Type != "" {
		types = []string{p.Type}
	}
	var branches []*jsonschema.Schema
	for _, t := range types {
		if t != "null" {
			b := &jsonschema.Schema{Type: t}
			if t == "array" && p.Items != nil {
				b.Items = shallow(name, p.Items)
			}
			branches = append(branches, b)
		}
	}
	for _, a := range p.AnyOf {
		branches = append(branches, shallow(name, a))
	}
	if slices.Contains(types, "null") {
		branches = append(branches, &jsonschema.Schema{Type: "null"})
	}
	switch len(branches) {
	case 0:
		panic(fmt.Sprintf("result field %s has no type: tools/list must give every field one", name))
	case 1:
		return branches[0]
	}
	return &jsonschema.Schema{AnyOf: branches}
}

// eachSchema calls f for s and every subschema below it (the keywords the inferred schemas use).
func eachSchema(s *jsonschema.Schema, f func(*jsonschema.Schema)) {
	if s == nil {
		return
	}
	f(s)
	for _, p := range s.Properties {
		eachSchema(p, f)
	}
	for _, list := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf, s.AllOf, s.PrefixItems} {
		for _, b := range list {
			eachSchema(b, f)
		}
	}
	for _, c := range []*jsonschema.Schema{s.Items, s.AdditionalProperties, s.Not} {
		eachSchema(c, f)
	}
}
