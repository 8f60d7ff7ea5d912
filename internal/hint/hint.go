// Package hint is the shape of every refusal the server gives a client: what went wrong, a
// blank line, and what to do instead. Packages that check user input return an *Error, and the
// server shows it as the tool error's text.
package hint

import "fmt"

// Error is a failure with the advice that goes with it.
type Error struct {
	Msg  string // what went wrong
	Hint string // what to do instead; "" when there is nothing to say
}

func (e *Error) Error() string {
	if e.Hint == "" {
		return e.Msg
	}
	return e.Msg + "\n\n" + e.Hint
}

// New builds an *Error from a hint and a formatted message.
func New(hint, format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...), Hint: hint}
}

// Truncate cuts s to n bytes and marks the cut with "…": for quoting what a client sent
// inside a message.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
