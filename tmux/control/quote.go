package control

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnsendable is returned (wrapped) for a command that cannot be written as
// a control-mode line: no commands, an empty argv, or a word holding LF (ends
// the line), NUL (truncates it) or the byte 0xFF (tmux's lexer reads it as end
// of input). Such commands must go through a spawned tmux process instead.
var ErrUnsendable = errors.New("tmux command cannot be sent over a control connection")

// Quote returns s as one word for tmux's command parser: single-quoted, with
// each single quote inside written as close-quote, backslash-quote,
// open-quote:
//
//	it's  ->  'it'\''s'
//
// Inside single quotes tmux takes every byte literally (; # $ ~ { \ CR, tabs,
// UTF-8). Quote does not check for the bytes that cannot be sent at all;
// Line does.
//
// Note that quoting does not stop tmux from reading a word that starts with
// "-" as a flag: callers put "--" before such positional arguments.
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for {
		i := strings.IndexByte(s, '\'')
		if i < 0 {
			break
		}
		b.WriteString(s[:i])
		b.WriteString(`'\''`)
		s = s[i+1:]
	}
	b.WriteString(s)
	b.WriteByte('\'')
	return b.String()
}

// appendQuoted appends the quoted form of s to dst.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '\'')
	for {
		i := strings.IndexByte(s, '\'')
		if i < 0 {
			break
		}
		dst = append(dst, s[:i]...)
		dst = append(dst, `'\''`...)
		s = s[i+1:]
	}
	dst = append(dst, s...)
	return append(dst, '\'')
}

// Line builds one command line (without the trailing newline) from argv
// lists joined by " ; ", so tmux runs them as one command list. It returns an
// error wrapping ErrUnsendable when there are no commands, an argv is empty,
// or a word holds LF, NUL or 0xFF. CR and every other byte are safe.
func Line(cmds ...[]string) (string, error) {
	if err := checkCommands(cmds); err != nil {
		return "", err
	}
	return string(appendLine(make([]byte, 0, lineSize(cmds)), cmds)), nil
}

// checkCommands reports why cmds cannot be sent as one line, or nil.
func checkCommands(cmds [][]string) error {
	if len(cmds) == 0 {
		return fmt.Errorf("%w: no commands", ErrUnsendable)
	}
	for i, argv := range cmds {
		if len(argv) == 0 {
			return fmt.Errorf("%w: command %d is empty", ErrUnsendable, i)
		}
		for _, w := range argv {
			if j := strings.IndexAny(w, "\n\x00"); j >= 0 {
				return fmt.Errorf("%w: command %d (%.40q) has a word containing %q",
					ErrUnsendable, i, argv[0], w[j])
			}
			if strings.IndexByte(w, 0xff) >= 0 {
				return fmt.Errorf("%w: command %d (%.40q) has a word containing byte 0xff",
					ErrUnsendable, i, argv[0])
			}
		}
	}
	return nil
}

// lineSize is a close upper bound of the length of the line for cmds, so the
// buffer is allocated once.
func lineSize(cmds [][]string) int {
	n := 0
	for _, argv := range cmds {
		n += 3
		for _, w := range argv {
			n += len(w) + 3
		}
	}
	return n
}

// appendLine appends the command line for cmds (already checked) to dst.
func appendLine(dst []byte, cmds [][]string) []byte {
	for i, argv := range cmds {
		if i > 0 {
			dst = append(dst, " ; "...)
		}
		for j, w := range argv {
			if j > 0 {
				dst = append(dst, ' ')
			}
			dst = appendQuoted(dst, w)
		}
	}
	return dst
}
