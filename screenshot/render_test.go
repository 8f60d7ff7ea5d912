package screenshot

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/screen"
)

// sample is the colour at the centre-left of a cell's ink-free area: its top row.
func cellTop(img image.Image, cw, ch, x, y int) color.RGBA {
	return rgbaAt(img, x*cw+cw/2, y*ch+1)
}

func rgbaAt(img image.Image, x, y int) color.RGBA {
	r, g, b, a := img.At(x, y).RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
}

// inks reports whether any pixel of the cell has colour c.
func inks(img image.Image, cw, ch, x, y, w int, c color.RGBA) bool {
	for py := y * ch; py < (y+1)*ch; py++ {
		for px := x * cw; px < (x+w)*cw; px++ {
			if rgbaAt(img, px, py) == c {
				return true
			}
		}
	}
	return false
}

func TestRenderCells(t *testing.T) {
	in := "\x1b[41m  \x1b[0m\x1b[31mX\x1b[0m \x1b[48;5;27mY\x1b[0m \x1b[48;2;1;2;3mZ\x1b[0m \x1b[7mR\x1b[0m 中\U0001F600\x1b[4mu\x1b[0m\n" +
		"\x1b[44m" + strings.Repeat(" ", 20) + "\x1b[0m\n\x1b[1mB\x1b[0m\x1b[9mS\x1b[0m─│█\u0378"
	g := screen.Parse([]byte(in), 24, 4)
	for _, th := range []*Theme{Dark, Light} {
		img, err := Render(g, Options{Theme: th, Cursor: &image.Point{X: 7, Y: 2}})
		if err != nil {
			t.Fatal(err)
		}
		cw, ch, _ := CellSize(1)
		if b := img.Bounds(); b.Dx() != 24*cw || b.Dy() != 4*ch {
			t.Fatalf("image %v for 24x4 cells of %dx%d", b, cw, ch)
		}
		for _, w := range []struct {
			x, y int
			want color.RGBA
		}{
			{0, 0, th.ANSI[1]}, {1, 0, th.ANSI[1]}, // background-only cells
			{3, 0, th.BG},
			{4, 0, th.Palette(27)},
			{6, 0, color.RGBA{1, 2, 3, 255}},
			{8, 0, th.FG}, // reverse: the default foreground as background
			{0, 1, th.ANSI[4]}, {19, 1, th.ANSI[4]}, {20, 1, th.BG},
			{7, 2, th.Cursor},
		} {
			if got := cellTop(img, cw, ch, w.x, w.y); got != w.want {
				t.Errorf("%s: cell %d,%d background %v, want %v", th.Name, w.x, w.y, got, w.want)
			}
		}
		if !inks(img, cw, ch, 2, 0, 1, th.ANSI[1]) {
			t.Errorf("%s: the red X has no red pixel", th.Name)
		}
		// Go Mono lacks CJK and emoji: each is a placeholder box two cells wide, so both of its
		// cells hold its edges.
		for _, x := range []int{10, 11, 12, 13} {
			if !inks(img, cw, ch, x, 0, 1, th.FG) {
				t.Errorf("%s: cell %d of the wide characters is empty", th.Name, x)
			}
		}
		if got := rgbaAt(img, 14*cw+cw/2, cellAscent()+1); got != th.FG {
			t.Errorf("%s: no underline under u (%v)", th.Name, got)
		}
		// Box drawing fills its cell edge to edge, so lines join: ─ reaches both sides, │ the
		// top and bottom, █ everything.
		if rgbaAt(img, 2*cw, 2*ch+ch/2) != th.FG || rgbaAt(img, 3*cw-1, 2*ch+ch/2) != th.FG {
			t.Errorf("%s: ─ does not span its cell", th.Name)
		}
		if rgbaAt(img, 3*cw+cw/2, 2*ch) != th.FG || rgbaAt(img, 3*cw+cw/2, 3*ch-1) != th.FG {
			t.Errorf("%s: │ does not span its cell", th.Name)
		}
		if rgbaAt(img, 4*cw, 2*ch) != th.FG || rgbaAt(img, 5*cw-1, 3*ch-1) != th.FG {
			t.Errorf("%s: █ does not fill its cell", th.Name)
		}
		if !inks(img, cw, ch, 5, 2, 1, th.FG) {
			t.Errorf("%s: no placeholder for U+0378", th.Name)
		}
	}
}

func cellAscent() int {
	fs, _ := facesFor(1)
	return fs.ascent
}

func TestRenderDeterministic(t *testing.T) {
	g := screen.Parse([]byte("\x1b[32mhello\x1b[0m wörld 中文"), 30, 2)
	a, err := PNG(g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := PNG(g, Options{})
	if !bytes.Equal(a, b) {
		t.Error("two renders of one grid differ")
	}
	img, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	cw, ch, _ := CellSize(1)
	if img.Bounds().Dx() != 30*cw || img.Bounds().Dy() != 2*ch {
		t.Errorf("decoded size %v", img.Bounds())
	}
	w2, h2, _ := CellSize(2)
	if w2 < 2*cw-1 || h2 < 2*ch-1 {
		t.Errorf("scale 2 cells %dx%d vs %dx%d", w2, h2, cw, ch)
	}
}

// busyScreen is a screen as full as a TUI's: every cell a character, colours changing often.
func busyScreen(cols, rows int) []byte {
	var b strings.Builder
	words := []string{"\x1b[32mok\x1b[0m", "\x1b[1;31mFAIL\x1b[0m", "src/main.go:42", "\x1b[38;5;208mwarning\x1b[39m", "\x1b[48;2;40;40;90m sel \x1b[49m", "│", "func", "return", "err", "中文"}
	for y := 0; y < rows; y++ {
		n := 0
		for i := y; n < cols-12; i++ {
			w := words[i%len(words)]
			b.WriteString(w + " ")
			n += len([]rune(stripSGR(w))) + 1
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

func stripSGR(s string) string {
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			return s
		}
		j := strings.IndexByte(s[i:], 'm')
		s = s[:i] + s[i+j+1:]
	}
}

func TestBudget(t *testing.T) {
	g := screen.Parse(busyScreen(120, 40), 120, 40)
	b, err := PNG(g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The budget: a 120×40 pane's PNG is at most 80 KB (it goes into an agent's context).
	if len(b) > 80_000 {
		t.Errorf("120x40 PNG is %d bytes", len(b))
	}
	if dir := os.Getenv("SCREENSHOT_OUT"); dir != "" {
		os.WriteFile(dir+"/busy.png", b, 0o644)
	}
	t.Logf("120x40 busy screen: %d bytes", len(b))
}

func BenchmarkRender120x40(b *testing.B)  { benchRender(b, 120, 40) }
func BenchmarkRender300x100(b *testing.B) { benchRender(b, 300, 100) }

// benchRender times parse + render + PNG of a full screen, the whole cost of a screenshot but
// tmux's capture.
func benchRender(b *testing.B, cols, rows int) {
	data := busyScreen(cols, rows)
	PNG(screen.Parse(data, cols, rows), Options{}) // glyph cache warm, as on a second screenshot
	b.ResetTimer()
	var n int
	for b.Loop() {
		out, err := PNG(screen.Parse(data, cols, rows), Options{})
		if err != nil {
			b.Fatal(err)
		}
		n = len(out)
	}
	b.ReportMetric(float64(n), "png-bytes")
}
