package shellrun

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Redraw says where the typed line sits on the screen, so that the wrapper can put the
// command there instead, as if a person had typed it: the line that held the sourcing line
// then reads "<prompt><command>".
type Redraw struct {
	// Up is how many rows above the cursor the typed line begins once Enter moved the cursor
	// to the start of the next row; Col is the column (0-based) where it begins.
	Up, Col int
	// Prefix is shown before the command: the text that stood left of the typed line before
	// a line editor drew over it, when Col is 0 for that reason.
	Prefix string
	// Echo is how many rows the typed line takes when a shell in verbose mode (set -v) echoes
	// it after Enter, below it: the redraw then goes up those rows too (see EchoRows).
	Echo int
}

// EchoRows is how many rows a line of width cells, echoed from the start of a row, takes on
// a screen cols wide.
func EchoRows(width, cols int) int {
	if cols <= 0 {
		return 0
	}
	return max(1, (width+cols-1)/cols)
}

// RedrawAt computes the Redraw for a typed line of width cells whose end is at the cursor
// (cursorX, cursorY) of a screen cols wide, read after the shell echoed it and before Enter.
// ok is false when the line's start is not on the screen (it scrolled away, or the shell's
// line editor scrolls long lines sideways).
func RedrawAt(cursorX, cursorY, cols, width int) (r Redraw, ok bool) {
	if cols <= 0 || width <= 0 || cursorX < 0 || cursorY < 0 {
		return r, false
	}
	start := cursorY*cols + min(cursorX, cols) - width
	if start < 0 {
		return r, false
	}
	row := start / cols
	return Redraw{Up: cursorY + 1 - row, Col: start % cols, Echo: EchoRows(width, cols)}, true
}

// maxShown bounds how much of the command the redraw shows.
const maxShown = 2048

// liftFormat returns the printf FORMAT (octal escapes, and "%d" for the rows to go up) of the
// redraw: back to where the typed line began, erase from there to the end of the screen, show
// the command and start a new line. The wrapper adds to Up the rows taken below the typed line
// by what the shell echoed or traced of it (verbose mode; ksh93's and mksh's traces), and the
// redraw erases them with the typed line. "" for a nil Redraw.
//
// The rows below the typed line's first are erased from the next row's start (ESC [ J), then
// the rest of that first row (ESC [ K, the redraw's last erase: see runner's collector). One
// ESC [ J from the typed line's start would, when that is the screen's top left corner (a
// fresh or cleared pane, and a line drawn from column 0), clear the whole screen, which tmux
// (scroll-on-clear) first copies into the history: the typed line would stay there. The next
// row exists: Enter moved the cursor below the typed line.
func (r *Redraw) liftFormat(cmd string) string {
	if r == nil {
		return ""
	}
	return octalFormat("\r\x1b[") + "%d" + octalFormat("A\x1b[B\x1b[J\x1b[A\x1b["+strconv.Itoa(r.Col+1)+"G\x1b[K"+
		shown(r.Prefix)+shown(cmd)+"\r\n")
}

// shown is the command as the screen shows it: its lines joined by CR LF, other control
// characters in caret notation (^[ for ESC), at most maxShown bytes.
func shown(cmd string) string {
	var b strings.Builder
	for i, r := range cmd {
		if b.Len() >= maxShown {
			b.WriteString("…")
			break
		}
		switch {
		case r == '\n':
			b.WriteString("\r\n")
		case r == '\t':
			b.WriteByte('\t')
		case r < 0x20:
			b.WriteByte('^')
			b.WriteByte(byte(r) + '@')
		case r == 0x7f:
			b.WriteString("^?")
		case r == utf8.RuneError && !validAt(cmd, i):
			b.WriteByte('?')
		case r >= 0x80 && r < 0xa0:
			b.WriteByte('?') // C1 controls
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// validAt reports whether the rune at cmd[i] is a real U+FFFD rather than invalid UTF-8.
func validAt(cmd string, i int) bool {
	r, n := utf8.DecodeRuneInString(cmd[i:])
	return r == utf8.RuneError && n == 3
}
