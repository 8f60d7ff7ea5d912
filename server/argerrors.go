package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// What a malformed argument is told: the argument, what it got (shortened), what it takes
// and what to do, in words. The validator's and encoding/json's own messages speak of Go
// types and reflect values; they never reach the client.

// describeValue shows a JSON value in a message, shortened.
func describeValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case json.Number:
		return truncate(x.String(), 40)
	case string:
		return strconv.Quote(truncate(x, 60)) + " (a string)"
	case []any:
		if len(x) == 0 {
			return "an empty array"
		}
		return fmt.Sprintf("an array of %d item(s)", len(x))
	case map[string]any:
		if len(x) == 0 {
			return "an empty object"
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		more := ""
		if len(keys) > 3 {
			keys, more = keys[:3], ", …"
		}
		return "an object with " + quoteList(keys) + more
	}
	return "a value of another kind"
}

// describeSchema says in words what a schema takes.
func describeSchema(s *jsonschema.Schema) string {
	if s == nil {
		return "any value"
	}
	if len(s.Enum) > 0 {
		var vals []string
		for _, v := range s.Enum {
			b, _ := json.Marshal(v)
			vals = append(vals, string(b))
		}
		return "one of " + orList(vals)
	}
	alts := s.AnyOf
	if len(alts) == 0 {
		alts = s.OneOf
	}
	if len(alts) > 0 {
		var parts []string
		for _, a := range alts {
			if d := describeSchema(a); !slices.Contains(parts, d) {
				parts = append(parts, d)
			}
		}
		return orList(parts)
	}
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	var parts []string
	for _, t := range types {
		if t != "null" {
			parts = append(parts, describeType(t, s))
		}
	}
	if len(parts) == 0 && len(types) == 0 {
		return "any value"
	}
	if slices.Contains(types, "null") {
		parts = append(parts, "null")
	}
	return orList(parts)
}

func describeType(t string, s *jsonschema.Schema) string {
	switch t {
	case "string":
		if s.Pattern == paneIDPattern {
			return "a pane id such as %1"
		}
		if s.Pattern != "" {
			return "a string matching " + s.Pattern
		}
		return "a string"
	case "integer":
		return "a whole number" + bounds(s)
	case "number":
		return "a number" + bounds(s)
	case "boolean":
		return "true or false"
	case "array":
		if s.Items != nil {
			return "an array (each item " + describeSchema(s.Items) + ")"
		}
		return "an array"
	case "object":
		if a := s.AdditionalProperties; a != nil && (a.Type == "string" || slices.Equal(a.Types, []string{"string"})) {
			return "an object of strings"
		}
		if len(s.Properties) > 0 && len(s.Properties) <= 4 {
			// The keys it takes (a batch's operation: tool, arguments), required ones first.
			keys := slices.Clone(s.Required)
			for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
				if !slices.Contains(keys, k) {
					keys = append(keys, k)
				}
			}
			return "an object with the keys " + strings.Join(keys, ", ")
		}
		return "an object"
	}
	return "a " + t
}

// bounds words a number's limits: " from 1 to 10", " of at least 1", " greater than 0".
func bounds(s *jsonschema.Schema) string {
	g := func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
	lo, hi := s.Minimum, s.Maximum
	var parts []string
	switch {
	case lo != nil && hi != nil:
		return " from " + g(*lo) + " to " + g(*hi)
	case lo != nil:
		parts = append(parts, "at least "+g(*lo))
	case s.ExclusiveMinimum != nil:
		parts = append(parts, "greater than "+g(*s.ExclusiveMinimum))
	}
	switch {
	case hi != nil:
		parts = append(parts, "at most "+g(*hi))
	case s.ExclusiveMaximum != nil:
		parts = append(parts, "less than "+g(*s.ExclusiveMaximum))
	}
	words := strings.Join(parts, " and ")
	if strings.HasPrefix(words, "at ") {
		return " of " + words // a whole number of at least 1
	}
	if words != "" {
		return " " + words // a whole number greater than 0
	}
	return ""
}

// orList joins "a", "b" and "c" as "a, b or c".
func orList(parts []string) string {
	switch len(parts) {
	case 0:
		return "nothing"
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// describeKind names the kind of a JSON document's top-level value.
func describeKind(raw []byte) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "not JSON"
	}
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "an object"
}

// notAnObject is the error for arguments that are not a JSON object ([] or "str" or 42).
func (t *Tool) notAnObject(raw []byte) *toolError {
	return &toolError{
		Msg:  fmt.Sprintf("%s: the arguments are %s, not an object of named arguments", t.Name, describeKind(raw)),
		Hint: fmt.Sprintf("Pass an object such as {\"name\": value}; %s takes: %s.", t.Name, t.argList()),
	}
}

// propertyRe finds the argument a validation error is about in the validator's message.
var propertyRe = lazyRegexp(`/properties/([A-Za-z0-9_]+)`)

