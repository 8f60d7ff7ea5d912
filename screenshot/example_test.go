package screenshot_test

import (
	"bytes"
	"fmt"
	"image"
	"image/png"

	"github.com/tmux-mcp/tmux-mcp/screen"
	"github.com/tmux-mcp/tmux-mcp/screenshot"
)

func ExamplePNG() {
	g := screen.Parse([]byte("\x1b[42m ok \x1b[0m done\n$ "), 20, 2)
	b, err := screenshot.PNG(g, screenshot.Options{Theme: screenshot.Light, Cursor: &image.Point{X: 2, Y: 1}})
	if err != nil {
		panic(err)
	}
	img, _ := png.Decode(bytes.NewReader(b))
	cw, ch, _ := screenshot.CellSize(1)
	fmt.Println(img.Bounds().Dx() == 20*cw, img.Bounds().Dy() == 2*ch)
	// Output: true true
}
