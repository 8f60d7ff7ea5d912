package screen

import (
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi/parser"
	"golang.org/x/text/width"
)

// asciiText holds one-byte strings for printable ASCII, so that the common cell costs no
// allocation; a space is a blank ("").
var asciiText = func() (t [128]string) {
	for c := '!'; c < 0x7f; c++ {
		t[c] = string(c)
	}
	return t
}()

// maxParams bounds the parameters kept of one sequence; tmux writes at most a handful.
const maxParams = 32

// Parse reads capture-pane -e output into a cols × rows grid: line i fills row i. Text beyond
// the grid is dropped, rows it does not reach stay blank. Control characters other than the
// newline, and escape sequences other than SGR, are skipped. Widths are wcwidth's (what tmux
// uses); a zero-width character (a combining mark, a joiner, a variation selector) joins the
// character before it, as tmux stores it.
//
// The escape sequences are tokenised by the DEC ANSI parser's state machine of
// github.com/charmbracelet/x/ansi/parser. (Its parent package's decoder is not used: it links
// go-runewidth, whose init builds tables for 30-45 ms of every start of this server, and it
// indexes past its parameter buffer on a sequence of more than 32 parameters.)
func Parse(data []byte, cols, rows int) *Grid {
	v := vt{g: New(cols, rows), state: parser.GroundState}
	for i := 0; i < len(data); {
		if b := data[i]; v.state == parser.GroundState && b >= utf8.RuneSelf {
			r, n := utf8.DecodeRune(data[i:])
			if r != utf8.RuneError || n > 1 {
				v.print(data[i:i+n], r)
			}
			i += n
			continue
		}
		v.advance(data[i])
		i++
	}
	return v.g
}

// vt is the state of one Parse.
type vt struct {
	g      *Grid
	st     Style
	x, y   int
	state  parser.State
	cmd    int // prefix and intermediate bytes (parser.PrefixShift, IntermedShift)
	params [maxParams]int
	n      int // parameters collected
}

// advance feeds one byte (outside a UTF-8 character) through the state machine.
func (v *vt) advance(b byte) {
	prev := v.state
	next, action := parser.Table.Transition(prev, b)
	if next == parser.Utf8State {
		next = parser.GroundState // Parse decodes UTF-8 itself, in the ground state only
	}
	v.state = next
	if prev == parser.EscapeState && next != prev {
		v.clear()
	}
	switch action {
	case parser.ClearAction:
		v.clear()
	case parser.PrintAction:
		v.print(nil, rune(b))
	case parser.ExecuteAction:
		if b == '\n' {
			v.x, v.y = 0, v.y+1
		}
	case parser.PrefixAction:
		v.cmd |= int(b) << parser.PrefixShift
	case parser.CollectAction:
		v.cmd |= int(b) << parser.IntermedShift
	case parser.ParamAction:
		v.param(b)
	case parser.DispatchAction:
		csi := prev == parser.CsiEntryState || prev == parser.CsiParamState || prev == parser.CsiIntermediateState
		if csi && b == 'm' && v.cmd == 0 {
			if v.n > 0 || v.params[0] != parser.MissingParam {
				v.n++ // the last parameter
			}
			v.st = applySGR(v.st, v.params[:min(v.n, maxParams)])
		}
	}
}

func (v *vt) clear() {
	v.cmd, v.n = 0, 0
	v.params[0] = parser.MissingParam
}

// param collects a digit or a separator of a CSI sequence's parameters (the parameters past
// maxParams are dropped).
func (v *vt) param(b byte) {
	if v.n >= maxParams {
		return
	}
	p := &v.params[v.n]
	switch {
	case b >= '0' && b <= '9':
		if *p&parser.ParamMask == parser.MissingParam {
			*p &^= parser.ParamMask
		}
		if d := *p & parser.ParamMask; d < parser.MaxParam {
			*p = *p&^parser.ParamMask | (d*10 + int(b-'0'))
		}
	case b == ';' || b == ':':
		if b == ':' {
			*p |= parser.HasMoreFlag
		}
		v.n++
		if v.n < maxParams {
			v.params[v.n] = parser.MissingParam
		}
	}
}