// invalidArgument explains why the validator refused args (already checked for unknown names):
// a missing required argument, or the first argument whose value does not fit.
func (t *Tool) invalidArgument(root *jsonschema.Schema, args map[string]any, err error) *toolError {
	for _, name := range root.Required {
		if _, ok := args[name]; !ok {
			return &toolError{
				Msg:  fmt.Sprintf("%s needs the argument %s (%s)", t.Name, name, describeSchema(root.Properties[name])),
				Hint: fmt.Sprintf("Pass %s; %s takes: %s.", name, t.Name, t.argList()),
			}
		}
	}
	name := ""
	if m := propertyRe().FindStringSubmatch(err.Error()); m != nil && root.Properties[m[1]] != nil {
		name = m[1]
	}
	if name == "" {
		return &toolError{
			Msg:  fmt.Sprintf("invalid arguments for %s", t.Name),
			Hint: fmt.Sprintf("Check each argument's type and form in the input schema of %s (tools/list); it takes: %s.", t.Name, t.argList()),
		}
	}
	why := ""
	path, leaf := innermost(err.Error())
	switch within := strings.TrimPrefix(path, "/properties/"+name); {
	case within != path && subject(within) != "":
		// Something inside the argument (an item of an array, a field of an item).
		why = "; " + subject(within) + " " + reason(leaf)
	case slices.ContainsFunc([]string{"minItems", "maxItems", "unexpected", "required"}, func(p string) bool { return strings.HasPrefix(leaf, p) }):
		// What it takes does not say how many items or which keys.
		why = ", which " + reason(leaf)
	default:
		why = quotedNumber(args[name], root.Properties[name]) + splitWord(args[name], root.Properties[name]) + keyList(name, args[name]) + paneTarget(args[name], root.Properties[name]) + quotedBool(args[name], root.Properties[name])
	}
	return t.badValue(root, name, describeValue(args[name]), why)
}

// splitWord says what tmux's split words mean as a direction that takes below or right:
// "horizontal" is ambiguous (tmux's -h puts the panes side by side, vim's :split one above the
// other), so it is explained, never guessed.
func splitWord(v any, s *jsonschema.Schema) string {
	str, ok := v.(string)
	if !ok || s == nil || !slices.Contains(s.Enum, any("below")) {
		return ""
	}
	switch strings.ToLower(strings.TrimLeft(str, "-")) {
	case "h", "horizontal", "v", "vertical":
		return `, which says neither side: tmux's -h puts the new pane side by side ("right" or "left"), its -v one above the other ("below" or "above")`
	}
	return ""
}

// paneIDPattern is the pattern of a pane id argument (the seed's paneId).
const paneIDPattern = `^%\d+$`

// paneTarget says, of a string given for a pane id, that it is a tmux target or index.
func paneTarget(v any, s *jsonschema.Schema) string {
	if str, ok := v.(string); ok && s != nil && s.Pattern == paneIDPattern {
		if kind := tmuxTarget(str); kind != "" {
			return ", " + kind
		}
	}
	return ""
}

// keyList says how to send what an array given as keys held (tmux's send-keys takes its keys
// as a list: ["C-c"], ["ls", "Enter"]): one call sends one string, a key name or text.
func keyList(name string, v any) string {
	if _, ok := v.([]any); !ok || name != "keys" {
		return ""
	}
	return `, as tmux's send-keys takes its keys: here one call sends one string, a key name (keys="C-c" enter=false) or text (keys="ls", followed by Enter unless enter=false); several in order: one call each, or send_keys_batch`
}

// quotedNumber says what a string given for a number meant: a number in quotes ("5000"), or
// tmux's "-" for a line range's open end (capture-pane -S -).
func quotedNumber(v any, s *jsonschema.Schema) string {
	str, ok := v.(string)
	if !ok || !strings.Contains(describeSchema(s), "number") {
		return ""
	}
	if str == "-" {
		return `, tmux's word for the history's start (or the screen's end), which a line number says here: start=-2000 reads back up to 2,000 lines of scrollback (the whole history when it holds fewer), and an end left out is the screen's last line`
	}
	if _, err := strconv.ParseFloat(strings.TrimSpace(str), 64); err == nil {
		return ", a number in quotes: pass it without them"
	}
	return ""
}

// quotedBool says that a string given for true or false is one in quotes.
func quotedBool(v any, s *jsonschema.Schema) string {
	if str, ok := v.(string); ok && (str == "true" || str == "false") && strings.Contains(describeSchema(s), "true or false") {
		return ", " + str + " in quotes: pass it without them"
	}
	return ""
}

// validatingRe finds the schema paths of the validator's message, outermost first.
var validatingRe = lazyRegexp(`validating (\S+): `)

// innermost returns the deepest schema path of a validator message and what it says there.
func innermost(msg string) (path, leaf string) {
	locs := validatingRe().FindAllStringSubmatchIndex(msg, -1)
	if len(locs) == 0 {
		return "", msg
	}
	last := locs[len(locs)-1]
	return msg[last[2]:last[3]], msg[last[1]:]
}

