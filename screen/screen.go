// Package screen holds a terminal screen as a grid of styled cells, parsed from what
// `tmux capture-pane -e -p -N` prints: UTF-8 text, one line per row, with SGR escape sequences
// for colours and attributes (tmux carries the style from one line to the next).
//
// Escape sequences are decoded by github.com/charmbracelet/x/ansi (its sequence decoder and
// SGR colour reader); this package only applies what they mean to a cell style.
package screen

import "strings"

// Color is a cell colour: the terminal's default, an index in the 256-colour palette (0-15 are
// the 16 ANSI colours a theme chooses), or a 24-bit colour. The zero value is the default.
type Color uint32

// DefaultColor is the terminal's default foreground or background.
const DefaultColor Color = 0

const (
	kindIndexed = 1 << 24
	kindRGB     = 2 << 24
	kindMask    = 0xff << 24
)

// Indexed returns the palette colour i.
func Indexed(i uint8) Color { return Color(kindIndexed | uint32(i)) }

// RGB returns a 24-bit colour.
func RGB(r, g, b uint8) Color { return Color(kindRGB | uint32(r)<<16 | uint32(g)<<8 | uint32(b)) }

// IsDefault reports whether c is the terminal's default colour.
func (c Color) IsDefault() bool { return c&kindMask == 0 }

// Index returns the palette index of an indexed colour.
func (c Color) Index() (uint8, bool) { return uint8(c), c&kindMask == kindIndexed }

// RGB returns the components of a 24-bit colour.
func (c Color) RGB() (r, g, b uint8, ok bool) {
	return uint8(c >> 16), uint8(c >> 8), uint8(c), c&kindMask == kindRGB
}

// Attr is a set of text attributes.
type Attr uint16

// The attributes SGR sets.
const (
	Bold Attr = 1 << iota
	Dim
	Italic
	Underline       // single
	DoubleUnderline // SGR 21 or 4:2
	CurlyUnderline  // 4:3
	DottedUnderline // 4:4
	DashedUnderline // 4:5
	Blink
	Reverse
	Hidden
	Strike
	Overline
)

// Underlines is every underline style; at most one is set at a time.
const Underlines = Underline | DoubleUnderline | CurlyUnderline | DottedUnderline | DashedUnderline

// Style is how a cell is drawn. The zero value is the default style.
type Style struct {
	FG, BG Color
	UL     Color // underline colour (SGR 58); default means the foreground's
	Attrs  Attr
}

// Cell is one character cell.
type Cell struct {
	// Text is the grapheme the cell shows ("" for a blank). A wide character's text is in its
	// first cell.
	Text string
	// Width is 1, or 2 for the first cell of a wide character (CJK, most emoji); 0 for the
	// cell a wide character covers to the right of its first.
	Width uint8
	Style Style
}

// Grid is a screen of Cols × Rows cells.
type Grid struct {
	Cols, Rows int
	Cells      []Cell // row-major
}

// New returns a blank grid (no negative sizes).
func New(cols, rows int) *Grid {
	cols, rows = max(cols, 0), max(rows, 0)
	g := &Grid{Cols: cols, Rows: rows, Cells: make([]Cell, cols*rows)}
	for i := range g.Cells {
		g.Cells[i].Width = 1
	}
	return g
}

// Row returns row y's cells.
func (g *Grid) Row(y int) []Cell { return g.Cells[y*g.Cols : (y+1)*g.Cols] }

// At returns the cell at column x of row y.
func (g *Grid) At(x, y int) *Cell { return &g.Cells[y*g.Cols+x] }

// Text returns the grid's text, rows joined by newlines, trailing blanks of each row dropped
// (for tests and logs).
func (g *Grid) Text() string {
	var b strings.Builder
	for y := 0; y < g.Rows; y++ {
		var line strings.Builder
		for _, c := range g.Row(y) {
			switch {
			case c.Width == 0:
			case c.Text == "":
				line.WriteByte(' ')
			default:
				line.WriteString(c.Text)
			}
		}
		if y > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
	}
	return b.String()
}