// print puts a character on the grid: text is its UTF-8 (nil for ASCII).
func (v *vt) print(text []byte, r rune) {
	if v.y >= v.g.Rows {
		return
	}
	switch w := cellWidth(r); {
	case w == 0:
		v.g.combine(v.x, v.y, text)
	case text == nil:
		v.x = v.g.put(v.x, v.y, asciiText[r], w, v.st)
	default:
		v.x = v.g.put(v.x, v.y, string(text), w, v.st)
	}
}

// CellWidth is wcwidth(3) as tmux uses it: 0 for combining marks and format characters (and
// controls), 2 for East Asian wide and fullwidth characters (CJK, most emoji), else 1.
func CellWidth(r rune) int { return cellWidth(r) }

func cellWidth(r rune) int {
	switch {
	case r < 0x20 || r >= 0x7f && r < 0xa0:
		return 0
	case r < 0x300:
		return 1
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf), r >= 0x1160 && r <= 0x11ff:
		return 0 // including the Hangul vowels and finals that join a syllable
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// put writes a character of width cells at column x of row y and returns the next column.
// A character that does not fit is dropped (tmux never writes one).
func (g *Grid) put(x, y int, text string, width int, st Style) int {
	if x+width > g.Cols {
		return x + width
	}
	row := g.Row(y)
	// Overwriting half of a wide character blanks its other half.
	if row[x].Width == 0 && x > 0 && row[x-1].Width == 2 {
		row[x-1] = Cell{Width: 1, Style: row[x-1].Style}
	}
	if end := x + width; end < g.Cols && row[end].Width == 0 {
		row[end] = Cell{Width: 1, Style: row[end].Style}
	}
	row[x] = Cell{Text: text, Width: uint8(width), Style: st}
	if width == 2 {
		row[x+1] = Cell{Width: 0, Style: st}
	}
	return x + width
}

// combine appends a zero-width character to the character before column x.
func (g *Grid) combine(x, y int, seq []byte) {
	x = min(x, g.Cols)
	if x == 0 {
		return
	}
	row := g.Row(y)
	i := x - 1
	if row[i].Width == 0 && i > 0 {
		i--
	}
	if row[i].Text != "" && len(row[i].Text) < 64 { // a bound on what one cell can carry
		row[i].Text += string(seq)
	}
}

// applySGR applies the parameters of one SGR sequence (CSI ... m) to st. A parameter
// carries parser.HasMoreFlag when a colon, not a semicolon, follows it (4:3, 38:2::r:g:b).
func applySGR(st Style, params []int) Style {
	if len(params) == 0 {
		return Style{}
	}
	for i := 0; i < len(params); i++ {
		code := param(params, i, 0)
		sub := -1 // the first sub-parameter (4:3), if any
		if hasMore(params, i) {
			sub = param(params, i+1, 0)
		}
		switch {
		case code == 38 || code == 48 || code == 58:
			c, n, ok := readColor(params[i:])
			if n == 0 {
				return st // a colour it cannot read: the rest of the sequence is its garbage
			}
			if ok {
				st = setColor(st, code, c)
			}
			i += n - 1
			continue
		case code >= 30 && code <= 37:
			st.FG = Indexed(uint8(code - 30))
		case code >= 40 && code <= 47:
			st.BG = Indexed(uint8(code - 40))
		case code >= 90 && code <= 97:
			st.FG = Indexed(uint8(code - 90 + 8))
		case code >= 100 && code <= 107:
			st.BG = Indexed(uint8(code - 100 + 8))
		case code == 4:
			st.Attrs = st.Attrs&^Underlines | underlineStyle(sub)
		case code == 5 && sub == 3:
			// tmux 3.3a writes overline (SGR 53) as "5:3" in capture-pane -e output.
			st.Attrs |= Overline
		default:
			st = applyCode(st, code)
		}
		for hasMore(params, i) {
			i++ // the sub-parameters belong to the code just applied
		}
	}
	return st
}

// param returns parameter i, or def when it is missing.
func param(params []int, i, def int) int {
	if i >= len(params) {
		return def
	}
	p := params[i] & parser.ParamMask
	if p == parser.MissingParam {
		return def
	}
	return p
}

// hasMore reports whether a sub-parameter follows parameter i.
func hasMore(params []int, i int) bool {
	return i+1 < len(params) && params[i]&parser.HasMoreFlag != 0
}

// readColor reads the colour of an SGR 38, 48 or 58 at params[0] and returns it with the
// number of parameters it spans (0 when the rest of the sequence cannot be read), and false
// for a colour model it does not draw: 38;5;N and 38:5:N (indexed), 38;2;R;G;B, 38:2:R:G:B and
// 38:2:ID:R:G:B (24-bit, the colour space id ignored).
func readColor(params []int) (Color, int, bool) {
	if !hasMore(params, 0) { // semicolons
		switch param(params, 1, -1) {
		case 5:
			if len(params) >= 3 {
				return Indexed(uint8(param(params, 2, 0))), 3, true
			}
		case 2:
			if len(params) >= 5 {
				return RGB(uint8(param(params, 2, 0)), uint8(param(params, 3, 0)), uint8(param(params, 4, 0))), 5, true
			}
		}
		return 0, 0, false
	}
	n := 1 // colons: the code and its sub-parameters
	for hasMore(params, n-1) {
		n++
	}
	switch sub := params[1:n]; {
	case param(sub, 0, -1) == 5 && len(sub) == 2:
		return Indexed(uint8(param(sub, 1, 0))), n, true
	case param(sub, 0, -1) == 2 && (len(sub) == 4 || len(sub) == 5 || len(sub) == 6):
		c := sub[len(sub)-3:]
		if len(sub) == 6 { // 38:2:ID:R:G:B:tolerance... keeps R, G, B after the id
			c = sub[2:5]
		}
		return RGB(uint8(param(c, 0, 0)), uint8(param(c, 1, 0)), uint8(param(c, 2, 0))), n, true
	}
	return 0, n, false // an unknown colour model: skip its sub-parameters
}

// setColor sets the foreground (38), background (48) or underline (58) colour.
func setColor(st Style, code int, c Color) Style {
	switch code {
	case 38:
		st.FG = c
	case 48:
		st.BG = c
	default:
		st.UL = c
	}
	return st
}

// underlineStyle maps SGR 4's sub-parameter to an underline (no sub-parameter: single).
func underlineStyle(sub int) Attr {
	switch sub {
	case -1, 1:
		return Underline
	case 2:
		return DoubleUnderline
	case 3:
		return CurlyUnderline
	case 4:
		return DottedUnderline
	case 5:
		return DashedUnderline
	}
	return 0 // 4:0 is "no underline"
}

// applyCode applies an SGR code that takes no colour.
func applyCode(st Style, code int) Style {
	switch code {
	case 0:
		return Style{}
	case 1:
		st.Attrs |= Bold
	case 2:
		st.Attrs |= Dim
	case 3:
		st.Attrs |= Italic
	case 5, 6:
		st.Attrs |= Blink
	case 7:
		st.Attrs |= Reverse
	case 8:
		st.Attrs |= Hidden
	case 9:
		st.Attrs |= Strike
	case 21:
		st.Attrs = st.Attrs&^Underlines | DoubleUnderline
	case 22:
		st.Attrs &^= Bold | Dim
	case 23:
		st.Attrs &^= Italic
	case 24:
		st.Attrs &^= Underlines
	case 25:
		st.Attrs &^= Blink
	case 27:
		st.Attrs &^= Reverse
	case 28:
		st.Attrs &^= Hidden
	case 29:
		st.Attrs &^= Strike
	case 39:
		st.FG = DefaultColor
	case 49:
		st.BG = DefaultColor
	case 53:
		st.Attrs |= Overline
	case 55:
		st.Attrs &^= Overline
	case 59:
		st.UL = DefaultColor
	}
	return st
}
