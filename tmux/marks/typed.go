package marks

import (
	"strings"
	"unicode/utf8"
)

// maxTyped bounds the cells a typed line keeps.
const maxTyped = 8 << 10

// typed models what a line editor shows of the command line between a B and a C mark: cells
// written at a cursor that CR, BS and the usual cursor and erase sequences move, lines that LF
// (a continuation) starts. Redraws of the line (zsh, fish, readline) overwrite in place, so
// the last state of each cell wins; colours and other sequences are ignored.
type typed struct {
	lines [][]rune
	col   int
	state uint8 // psGround, psEsc, psOSC, or csi
	param int
	hold  []byte // an incomplete UTF-8 character
	over  bool
	// known says the line starts where the model's column 0 is (a B mark was seen there). A
	// reader that came in at a prompt does not know where the line began: cells drawn before
	// the editor's first redraw from the screen's start (CR not followed by LF) are dropped.
	known  bool
	cr     bool // a CR came last
	redrew bool
	// origin is the screen column the command line begins at (the prompt's width, when known):
	// the model's columns are the screen's, as a redraw from the screen's start moves them.
	origin int
}

const tsCSI = 9

func (t *typed) reset() { *t = typed{known: true} }

// resetAt is reset for a command line that begins at screen column origin (after a prompt
// of that width).
func (t *typed) resetAt(origin int) {
	t.reset()
	t.col, t.origin = min(origin, maxTyped), min(origin, maxTyped)
}

func (t *typed) cur() *[]rune {
	if len(t.lines) == 0 {
		t.lines = append(t.lines, nil)
	}
	return &t.lines[len(t.lines)-1]
}

// write feeds output bytes.
func (t *typed) write(b []byte) {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if t.cr && c != '\n' && c != '\r' {
			t.cr = false
			if !t.known && !t.redrew && len(t.lines) == 1 {
				t.lines, t.redrew = nil, true
			}
		}
		switch t.state {
		case psEsc:
			t.esc(c)
			continue
		case psOSC:
			if c == 0x07 || c == 0x1b || c == 0x18 || c == 0x1a {
				t.state = psGround // ESC \ leaves a backslash: eaten below as the ESC's final
				if c == 0x1b {
					t.state = psEsc
				}
			}
			continue
		case tsCSI:
			t.csi(c)
			continue
		}
		switch {
		case c == 0x1b:
			t.state = psEsc
		case c == '\r':
			t.col, t.cr = 0, true
		case c == '\n':
			t.cr = false
			if len(t.lines) < 64 {
				t.lines = append(t.lines, nil)
			}
			t.col = 0
		case c == 0x08:
			if t.col > 0 {
				t.col--
			}
		case c < 0x20 || c == 0x7f:
		case c < 0x80:
			t.put(rune(c))
		default:
			t.hold = append(t.hold, c)
			if utf8.FullRune(t.hold) || len(t.hold) >= 4 {
				r, _ := utf8.DecodeRune(t.hold)
				t.hold = t.hold[:0]
				t.put(r)
			}
		}
	}
}

func (t *typed) esc(c byte) {
	switch c {
	case '[':
		t.state, t.param = tsCSI, -1
	case ']', 'P', '_', '^', 'X', 'k':
		t.state = psOSC
	case 0x1b:
	default:
		t.state = psGround
	}
}

func (t *typed) csi(c byte) {
	switch {
	case c >= '0' && c <= '9':
		if t.param < 0 {
			t.param = 0
		}
		if t.param < 10000 {
			t.param = t.param*10 + int(c-'0')
		}
		return
	case c >= 0x20 && c <= 0x3f:
		return // other parameters and intermediates
	}
	t.state = psGround
	n := max(t.param, 1)
	line := t.cur()
	switch c {
	case 'D': // left
		t.col = max(t.col-n, 0)
	case 'C': // right
		t.col = min(t.col+n, maxTyped)
	case 'G': // to a column
		t.col = min(n-1, maxTyped)
	case 'K': // erase to the end of the line (0), the line (2)
		if t.param <= 0 && t.col < len(*line) {
			*line = (*line)[:t.col]
		} else if t.param == 2 {
			*line = nil
		}
	case 'J': // erase below
		if t.param <= 0 && t.col < len(*line) {
			*line = (*line)[:t.col]
		}
	case 'P': // delete characters
		if t.col < len(*line) {
			end := min(t.col+n, len(*line))
			*line = append((*line)[:t.col], (*line)[end:]...)
		}
	case '@': // insert blanks (written: they are the line's)
		if t.col < len(*line) && len(*line)+n <= maxTyped {
			ins := make([]rune, n)
			for i := range ins {
				ins[i] = ' '
			}
			*line = append((*line)[:t.col], append(ins, (*line)[t.col:]...)...)
		}
	case 'A': // up: a redraw of a multi-line command from its top
		for ; n > 0 && len(t.lines) > 1; n-- {
			t.lines = t.lines[:len(t.lines)-1]
		}
	}
}

func (t *typed) put(r rune) {
	if t.col >= maxTyped {
		t.over = true
		return
	}
	line := t.cur()
	for len(*line) < t.col {
		*line = append(*line, unwritten)
	}
	if t.col < len(*line) {
		(*line)[t.col] = r
	} else {
		*line = append(*line, r)
	}
	t.col++
}

// unwritten is a cell the cursor moved past without writing it.
const unwritten = rune(0)

// text returns the typed command line: its lines without trailing blanks, empty lines at the
// end dropped, and without a right prompt.
func (t *typed) text() string {
	var out []string
	for i, l := range t.lines {
		if i == 0 {
			l = l[min(t.origin, len(l)):] // the prompt's cells, drawn again by a redraw
		}
		l = withoutRight(l)
		out = append(out, strings.TrimRight(strings.ReplaceAll(string(l), string(unwritten), " "), " "))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	if len(out) > 0 {
		// A line editor that redraws from the start of the screen line moves right past the
		// prompt: those cells are not the command's.
		out[0] = strings.TrimLeft(out[0], " ")
	}
	return strings.Join(out, "\n")
}

// withoutRight cuts a right prompt off a line of cells: what a line editor drew after moving
// the cursor past at least rightGap cells it never wrote, beyond the text typed (fish's
// fish_right_prompt, zsh's RPROMPT, on the command line's row and kept there once it is
// entered). Typed text is drawn cell after cell; a line editor that moves over blanks rather
// than write them (zsh) moves over a few, as a command holds them.
func withoutRight(l []rune) []rune {
	start := 0
	for start < len(l) && (l[start] == unwritten || l[start] == ' ') {
		start++
	}
	gap := 0
	for i := start; i < len(l); i++ {
		if l[i] != unwritten {
			gap = 0
			continue
		}
		if gap++; gap == rightGap {
			return l[:i+1-gap]
		}
	}
	return l
}

// rightGap is the least run of unwritten cells before a right prompt.
const rightGap = 8
