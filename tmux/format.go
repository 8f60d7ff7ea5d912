package tmux

import (
	"fmt"
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
		b.WriteString("#{" + f.name + "}")
	}
	return b.String()
}

// row holds one parsed line of format output, by variable name.
type row map[string]string

// parseRow splits one line of format output produced by format(fields).
//
// A free-text field is printed as its length and then its value, two expansions that can see
// different values when the value changes between them (a pane's command as its shell starts
// a program: "4␞sleep"). When the lengths do not add up but the line holds exactly the
// separators the format prints, so that no value contains one, the line is split on them
// instead.
func parseRow(fields []field, line string) (row, error) {
	r, err := parseLengths(fields, line)
	if err == nil {
		return r, nil
	}
	if r, ok := splitPlain(fields, line); ok {
		return r, nil
	}
	return nil, err
}

// splitPlain splits a line whose values hold no separator, skipping the length prefixes.
func splitPlain(fields []field, line string) (row, bool) {
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
	r := make(row, len(fields))
	for _, f := range fields {
		if f.text {
			parts = parts[1:]
		}
		r[f.name] = parts[0]
		parts = parts[1:]
	}
	return r, true
}

// parseLengths splits a line by the length prefixes of its free-text fields.
func parseLengths(fields []field, line string) (row, error) {
	r := make(row, len(fields))
	rest := line
	for i, f := range fields {
		if i > 0 {
			if !strings.HasPrefix(rest, sep) {
				return nil, fmt.Errorf("format output %q: missing separator before %s", line, f.name)
			}
			rest = rest[len(sep):]
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
			r[f.name] = rest[:n]
			rest = rest[n:]
			continue
		}
		j := strings.Index(rest, sep)
		if j < 0 {
			j = len(rest)
		}
		r[f.name] = rest[:j]
		rest = rest[j:]
	}
	if rest != "" {
		return nil, fmt.Errorf("format output %q: unexpected trailing text", line)
	}
	return r, nil
}

func parseRows(fields []field, lines []string) ([]row, error) {
	rows := make([]row, 0, len(lines))
	for _, l := range lines {
		if l == "" {
			continue
		}
		r, err := parseRow(fields, l)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func (r row) str(k string) string { return r[k] }

func (r row) int(k string) int {
	n, _ := strconv.Atoi(r[k])
	return n
}

func (r row) int64(k string) int64 {
	n, _ := strconv.ParseInt(r[k], 10, 64)
	return n
}

func (r row) bool(k string) bool {
	v := r[k]
	return v != "" && v != "0"
}

// optInt returns nil for an empty value (a variable tmux leaves unset).
func (r row) optInt(k string) *int {
	v, ok := r[k]
	if !ok || v == "" {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return nil
	}
	return &n
}
