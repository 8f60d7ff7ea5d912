package tmux

import (
	"errors"
	"testing"
)

// tmux says a target is missing in two ways; both are ErrNotFound, and nothing else is.
func TestCommandErrorNotFound(t *testing.T) {
	for msg, want := range map[string]bool{
		"can't find pane: %9":             true,
		"no such pane: %9":                true,
		"no such window: @9":              true,
		"no such session: x":              true,
		"no such file or directory: /x":   false,
		"unknown option: status-lefty":    false,
		"size missing or out of range: 0": false,
	} {
		if got := errors.Is(&CommandError{Message: msg}, ErrNotFound); got != want {
			t.Errorf("%q: ErrNotFound %v, want %v", msg, got, want)
		}
	}
}