// subject names the part of an argument a schema path below it points at: "an item",
// "keys of an item"; "" for the argument itself (one of its anyOf forms).
func subject(rest string) string {
	var nouns []string
	segs := strings.Split(strings.Trim(rest, "/"), "/")
	for i := 0; i < len(segs); i++ {
		switch segs[i] {
		case "items":
			nouns = append(nouns, "an item")
		case "properties":
			if i+1 < len(segs) {
				nouns = append(nouns, segs[i+1])
				i++
			}
		case "additionalProperties":
			nouns = append(nouns, "a value")
		case "anyOf", "oneOf", "allOf":
			i++
		}
	}
	if len(nouns) == 0 {
		return ""
	}
	slices.Reverse(nouns)
	return strings.Join(nouns, " of ")
}

// The validator's reasons, and how a message says them.
var reasons = []struct {
	re   func() *regexp.Regexp
	with string
}{
	{lazyRegexp(`^unexpected additional properties \[(.*)\]`), "holds the unknown key(s) $1"},
	{lazyRegexp(`^required: missing properties: \[(.*)\]`), "lacks $1"},
	{lazyRegexp(`^type: .* has type "(\w+)", want (?:one of )?"([^"]*)"`), "is ${1}, not ${2}"},
	{lazyRegexp(`^enum: `), "is not one of the values it takes"},
	{lazyRegexp(`^pattern: .* does not match regular expression "(.*)"`), "does not match $1"},
	{lazyRegexp(`^minimum: (\S+) is less than (\S+)`), "is below the minimum $2"},
	{lazyRegexp(`^maximum: (\S+) is greater than (\S+)`), "is above the maximum $2"},
	{lazyRegexp(`^minItems: array length (\d+) is less than (\d+)`), "has $1 item(s), fewer than $2"},
	{lazyRegexp(`^maxItems: array length (\d+) is greater than (\d+)`), "has $1 item(s), more than $2"},
}

// typeWords says JSON Schema's type names in words.
var typeWords = strings.NewReplacer("integer", "a whole number", "number", "a number", "string", "a string",
	"boolean", "true or false", "array", "an array", "object", "an object", ", null", " or null")

// reason says in words what the validator found wrong.
func reason(leaf string) string {
	for _, r := range reasons {
		if m := r.re().FindStringSubmatchIndex(leaf); m != nil {
			said := string(r.re().ExpandString(nil, r.with, leaf, m))
			if strings.HasPrefix(leaf, "type:") {
				said = typeWords.Replace(said)
			}
			said = strings.ReplaceAll(said, ".000000", "") // the validator prints bounds with %f
			return truncate(said, 200)
		}
	}
	return "does not fit the form it takes"
}

// badValue is the error for argument name, which got got (described) and takes what the
// schema says; why, when set, says what is wrong with it besides its form.
func (t *Tool) badValue(root *jsonschema.Schema, name, got, why string) *toolError {
	want := describeSchema(root.Properties[name])
	omit := ", or leave it out"
	if slices.Contains(root.Required, name) {
		omit = ""
	}
	return &toolError{
		Msg:  fmt.Sprintf("invalid arguments for %s: %s got %s%s; it takes %s", t.Name, name, got, why, want),
		Hint: fmt.Sprintf("Pass %s as %s%s (the input schema of %s in tools/list shows every argument).", name, want, omit, t.Name),
	}
}

// unfitValue explains a value the validator took but the tool's arguments cannot hold: in
// practice a whole number too large for 64 bits (1e+308).
func (t *Tool) unfitValue(root *jsonschema.Schema, args map[string]any, err error) *toolError {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		name := te.Field[strings.LastIndexByte(te.Field, '.')+1:]
		if root.Properties[name] != nil {
			return t.badValue(root, name, describeValue(args[name]), ", which is out of range (whole numbers go up to 9223372036854775807)")
		}
	}
	return &toolError{
		Msg:  fmt.Sprintf("invalid arguments for %s: a value is out of range or of the wrong kind", t.Name),
		Hint: fmt.Sprintf("Check each argument's type and range in the input schema of %s (tools/list).", t.Name),
	}
}

// objectArg reads an argument that takes an object, a JSON string of one, or null (some
// clients can only send strings): nil for null or a blank string.
func objectArg(name string, v any, example string) (map[string]any, error) {
	hint := fmt.Sprintf("Pass %s as an object such as %s, a JSON string of one, or null.", name, example)
	switch x := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return x, nil
	case string:
		if strings.TrimSpace(x) == "" {
			return nil, nil
		}
		var m map[string]any
		err := json.Unmarshal([]byte(x), &m)
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case err == nil && m != nil:
			return m, nil
		case errors.As(err, &se):
			return nil, fail(hint, "%s got %s, which is not valid JSON (it breaks off at byte %d)", name, describeValue(x), se.Offset)
		case errors.As(err, &te) || err == nil:
			return nil, fail(hint, "%s got %s, which holds %s, not an object", name, describeValue(x), describeKind([]byte(x)))
		}
		return nil, fail(hint, "%s got %s, which is not a JSON object", name, describeValue(x))
	}
	return nil, fail(hint, "%s got %s, not an object", name, describeValue(v))
}
