package tmux

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// sep separates fields in format output: tmux never produces it from its own numbers and flags,
// and free-text fields are length-prefixed, so a value that contains it still parses.
const sep = "\u241e"

// field is one tmux format variable in a record.
type field struct {
	name string // tmux variable, e.g. "pane_id"
	text bool   // free text: printed with a byte-length prefix
	// once: free text printed once, without the length prefix (tmux computes a variable again
	// for each expansion, and some are costly: see printedOnce). Such fields come last; a
	// line whose once fields hold a separator cannot be split (parseRow fails).
	once bool
	// expr, when set, is the format printed for the field instead of #{name}.
	expr string
}

// printedOnce returns fields with the named text fields moved to the end and printed once.
// pane_current_command and pane_current_path are each a /proc lookup in tmux, and a length
// prefix would make tmux compute them twice (a fifth of list-panes -a's time over many panes).
func printedOnce(fields []field, names ...string) []field {
	var head, tail []field
	for _, f := range fields {
		if slices.Contains(names, f.name) {
			f.text, f.once = false, true
			tail = append(tail, f)
			continue
		}
		head = append(head, f)
	}
	return append(head, tail...)
}

// format builds the -F argument for fields.
func format(fields []field) string {
	var b strings.Builder
	for i, f := range fields {
		if i > 0 {
			b.WriteString(sep)
		}
		if f.text {
			b.WriteString("#{n:" + f.name + "}" + sep)
		}
		if f.expr != "" {
			b.WriteString(f.expr)
		} else {
			b.WriteString("#{" + f.name + "}")
		}
	}
	return b.String()
}

// row holds one parsed line of format output: its values in the order of its fields, found by
// variable name through idx (shared by the rows of one list: a map per row made parsing a
// listing of 1,000 panes allocate 2 MB).
type row struct {
	idx  map[string]int
	vals []string
}

// fieldIndex maps each field's name to its position.
func fieldIndex(fields []field) map[string]int {
	idx := make(map[string]int, len(fields))
	for i, f := range fields {
		idx[f.name] = i
	}
	return idx
}

// parseRow splits one line of format output produced by format(fields).
//
// A free-text field is printed as its length and then its value, two expansions that can see
// different values when the value changes between them (a pane's command as its shell starts
// a program: "4␞sleep"). When the lengths do not add up but the line holds exactly the
// separators the format prints, so that no value contains one, the line is split on them
// instead.
func parseRow(fields []field, line string) (row, error) {
	return parseIndexed(fields, fieldIndex(fields), line)
}

func parseIndexed(fields []field, idx map[string]int, line string) (row, error) {
	vals, err := parseLengths(fields, line)
	if err == nil {
		return row{idx, vals}, nil
	}
	if vals, ok := splitPlain(fields, line); ok {
		return row{idx, vals}, nil
	}
	return row{}, err
}

// splitPlain splits a line whose values hold no separator, skipping the length prefixes.
func splitPlain(fields []field, line string) ([]string, bool) {
	want := len(fields) - 1
	for _, f := range fields {
		if f.text {
			want++
		}
	}
	parts := strings.Split(line, sep)
	if len(parts) != want+1 {
		return nil, false
	}
	vals := make([]string, 0, len(fields))
	for _, f := range fields {
		if f.text {
			parts = parts[1:]
		}
		vals = append(vals, parts[0])
		parts = parts[1:]
	}
	return vals, true
}

// parseLengths splits a line by the length prefixes of its free-text fields.
func parseLengths(fields []field, line string) ([]string, error) {
	vals := make([]string, 0, len(fields))
	rest := line
	for i, f := range fields {
		if i > 0 {
			if !strings.HasPrefix(rest, sep) {
				return nil, fmt.Errorf("format output %q: missing separator before %s", line, f.name)
			}
			rest = rest[len(sep):]
		}
		if f.once {
			// The rest of the line: one value per field left, split on the separators.
			tail := strings.Split(rest, sep)
			if len(tail) != len(fields)-i {
				return nil, fmt.Errorf("format output %q: %s and the fields after it hold the separator", line, f.name)
			}
			return append(vals, tail...), nil
		}
		if f.text {
			j := strings.Index(rest, sep)
			if j < 0 {
				return nil, fmt.Errorf("format output %q: missing length of %s", line, f.name)
			}
			n, err := strconv.Atoi(rest[:j])
			if err != nil || n < 0 || j+len(sep)+n > len(rest) {
				return nil, fmt.Errorf("format output %q: bad length of %s", line, f.name)
			}
			rest = rest[j+len(sep):]
			vals = append(vals, rest[:n])
			rest = rest[n:]
			continue
		}
		j := strings.Index(rest, sep)
		if j < 0 {
			j = len(rest)
		}
		vals = append(vals, rest[:j])
		rest = rest[j:]
	}
	if rest != "" {
		return nil, fmt.Errorf("format output %q: unexpected trailing text", line)
	}
	return vals, nil
}

func parseRows(fields []field, lines []string) ([]row, error) {
	idx := fieldIndex(fields)
	rows := make([]row, 0, len(lines))
	for _, l := range lines {
		if l == "" {
			continue
		}
		r, err := parseIndexed(fields, idx, l)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// str returns the value of variable k ("" when the row has no such field).
func (r row) str(k string) string {
	if i, ok := r.idx[k]; ok {
		return r.vals[i]
	}
	return ""
}

func (r row) int(k string) int {
	n, _ := strconv.Atoi(r.str(k))
	return n
}

func (r row) int64(k string) int64 {
	n, _ := strconv.ParseInt(r.str(k), 10, 64)
	return n
}

func (r row) bool(k string) bool {
	v := r.str(k)
	return v != "" && v != "0"
}

// optInt returns nil for an empty value (a variable tmux leaves unset).
func (r row) optInt(k string) *int {
	v := r.str(k)
	if v == "" {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return nil
	}
	return &n
}
