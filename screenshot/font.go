package screenshot

import (
	"fmt"
	"image"
	"math"
	"sync"
	"unicode/utf8"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/gomonobold"
	"golang.org/x/image/font/gofont/gomonobolditalic"
	"golang.org/x/image/font/gofont/gomonoitalic"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// BasePixels is the font size, in pixels, at scale 1 (8 × 17 pixel cells).
const BasePixels = 14

// Style indexes of fonts and faces: bit 0 bold, bit 1 italic.
const (
	styleBold   = 1
	styleItalic = 2
)

// fonts are the four Go Mono fonts, parsed on first use (start-up parses nothing).
var fonts = sync.OnceValues(func() ([4]*sfnt.Font, error) {
	var fs [4]*sfnt.Font
	for i, ttf := range [][]byte{gomono.TTF, gomonobold.TTF, gomonoitalic.TTF, gomonobolditalic.TTF} {
		f, err := opentype.Parse(ttf)
		if err != nil {
			return fs, fmt.Errorf("parsing Go Mono: %w", err)
		}
		fs[i] = f
	}
	return fs, nil
})

// faceSet is the four faces of one size, their cell metrics and a cache of glyph masks. An
// opentype face is not safe for concurrent use: mu guards the whole set.
type faceSet struct {
	mu       sync.Mutex
	fonts    [4]*sfnt.Font
	faces    [4]font.Face
	buf      sfnt.Buffer
	cw, ch   int // cell size in pixels
	ascent   int // baseline, from the cell's top
	px       float64
	glyphs   map[glyphKey]*image.Alpha
	hasGlyph map[rune]bool // of the regular font, which the others match
}

type glyphKey struct {
	text  string
	style uint8
	width uint8
}

// maxGlyphs bounds the glyph cache of a size; a screen rarely holds more than a few hundred
// different characters.
const maxGlyphs = 4096

var (
	facesMu sync.Mutex
	faceMap = map[int]*faceSet{} // by size in 1/8 pixels
)

// facesFor returns the faces for a scale (font size BasePixels × scale).
func facesFor(scale float64) (*faceSet, error) {
	px := math.Round(BasePixels*scale*8) / 8
	key := int(px * 8)
	facesMu.Lock()
	defer facesMu.Unlock()
	if fs := faceMap[key]; fs != nil {
		return fs, nil
	}
	fonts, err := fonts()
	if err != nil {
		return nil, err
	}
	fs := &faceSet{fonts: fonts, px: px, glyphs: map[glyphKey]*image.Alpha{}, hasGlyph: map[rune]bool{}}
	for i, f := range fonts {
		face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: px, DPI: 72, Hinting: font.HintingFull})
		if err != nil {
			return nil, fmt.Errorf("Go Mono at %g px: %w", px, err)
		}
		fs.faces[i] = face
	}
	m := fs.faces[0].Metrics()
	adv, _ := fs.faces[0].GlyphAdvance('M')
	fs.cw, fs.ascent = max(adv.Round(), 1), m.Ascent.Ceil()
	fs.ch = max(fs.ascent+m.Descent.Ceil(), 1)
	if len(faceMap) >= 8 {
		clear(faceMap) // a few scales are in use at a time
	}
	faceMap[key] = fs
	return fs, nil
}

// has reports whether Go Mono draws r.
func (fs *faceSet) has(r rune) bool {
	ok, seen := fs.hasGlyph[r]
	if !seen {
		i, err := fs.fonts[0].GlyphIndex(&fs.buf, r)
		ok = err == nil && i != 0
		fs.hasGlyph[r] = ok
	}
	return ok
}

// drawable reports whether the font has the first character of text (the others are
// combining marks, drawn when the font has them).
func (fs *faceSet) drawable(text string) bool {
	r, _ := utf8.DecodeRuneInString(text)
	return fs.has(r)
}

// glyph returns the coverage mask of text in style, width cells wide, centred in its cells.
func (fs *faceSet) glyph(text string, style, width uint8) *image.Alpha {
	k := glyphKey{text, style, width}
	if m := fs.glyphs[k]; m != nil {
		return m
	}
	w := int(width) * fs.cw
	m := image.NewAlpha(image.Rect(0, 0, w, fs.ch))
	face := fs.faces[style&3]
	var adv fixed.Int26_6
	for _, r := range text {
		if fs.has(r) {
			a, _ := face.GlyphAdvance(r)
			adv = max(adv, a)
		}
	}
	dot := fixed.Point26_6{X: (fixed.I(w) - adv) / 2, Y: fixed.I(fs.ascent)}
	if width == 1 {
		dot.X = 0
	}
	for _, r := range text {
		if !fs.has(r) {
			continue // a combining mark the font lacks, or a variation selector
		}
		dr, mask, mp, _, ok := face.Glyph(dot, r)
		if ok {
			drawAlpha(m, dr, mask, mp)
		}
	}
	if len(fs.glyphs) >= maxGlyphs {
		clear(fs.glyphs)
	}
	fs.glyphs[k] = m
	return m
}

// drawAlpha adds the coverage of src (at sp) over the rectangle r of dst, clipped to dst;
// combining marks overlap their base, so coverage takes the maximum.
func drawAlpha(dst *image.Alpha, r image.Rectangle, src image.Image, sp image.Point) {
	clipped := r.Intersect(dst.Rect)
	for y := clipped.Min.Y; y < clipped.Max.Y; y++ {
		for x := clipped.Min.X; x < clipped.Max.X; x++ {
			_, _, _, a := src.At(sp.X+x-r.Min.X, sp.Y+y-r.Min.Y).RGBA()
			i := dst.PixOffset(x, y)
			dst.Pix[i] = max(dst.Pix[i], uint8(a>>8))
		}
	}
}
