package tmux

import "strings"

// PaneFormat is the format that prints one Pane record, for callers that read a pane with their
// own command (display-message -p -t %N) in the same command list as other commands.
func PaneFormat() string { return paneFormat }

// ParsePane parses one line printed with PaneFormat.
func ParsePane(line string) (Pane, error) {
	r, err := parseRow(paneFields, line)
	if err != nil {
		return Pane{}, err
	}
	return paneFromRow(r), nil
}

// Sep is the field separator of this package's formats (U+241E): tmux never prints it from its
// own numbers, flags and mode names, so callers may use it in their own formats too.
const Sep = sep

// SplitFields splits a line of a caller's format joined with Sep into exactly n fields (missing
// ones are empty); only fields tmux prints from numbers, flags and names may be read this way.
func SplitFields(line string, n int) []string {
	f := strings.SplitN(line, sep, n)
	for len(f) < n {
		f = append(f, "")
	}
	return f
}
