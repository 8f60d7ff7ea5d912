package format

import "strings"

// Escape returns s written so that tmux's format expansion prints it as it is, for the
// arguments tmux expands as a format (names, titles, start directories): every # is doubled,
// except a run of # just before [, which tmux takes for a style and prints as it is
// (doubling it would print ##[ for #[).
func Escape(s string) string { return escape(s, false) }

// EscapeTime is Escape for text that tmux also passes through strftime(3) first (pipe-pane's
// command): % becomes %%, which strftime turns back into %.
func EscapeTime(s string) string { return escape(s, true) }

func escape(s string, time bool) string {
	if !strings.ContainsAny(s, "#%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '#':
			j := i
			for j < len(s) && s[j] == '#' {
				j++
			}
			b.WriteString(s[i:j])
			if j == len(s) || s[j] != '[' {
				b.WriteString(s[i:j])
			}
			i = j - 1
		case s[i] == '%' && time:
			b.WriteString("%%")
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
