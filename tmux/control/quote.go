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
// or a word holds NUL or 0xFF. A word holding LF is written with escapes
// (appendEscaped); CR and every other byte are safe.
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
			if strings.IndexByte(w, 0) >= 0 {
				return fmt.Errorf("%w: command %d (%.40q) has a word containing %q",
					ErrUnsendable, i, argv[0], "\x00")
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
			if strings.IndexByte(w, '\n') >= 0 {
				dst = appendEscaped(dst, w)
			} else {
				dst = appendQuoted(dst, w)
			}
		}
	}
	return dst
}

// appendEscaped appends s as a double-quoted word in which tmux's parser reads escapes, for a
// word holding LF (which would end a single-quoted word's line): \n for LF, \\, \" and \$
// (which would start a variable) escaped, other control bytes as octal escapes. The
// parser's double quotes and escapes are tmux 3.0's and later.
func appendEscaped(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\n':
			dst = append(dst, `\n`...)
		case c == '\\' || c == '"' || c == '$':
			dst = append(dst, '\\', c)
		case c < 0x20 || c == 0x7f:
			dst = append(dst, '\\', '0'+c>>6, '0'+c>>3&7, '0'+c&7)
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
