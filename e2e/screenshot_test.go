package e2e

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/screenshot"
)

// shotOut is screenshot_pane's structured result.
type shotOut struct {
	PaneID        string  `json:"pane_id"`
	Columns       int     `json:"columns"`
	Rows          int     `json:"rows"`
	HistoryRows   int     `json:"history_rows"`
	WidthPx       int     `json:"width_px"`
	HeightPx      int     `json:"height_px"`
	CellWidthPx   int     `json:"cell_width_px"`
	CellHeightPx  int     `json:"cell_height_px"`
	CursorX       int     `json:"cursor_x"`
	CursorY       int     `json:"cursor_y"`
	CursorVisible bool    `json:"cursor_visible"`
	AlternateOn   bool    `json:"alternate_on"`
	Theme         string  `json:"theme"`
	Scale         float64 `json:"scale"`
	Bytes         int     `json:"bytes"`
}

// shoot calls screenshot_pane and returns its metadata, PNG and text line.
func shoot(t *testing.T, c *Client, args map[string]any) (shotOut, []byte, string) {
	t.Helper()
	var out shotOut
	res := c.Call("screenshot_pane", args)
	if res.IsError {
		t.Fatalf("screenshot_pane: %s", text(res))
	}
	c.OK("screenshot_pane", args, &out) // same call, for the structured result
	var img []byte
	for _, ct := range res.Content {
		if ic, ok := ct.(*mcp.ImageContent); ok {
			if ic.MIMEType != "image/png" {
				t.Errorf("image block MIME type %q", ic.MIMEType)
			}
			img = ic.Data
		}
	}
	if img == nil {
		t.Fatalf("screenshot_pane: no image block in %v", res.Content)
	}
	return out, img, text(res)
}

func at(img image.Image, x, y int) color.RGBA {
	r, g, b, a := img.At(x, y).RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
}

// paintScreen shows known text in known colours in pane p and leaves the cursor at column 10
// of row 7 (cat waits there).
func paintScreen(t *testing.T, c *Client, p string) {
	t.Helper()
	script := filepath.Join(c.Tmx.Dir, "paint.sh")
	body := `printf '\033[2J\033[H'
printf '\033[41mAB\033[0m\n'
printf '\033[48;5;27mCD\033[0m\n'
printf '\033[48;2;10;200;30mEF\033[0m\n'
printf '\033[1;31mbold\033[0m \033[7mrev\033[0m\n'
printf '\344\270\255\346\226\207\360\237\230\200x\n'
printf '\033[44m          \033[0m\n'
printf '\033[8;11H'
exec cat
`
	if err := os.WriteFile(script, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c.Tmx.Tmux("send-keys", "-t", p, "bash "+script, "Enter")
	c.Tmx.WaitFor(p, func(s string) bool { return strings.Contains(s, "bold rev") && c.fmt(p, "#{cursor_y}") == "7" })
}

func TestScreenshotPane(t *testing.T) {
	c := start(t)
	_, p := c.Tmx.NewSession("shots")
	paintScreen(t, c, p)
	out, b, line := shoot(t, c, map[string]any{"pane_id": p})
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the image is not a PNG: %v", err)
	}
	cw, ch := out.CellWidthPx, out.CellHeightPx
	if out.Columns != 80 || out.Rows != 24 || out.WidthPx != 80*cw || out.HeightPx != 24*ch || img.Bounds().Dx() != out.WidthPx || img.Bounds().Dy() != out.HeightPx {
		t.Errorf("metadata %+v for an image of %v", out, img.Bounds())
	}
	if out.Bytes != len(b) || len(b) > 80_000 {
		t.Errorf("PNG of %d bytes (metadata says %d)", len(b), out.Bytes)
	}
	if !strings.Contains(line, "Screenshot of pane "+p) || !strings.Contains(line, "80×24") {
		t.Errorf("text line %q", line)
	}
	// The cursor is where tmux says it is, and drawn there as a block.
	if x, y := c.fmt(p, "#{cursor_x}"), c.fmt(p, "#{cursor_y}"); out.CursorX != atoi(x) || out.CursorY != atoi(y) || !out.CursorVisible || out.AlternateOn {
		t.Errorf("cursor %d,%d visible %v alternate %v; tmux says %s,%s", out.CursorX, out.CursorY, out.CursorVisible, out.AlternateOn, x, y)
	}
	th := screenshot.Dark
	cell := func(x, y int) color.RGBA { return at(img, x*cw+cw/2, y*ch+1) } // above any glyph
	for _, w := range []struct {
		what string
		x, y int
		want color.RGBA
	}{
		{"16-colour background", 0, 0, th.ANSI[1]}, {"16-colour background", 1, 0, th.ANSI[1]},
		{"default background", 2, 0, th.BG},
		{"256-colour background", 1, 1, th.Palette(27)},
		{"truecolor background", 1, 2, color.RGBA{10, 200, 30, 255}},
		{"reverse video", 6, 3, th.FG},
		{"background-only cells", 0, 5, th.ANSI[4]}, {"background-only cells", 9, 5, th.ANSI[4]}, {"past the bar", 10, 5, th.BG},
		{"block cursor", 10, 7, th.Cursor},
	} {
		if got := cell(w.x, w.y); got != w.want {
			t.Errorf("%s: cell %d,%d is %v, want %v", w.what, w.x, w.y, got, w.want)
		}
	}
	// Bold red text has red ink; the x after two CJK characters and an emoji (two cells
	// each) sits in column 6.
	if !hasInk(img, cw, ch, 0, 3, th.ANSI[1]) {
		t.Error("no red ink in the bold red text")
	}
	if !hasInk(img, cw, ch, 6, 4, th.FG) || hasInk(img, cw, ch, 7, 4, th.FG) {
		t.Error("the x after the wide characters is not in column 6")
	}
	for x := 0; x < 6; x++ {
		if !hasInk(img, cw, ch, x, 4, th.FG) {
			t.Errorf("wide characters: cell %d of row 4 is blank", x)
		}
	}

	// The resource serves the same bytes (raw and percent-encoded pane ids alike).
	for _, uri := range []string{"tmux://panes/" + p + "/screenshot", "tmux://panes/" + url.PathEscape(p) + "/screenshot"} {
		rr, err := readResource(t, c, uri)
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		if len(rr.Contents) != 1 || rr.Contents[0].MIMEType != "image/png" || !bytes.Equal(rr.Contents[0].Blob, b) {
			t.Errorf("%s: not the tool's PNG (%d contents)", uri, len(rr.Contents))
		}
	}

	// Options: the light theme, a larger scale.
	light, lb, _ := shoot(t, c, map[string]any{"pane_id": p, "theme": "light", "scale": 2})
	limg, err := png.Decode(bytes.NewReader(lb))
	if err != nil {
		t.Fatal(err)
	}
	if light.CellWidthPx < 2*cw-1 || light.WidthPx != 80*light.CellWidthPx || at(limg, 20*light.CellWidthPx, 1) != screenshot.Light.BG {
		t.Errorf("light theme at scale 2: %+v, background %v", light, at(limg, 20*light.CellWidthPx, 1))
	}
}

