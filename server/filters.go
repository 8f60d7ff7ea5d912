package server

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// filterOps are the operators a filters key may end with (field__op).
var filterOps = []string{"exact", "iexact", "contains", "icontains", "startswith", "istartswith", "endswith", "iendswith", "in", "nin", "regex", "iregex"}

// filter is one compiled `field[__op]: value` condition.
type filter struct {
	field, op, value string
	re               *regexp.Regexp
}

// parseFilters reads a filters argument (an object, a JSON string of one, or null) against the
// fields of model (a struct value whose JSON field names are the valid fields).
func parseFilters(arg any, model any) ([]filter, error) {
	m, err := objectArg("filters", arg, `{"session_name__startswith": "dev"}`)
	if m == nil || err != nil {
		return nil, err
	}
	fields := jsonFields(model)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []filter
	for _, k := range keys {
		field, op, hasOp := strings.Cut(k, "__")
		if !hasOp {
			op = "exact"
		}
		if !contains(fields, field) {
			return nil, fail("Valid fields: "+strings.Join(fields, ", ")+".", "filters: unknown field %q in %q", field, k)
		}
		if !contains(filterOps, op) {
			return nil, fail("Valid operators: "+strings.Join(filterOps, ", ")+".", "filters: unknown operator %q in %q", op, k)
		}
		f := filter{field: field, op: op, value: scalar(m[k])}
		if op == "regex" || op == "iregex" {
			expr := f.value
			if op == "iregex" {
				expr = "(?i)" + expr
			}
			re, err := regexp.Compile(expr)
			if err != nil {
				return nil, fail("Use Go (RE2) regular expression syntax.", "filters: invalid regex in %q: %v", k, err)
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
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// match applies the filters to one record.
func match(fs []filter, record any) bool {
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

func (f filter) match(v string) bool {
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

// applyFilters keeps the records that match.
func applyFilters[T any](fs []filter, records []T) []T {
	out := make([]T, 0, len(records))
	for _, r := range records {
		if match(fs, r) {
			out = append(out, r)
		}
	}
	return out
}
