package screenshot

import (
	"image"
	"image/color"
	"math"
	"unicode/utf8"
)

// Box drawing and block characters are drawn as shapes that fill their cells, so that lines
// and bars join across cells as in a terminal: Go Mono's glyphs for them stop short of the
// cell's edges (a │ covers 16 of 17 rows at 14 px) and it lacks the heavy and rounded ones.

// arms are the four arms of a box drawing character (left, right, up, down): 0 none, 1 light,
// 2 heavy, 3 double.
type arms [4]uint8

var boxArms = func() map[rune]arms {
	m := map[rune]arms{'╭': {0, 1, 0, 1}, '╮': {1, 0, 0, 1}, '╰': {0, 1, 1, 0}, '╯': {1, 0, 1, 0},
		'╴': {1, 0, 0, 0}, '╵': {0, 0, 1, 0}, '╶': {0, 1, 0, 0}, '╷': {0, 0, 0, 1}}
	shapes := []arms{{1, 1, 0, 0}, {0, 0, 1, 1}, {0, 1, 0, 1}, {1, 0, 0, 1}, {0, 1, 1, 0}, {1, 0, 1, 0},
		{0, 1, 1, 1}, {1, 0, 1, 1}, {1, 1, 0, 1}, {1, 1, 1, 0}, {1, 1, 1, 1}}
	for weight, chars := range []string{"─│┌┐└┘├┤┬┴┼", "━┃┏┓┗┛┣┫┳┻╋", "═║╔╗╚╝╠╣╦╩╬"} {
		i := 0
		for _, c := range chars {
			var a arms
			for k, on := range shapes[i] {
				a[k] = on * uint8(weight+1)
			}
			m[c] = a
			i++
		}
	}
	return m
}()

// quadrants of U+2596..U+259F: bits 1 upper left, 2 upper right, 4 lower left, 8 lower right.
var quadrants = [10]uint8{4, 8, 1, 1 | 4 | 8, 1 | 8, 1 | 2 | 4, 1 | 2 | 8, 2, 2 | 4, 2 | 4 | 8}

// shadeOf returns the ink of a shade character (░▒▓: a quarter, half, three quarters).
func shadeOf(text string) (uint8, bool) {
	switch text {
	case "░":
		return 64, true
	case "▒":
		return 128, true
	case "▓":
		return 192, true
	}
	return 0, false
}

// box draws text when it is a box drawing or block character, and reports whether it was.
func (r *renderer) box(rect image.Rectangle, text string, fg, bg color.RGBA) bool {
	c, n := utf8.DecodeRuneInString(text)
	if n != len(text) || c < 0x2500 || c > 0x259f || rect.Dx() != r.fs.cw {
		return false
	}
	if a, ok := boxArms[c]; ok {
		r.lines(rect, a, fg)
		return true
	}
	w, h := rect.Dx(), rect.Dy()
	part := func(x0, y0, x1, y1 int) {
		r.fill(image.Rect(rect.Min.X+x0, rect.Min.Y+y0, rect.Min.X+x1, rect.Min.Y+y1), fg)
	}
	switch {
	case c == '█':
		part(0, 0, w, h)
	case c == '▀':
		part(0, 0, w, h/2)
	case c == '▔':
		part(0, 0, w, h/8)
	case c >= '▁' && c <= '▇': // lower eighths
		part(0, h-h*int(c-'▁'+1)/8, w, h)
	case c >= '▉' && c <= '▏': // left eighths, 7/8 down to 1/8
		part(0, 0, w*int('▏'-c+1)/8, h)
	case c == '▐':
		part(w/2, 0, w, h)
	case c == '▕':
		part(w-w/8, 0, w, h)
	case c >= '░' && c <= '▓':
		a, _ := shadeOf(text)
		r.fill(rect, mix(fg, bg, a))
	case c >= '▖' && c <= '▟':
		q := quadrants[c-'▖']
		xs, ys := [3]int{0, w / 2, w}, [3]int{0, h / 2, h}
		for bit := range 4 {
			if q&(1<<bit) != 0 {
				qx, qy := bit%2, bit/2
				part(xs[qx], ys[qy], xs[qx+1], ys[qy+1])
			}
		}
	default:
		return false
	}
	return true
}

// lines draws the arms of a box drawing character from the cell's centre to its edges.
func (r *renderer) lines(rect image.Rectangle, a arms, fg color.RGBA) {
	t := max(1, int(math.Round(r.fs.px/BasePixels)))
	thick := func(weight uint8) int {
		switch weight {
		case 2:
			return 2 * t
		case 3:
			return 3 * t // two lines of t with a gap of t
		}
		return t
	}
	cx, cy := rect.Min.X+rect.Dx()/2, rect.Min.Y+rect.Dy()/2
	// The arms overlap in the centre square, so that corners close.
	hv := max(thick(a[2]), thick(a[3])) / 2
	hh := max(thick(a[0]), thick(a[1])) / 2
	horiz := func(x0, x1 int, weight uint8) {
		th := thick(weight)
		y := cy - th/2
		if weight == 3 {
			r.fill(image.Rect(x0, y, x1, y+t), fg)
			r.fill(image.Rect(x0, y+2*t, x1, y+3*t), fg)
			return
		}
		r.fill(image.Rect(x0, y, x1, y+th), fg)
	}
	vert := func(y0, y1 int, weight uint8) {
		th := thick(weight)
		x := cx - th/2
		if weight == 3 {
			r.fill(image.Rect(x, y0, x+t, y1), fg)
			r.fill(image.Rect(x+2*t, y0, x+3*t, y1), fg)
			return
		}
		r.fill(image.Rect(x, y0, x+th, y1), fg)
	}
	if a[0] != 0 {
		horiz(rect.Min.X, cx+hv+1, a[0])
	}
	if a[1] != 0 {
		horiz(cx-hv, rect.Max.X, a[1])
	}
	if a[2] != 0 {
		vert(rect.Min.Y, cy+hh+1, a[2])
	}
	if a[3] != 0 {
		vert(cy-hh, rect.Max.Y, a[3])
	}
}
