// Package screenshot draws a screen.Grid as an image, the way a terminal shows it, in pure Go:
// Go Mono (regular, bold, italic, bold italic) shipped in the binary, the 16 ANSI colours of a
// theme, the 256-colour palette and 24-bit colour, bold, dim, italic, underlines (single,
// double, curly, dotted, dashed, in their own colour), reverse, hidden, strikethrough,
// overline, wide characters over two cells, box drawing and block characters drawn to fill
// their cells, a hollow box of the character's width for a glyph the font lacks, and the
// cursor as a block.
package screenshot

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/screen"
)

// Options say how to draw a grid.
type Options struct {
	// Scale is the cell size relative to the base (Go Mono at 14 px, 8 × 17 pixel cells);
	// 0 means 1.
	Scale float64
	// Theme is the colour scheme; nil means Dark.
	Theme *Theme
	// Cursor is the cursor's cell, drawn as a block; nil draws none.
	Cursor *image.Point
}

// CellSize returns the pixel size of a cell at a scale (0 means 1).
func CellSize(scale float64) (w, h int, err error) {
	fs, err := facesFor(orOne(scale))
	if err != nil {
		return 0, 0, err
	}
	return fs.cw, fs.ch, nil
}

func orOne(scale float64) float64 {
	if scale <= 0 || math.IsNaN(scale) {
		return 1
	}
	return scale
}