// hasInk reports whether a pixel of cell x,y has colour c.
func hasInk(img image.Image, cw, ch, x, y int, c color.RGBA) bool {
	for py := y * ch; py < (y+1)*ch; py++ {
		for px := x * cw; px < (x+1)*cw; px++ {
			if at(img, px, py) == c {
				return true
			}
		}
	}
	return false
}

func TestScreenshotScrollbackAndErrors(t *testing.T) {
	c := start(t)
	_, p := c.Tmx.NewSession("shots")
	c.Tmx.Tmux("send-keys", "-t", p, "seq 1 100", "Enter")
	c.Tmx.WaitFor(p, func(s string) bool { return strings.Contains(s, "100\n") })
	out, _, line := shoot(t, c, map[string]any{"pane_id": p, "start": -10})
	if out.HistoryRows != 10 || out.Rows != 34 || out.HeightPx != 34*out.CellHeightPx || !strings.Contains(line, "10 of them scrollback") {
		t.Errorf("with start=-10: %+v (%s)", out, line)
	}
	wantErr(t, c, "screenshot_pane", map[string]any{"pane_id": p, "start": -5000}, "start")
	wantErr(t, c, "screenshot_pane", map[string]any{"pane_id": p, "scale": 9}, "scale")
	wantErr(t, c, "screenshot_pane", map[string]any{"pane_id": p, "theme": "neon"}, "theme")
	wantErr(t, c, "screenshot_pane", map[string]any{"pane_id": "%9999"}, "no pane has id %9999")
	if _, err := readResource(t, c, "tmux://panes/%9999/screenshot"); err == nil || !strings.Contains(err.Error(), "%9999") {
		t.Errorf("resource of an unknown pane: %v", err)
	}
	// A full-screen program's alternate screen is reported.
	c.Tmx.Tmux("send-keys", "-t", p, `printf '\033[?1049h\033[Halt-screen'; cat`, "Enter")
	c.Tmx.WaitFor(p, func(string) bool { return c.fmt(p, "#{alternate_on}") == "1" })
	if alt, _, line := shoot(t, c, map[string]any{"pane_id": p}); !alt.AlternateOn || !strings.Contains(line, "alternate screen on") {
		t.Errorf("on the alternate screen: %+v (%s)", alt, line)
	}
	c.Tmx.Tmux("send-keys", "-t", p, "C-c", "")
	c.Tmx.Tmux("set-option", "-t", p, "remain-on-exit", "on")
	c.Tmx.Tmux("send-keys", "-t", p, "exit", "Enter")
	c.Tmx.WaitFor(p, func(string) bool { return c.fmt(p, "#{pane_dead}") == "1" })
	wantErr(t, c, "screenshot_pane", map[string]any{"pane_id": p}, "is dead")
	if _, err := readResource(t, c, "tmux://panes/"+p+"/screenshot"); err == nil || !strings.Contains(err.Error(), "dead") {
		t.Errorf("resource of a dead pane: %v", err)
	}
}
