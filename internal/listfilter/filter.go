// Package listfilter is the filters argument of the listing tools: conditions `field[__op]: value`
// on the JSON fields of the records listed, as libtmux's QueryList takes them
// (session_name__startswith, pane_current_command__in, window_name__iregex ...).
package listfilter

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/internal/hint"
)

// ops are the operators a filters key may end with (field__op); none means exact.
var ops = []string{"exact", "iexact", "contains", "icontains", "startswith", "istartswith", "endswith", "iendswith", "in", "nin", "regex", "iregex"}

// Filter is one compiled `field[__op]: value` condition.
type Filter struct {
	field, op, value string
	re               *regexp.Regexp
}

// Parse reads the conditions of m against the fields of model (a struct value whose JSON
// field names are the valid fields). A refusal is a *hint.Error naming what is valid.
func Parse(m map[string]any, model any) ([]Filter, error) {
	if len(m) == 0 {
		return nil, nil
	}
	fields := jsonFields(model)
	var out []Filter
	for _, k := range slices.Sorted(maps.Keys(m)) {
		field, op, hasOp := strings.Cut(k, "__")
		if !hasOp {
			op = "exact"
		}
		if !slices.Contains(fields, field) {
			return nil, hint.New("Valid fields: "+strings.Join(fields, ", ")+".", "filters: unknown field %q in %q", field, k)
		}
		if !slices.Contains(ops, op) {
			return nil, hint.New("Valid operators: "+strings.Join(ops, ", ")+".", "filters: unknown operator %q in %q", op, k)
		}
		f := Filter{field: field, op: op, value: scalar(m[k])}
		if op == "regex" || op == "iregex" {
			expr := f.value
			if op == "iregex" {
				expr = "(?i)" + expr
			}
			re, err := regexp.Compile(expr)
			if err != nil {
				return nil, hint.New("Use Go (RE2) regular expression syntax.", "filters: invalid regex in %q: %v", k, err)
			}
			f.re = re
		}
		out = append(out, f)
	}
	return out, nil
}

func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = scalar(e)
		}
		return strings.Join(parts, ",")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// jsonFields lists the JSON names of a struct's fields.
func jsonFields(model any) []string {
	b, _ := json.Marshal(model)
	var m map[string]any
	json.Unmarshal(b, &m)
	return slices.Sorted(maps.Keys(m))
}

// Match applies the filters to one record (all must hold).
func Match(fs []Filter, record any) bool {
	if len(fs) == 0 {
		return true
	}
	b, _ := json.Marshal(record)
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, f := range fs {
		if !f.match(scalar(m[f.field])) {
			return false
		}
	}
	return true
}

func (f Filter) match(v string) bool {
	lv, lf := strings.ToLower(v), strings.ToLower(f.value)
	switch f.op {
	case "exact":
		return v == f.value
	case "iexact":
		return lv == lf
	case "contains":
		return strings.Contains(v, f.value)
	case "icontains":
		return strings.Contains(lv, lf)
	case "startswith":
		return strings.HasPrefix(v, f.value)
	case "istartswith":
		return strings.HasPrefix(lv, lf)
	case "endswith":
		return strings.HasSuffix(v, f.value)
	case "iendswith":
		return strings.HasSuffix(lv, lf)
	case "in", "nin":
		in := false
		for _, x := range strings.Split(f.value, ",") {
			if strings.TrimSpace(x) == v {
				in = true
				break
			}
		}
		return in == (f.op == "in")
	case "regex", "iregex":
		return f.re.MatchString(v)
	}
	panic(fmt.Sprintf("filter op %q", f.op))
}

// Apply keeps the records that match.
func Apply[T any](fs []Filter, records []T) []T {
	out := make([]T, 0, len(records))
	for _, r := range records {
		if Match(fs, r) {
			out = append(out, r)
		}
	}
	return out
}