// Render draws g. The image is paletted when the screen's colours, with the anti-aliasing
// steps of its text, fit in 256 (nearly always: measured on a full 120×40 screen, PNG 3× smaller
// and encoded 5× faster than 24-bit, which the encoder must filter row by row); a screen of more
// colours (a picture drawn with half blocks) is drawn in 24-bit.
func Render(g *screen.Grid, o Options) (image.Image, error) {
	fs, err := facesFor(orOne(o.Scale))
	if err != nil {
		return nil, err
	}
	th := o.Theme
	if th == nil {
		th = Dark
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	r := &renderer{fs: fs, th: th, cx: -1, cy: -1}
	if c := o.Cursor; c != nil && c.X >= 0 && c.Y >= 0 && c.X < g.Cols && c.Y < g.Rows {
		r.cx, r.cy = c.X, c.Y
		if r.cx > 0 && g.At(r.cx, r.cy).Width == 0 {
			r.cx-- // on the right half of a wide character: the block covers all of it
		}
	}
	r.start(g, image.Rect(0, 0, g.Cols*fs.cw, g.Rows*fs.ch))
	r.fill(r.bounds, th.BG)
	for y := 0; y < g.Rows; y++ {
		for x, c := range g.Row(y) {
			if c.Width != 0 { // a wide character's right half is drawn with its left
				r.cell(x, y, c)
			}
		}
	}
	if r.pal != nil {
		r.pal.Palette = r.palette
		return r.pal, nil
	}
	return r.rgba, nil
}

// renderer draws one image, paletted (pal) or 24-bit (rgba).
type renderer struct {
	fs     *faceSet
	th     *Theme
	cx, cy int // the cursor's cell, -1 for none
	bounds image.Rectangle

	rgba *image.RGBA

	pal     *image.Paletted
	palette color.Palette
	index   map[color.RGBA]uint8
	levels  int                           // anti-aliasing steps of a glyph's edge in the palette
	luts    map[[2]color.RGBA]*[256]uint8 // coverage to palette index, per fg/bg pair
}

// start plans the palette: every colour the cells use and, per foreground and background
// pair that has text, the blends of its anti-aliased edges, as many steps as fit.
func (r *renderer) start(g *screen.Grid, b image.Rectangle) {
	r.bounds = b
	solids := map[color.RGBA]bool{r.th.BG: true}
	pairs := map[[2]color.RGBA]bool{}
	for y := 0; y < g.Rows; y++ {
		for x, c := range g.Row(y) {
			if c.Width == 0 {
				continue
			}
			fg, bg, ul := r.cellColours(x, y, c)
			solids[fg], solids[bg], solids[ul] = true, true, true
			if shade, ok := shadeOf(c.Text); ok {
				solids[mix(fg, bg, shade)] = true
			} else if c.Text != "" {
				pairs[[2]color.RGBA{fg, bg}] = true
			}
		}
	}
	for _, levels := range []int{8, 4, 2, 1} {
		if len(solids)+len(pairs)*(levels-1) <= 256 {
			r.levels = levels
			r.pal = image.NewPaletted(b, nil)
			r.index = map[color.RGBA]uint8{}
			r.luts = map[[2]color.RGBA]*[256]uint8{}
			return
		}
	}
	r.rgba = image.NewRGBA(b)
}

// cellColours returns what a cell is drawn in: foreground, background, underline.
func (r *renderer) cellColours(x, y int, c screen.Cell) (fg, bg, ul color.RGBA) {
	fg, bg = r.colours(c.Style)
	ul = fg
	if !c.Style.UL.IsDefault() {
		ul = r.colour(c.Style.UL, fg)
	}
	if x == r.cx && y == r.cy {
		fg, bg, ul = r.th.CursorText, r.th.Cursor, r.th.CursorText
	}
	return fg, bg, ul
}

// indexOf returns c's palette index, adding it. A palette that is somehow full gets the
// nearest colour rather than a wrong index.
func (r *renderer) indexOf(c color.RGBA) uint8 {
	if i, ok := r.index[c]; ok {
		return i
	}
	if len(r.palette) == 256 {
		return uint8(r.palette.Index(c))
	}
	i := uint8(len(r.palette))
	r.palette = append(r.palette, c)
	r.index[c] = i
	return i
}

// lut returns the coverage-to-index table of a fg/bg pair.
func (r *renderer) lut(fg, bg color.RGBA) *[256]uint8 {
	k := [2]color.RGBA{fg, bg}
	if t := r.luts[k]; t != nil {
		return t
	}
	t := new([256]uint8)
	var steps [9]uint8
	for l := 0; l <= r.levels; l++ {
		steps[l] = r.indexOf(mix(fg, bg, uint8(255*l/r.levels)))
	}
	for a := range t {
		t[a] = steps[(a*r.levels+127)/255]
	}
	r.luts[k] = t
	return t
}

// colour resolves a cell colour against the theme.
func (r *renderer) colour(c screen.Color, def color.RGBA) color.RGBA {
	if i, ok := c.Index(); ok {
		return r.th.Palette(i)
	}
	if red, g, b, ok := c.RGB(); ok {
		return color.RGBA{R: red, G: g, B: b, A: 0xff}
	}
	return def
}

// colours returns a style's foreground and background as drawn.
func (r *renderer) colours(st screen.Style) (fg, bg color.RGBA) {
	fg, bg = r.colour(st.FG, r.th.FG), r.colour(st.BG, r.th.BG)
	if st.Attrs&screen.Reverse != 0 {
		fg, bg = bg, fg
	}
	if st.Attrs&screen.Dim != 0 {
		fg = mix(fg, bg, 128)
	}
	return fg, bg
}

// cell draws one cell (two for a wide character).
func (r *renderer) cell(x, y int, c screen.Cell) {
	fg, bg, ul := r.cellColours(x, y, c)
	cw, ch := r.fs.cw, r.fs.ch
	rect := image.Rect(x*cw, y*ch, (x+int(c.Width))*cw, (y+1)*ch)
	if bg != r.th.BG {
		r.fill(rect, bg)
	}
	hidden := c.Style.Attrs&screen.Hidden != 0
	if c.Text != "" && !hidden {
		switch {
		case r.box(rect, c.Text, fg, bg):
		case r.fs.drawable(c.Text):
			style := uint8(0)
			if c.Style.Attrs&screen.Bold != 0 {
				style |= styleBold
			}
			if c.Style.Attrs&screen.Italic != 0 {
				style |= styleItalic
			}
			r.blend(rect.Min, r.fs.glyph(c.Text, style, c.Width), fg, bg)
		default:
			r.placeholder(rect, fg)
		}
	}
	r.decorate(rect, c.Style.Attrs, fg, ul)
}

// decorate draws underlines, strikethrough and overline.
func (r *renderer) decorate(rect image.Rectangle, a screen.Attr, fg, ul color.RGBA) {
	if a&(screen.Underlines|screen.Strike|screen.Overline) == 0 {
		return
	}
	t := max(1, int(math.Round(r.fs.px/BasePixels)))
	base := rect.Min.Y + r.fs.ascent + 1
	if base+t > rect.Max.Y {
		base = rect.Max.Y - t
	}
	line := func(y int, c color.RGBA) { r.fill(image.Rect(rect.Min.X, y, rect.Max.X, y+t), c) }
	switch {
	case a&screen.Underline != 0:
		line(base, ul)
	case a&screen.DoubleUnderline != 0:
		line(base, ul)
		line(min(base+2*t, rect.Max.Y-t), ul)
	case a&screen.CurlyUnderline != 0:
		amp := float64(max(1, t))
		for x := rect.Min.X; x < rect.Max.X; x++ {
			dy := int(math.Round(amp * math.Sin(2*math.Pi*float64(x-rect.Min.X)/float64(r.fs.cw))))
			r.fill(image.Rect(x, base+dy, x+1, base+dy+t), ul)
		}
	case a&screen.DottedUnderline != 0:
		for x := rect.Min.X; x < rect.Max.X; x += 2 * t {
			r.fill(image.Rect(x, base, min(x+t, rect.Max.X), base+t), ul)
		}
	case a&screen.DashedUnderline != 0:
		dash := max(2, r.fs.cw/2)
		for x := rect.Min.X; x < rect.Max.X; x += 2 * dash {
			r.fill(image.Rect(x+dash/2, base, min(x+dash/2+dash, rect.Max.X), base+t), ul)
		}
	}
	if a&screen.Strike != 0 {
		line(rect.Min.Y+r.fs.ascent-int(math.Round(0.3*r.fs.px)), fg)
	}
	if a&screen.Overline != 0 {
		line(rect.Min.Y, fg)
	}
}

// placeholder draws a hollow box over the cells of a character the font lacks.
func (r *renderer) placeholder(rect image.Rectangle, fg color.RGBA) {
	in := rect.Inset(max(1, r.fs.cw/8))
	in.Min.Y += r.fs.ch / 8
	in.Max.Y -= r.fs.ch / 8
	t := max(1, int(math.Round(r.fs.px/BasePixels)))
	r.fill(image.Rect(in.Min.X, in.Min.Y, in.Max.X, in.Min.Y+t), fg)
	r.fill(image.Rect(in.Min.X, in.Max.Y-t, in.Max.X, in.Max.Y), fg)
	r.fill(image.Rect(in.Min.X, in.Min.Y, in.Min.X+t, in.Max.Y), fg)
	r.fill(image.Rect(in.Max.X-t, in.Min.Y, in.Max.X, in.Max.Y), fg)
}

// fill paints a rectangle (clipped to the image): its first row, then copies of it.
func (r *renderer) fill(rect image.Rectangle, c color.RGBA) {
	rect = rect.Intersect(r.bounds)
	if rect.Empty() {
		return
	}
	pix, stride, row, w := r.pixels(rect.Min)
	w *= rect.Dx()
	first := pix[row : row+w]
	if r.pal != nil {
		i := r.indexOf(c)
		for k := range first {
			first[k] = i
		}
	} else {
		for k := 0; k < w; k += 4 {
			first[k], first[k+1], first[k+2], first[k+3] = c.R, c.G, c.B, 0xff
		}
	}
	for y := rect.Min.Y + 1; y < rect.Max.Y; y++ {
		row += stride
		copy(pix[row:row+w], first)
	}
}

// pixels returns the image's pixel bytes, stride, the offset of p and the bytes per pixel.
func (r *renderer) pixels(p image.Point) (pix []uint8, stride, off, bpp int) {
	if r.pal != nil {
		return r.pal.Pix, r.pal.Stride, r.pal.PixOffset(p.X, p.Y), 1
	}
	return r.rgba.Pix, r.rgba.Stride, r.rgba.PixOffset(p.X, p.Y), 4
}

// blend draws fg through a coverage mask at p over a cell whose background is bg.
func (r *renderer) blend(p image.Point, m *image.Alpha, fg, bg color.RGBA) {
	var lut *[256]uint8
	if r.pal != nil {
		lut = r.lut(fg, bg)
	}
	w := min(m.Rect.Dx(), r.bounds.Max.X-p.X)
	for y := 0; y < m.Rect.Dy() && p.Y+y < r.bounds.Max.Y; y++ {
		src := m.Pix[y*m.Stride : y*m.Stride+w]
		pix, _, dst, _ := r.pixels(image.Pt(p.X, p.Y+y))
		for x, a := range src {
			switch {
			case a == 0:
			case lut != nil:
				pix[dst+x] = lut[a]
			default:
				c := mix(fg, bg, a)
				i := dst + 4*x
				pix[i], pix[i+1], pix[i+2], pix[i+3] = c.R, c.G, c.B, 0xff
			}
		}
	}
}

// mix returns a of every 255 parts fg, the rest bg.
func mix(fg, bg color.RGBA, a uint8) color.RGBA {
	m := func(f, b uint8) uint8 { return uint8((uint32(f)*uint32(a) + uint32(b)*(255-uint32(a)) + 127) / 255) }
	return color.RGBA{R: m(fg.R, bg.R), G: m(fg.G, bg.G), B: m(fg.B, bg.B), A: 0xff}
}

// pngBuffers reuses encoder buffers between screenshots.
type pngBuffers struct{ p sync.Pool }

func (b *pngBuffers) Get() *png.EncoderBuffer {
	v, _ := b.p.Get().(*png.EncoderBuffer)
	return v
}
func (b *pngBuffers) Put(e *png.EncoderBuffer) { b.p.Put(e) }

var encoder = png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: &pngBuffers{}}

// EncodePNG writes img as a PNG at deflate's best speed (terminal screens are mostly flat).
func EncodePNG(w io.Writer, img image.Image) error {
	if err := encoder.Encode(w, img); err != nil {
		return fmt.Errorf("encoding the PNG: %w", err)
	}
	return nil
}

// PNG renders g and encodes it.
func PNG(g *screen.Grid, o Options) ([]byte, error) {
	img, err := Render(g, o)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := EncodePNG(&b, img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
