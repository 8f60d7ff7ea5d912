package server

import (
	"encoding/json"
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
			AnyOf: []*jsonschema.Schema{
				{Type: "object", AdditionalProperties: &jsonschema.Schema{}},
				{Type: "string"},
				{Type: "null"},
			},
			Default: json.RawMessage("null"),
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
