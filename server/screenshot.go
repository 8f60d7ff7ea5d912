package server

import (
	"context"
	"errors"
	"fmt"
	"image"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/screen"
	"github.com/tmux-mcp/tmux-mcp/screenshot"
	"github.com/tmux-mcp/tmux-mcp/server/policy"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// shotTools: screenshot_pane. Read-only: it reads the pane as capture_pane does and
// writes nothing (the PNG goes back in the result).
func shotTools() []*Tool {
	return []*Tool{
		define(spec{Name: "screenshot_pane", Title: "Screenshot tmux Pane", Tier: policy.ReadOnly, Ann: annRO,
			Description: "A pane's screen as a PNG, as a person sees it. For layout or colour (TUIs, diffs); for text, capture_pane is cheaper.",
			Input: edits(def("scale", 1.0), minimum("scale", minShotScale), maximum("scale", maxShotScale),
				def("theme", "dark"), enum("theme", "dark", "light"), minimum("start", -maxShotHistory), maximum("start", 0))},
			screenshotPane),
	}
}

// Screenshot bounds: the image is at most maxShotPixels while it is drawn, a byte a pixel
// when paletted and four in 24-bit (a 120×40 pane at scale 1 is 0.65 M pixels, 300×100 4 M).
const (
	minShotScale   = 0.5
	maxShotScale   = 4
	maxShotHistory = 1000
	maxShotPixels  = 8_000_000
)

type screenshotIn struct {
	PaneTarget
	Scale float64 `json:"scale,omitempty" jsonschema:"1: 8×17-pixel cells"`
	Theme string  `json:"theme,omitempty"`
	Start *int    `json:"start,omitempty" jsonschema:"Negative: scrollback lines too"`
	Socket
}

// ScreenshotOut describes a screenshot; the PNG itself is the result's image block.
type ScreenshotOut struct {
	PaneID        string  `json:"pane_id"`
	Columns       int     `json:"columns"`
	Rows          int     `json:"rows" jsonschema:"rows drawn: the screen's, plus history_rows above them"`
	HistoryRows   int     `json:"history_rows" jsonschema:"scrollback rows drawn above the screen"`
	WidthPx       int     `json:"width_px"`
	HeightPx      int     `json:"height_px"`
	CellWidthPx   int     `json:"cell_width_px"`
	CellHeightPx  int     `json:"cell_height_px"`
	CursorX       int     `json:"cursor_x" jsonschema:"the cursor's column on the screen"`
	CursorY       int     `json:"cursor_y" jsonschema:"the cursor's row on the screen (row history_rows + cursor_y of the image)"`
	CursorVisible bool    `json:"cursor_visible" jsonschema:"the program shows its cursor (and it is drawn)"`
	AlternateOn   bool    `json:"alternate_on" jsonschema:"the alternate screen is on (a full-screen program such as vim, less or htop)"`
	PaneInMode    bool    `json:"pane_in_mode" jsonschema:"the pane is in copy mode or another mode; the image is the program's screen beneath it"`
	Theme         string  `json:"theme"`
	Scale         float64 `json:"scale"`
	MimeType      string  `json:"mime_type"`
	Bytes         int     `json:"bytes" jsonschema:"size of the PNG"`

	png []byte
}

// Text is a line saying what the image shows.
func (o ScreenshotOut) Text() string {
	alt := "off"
	if o.AlternateOn {
		alt = "on"
	}
	hist := ""
	if o.HistoryRows > 0 {
		hist = fmt.Sprintf(" (%d of them scrollback)", o.HistoryRows)
	}
	cursor := "hidden"
	if o.CursorVisible {
		cursor = fmt.Sprintf("at column %d, row %d", o.CursorX, o.CursorY)
	}
	return fmt.Sprintf("Screenshot of pane %s: %d×%d cells%s drawn as a %d×%d px PNG (%d bytes, %s theme); cursor %s; alternate screen %s.",
		o.PaneID, o.Columns, o.Rows, hist, o.WidthPx, o.HeightPx, o.Bytes, o.Theme, cursor, alt)
}

// Content is the image block that follows the text line.
func (o ScreenshotOut) Content() []mcp.Content {
	return []mcp.Content{&mcp.ImageContent{Data: o.png, MIMEType: "image/png"}}
}

func screenshotPane(ctx context.Context, c *Call, in *screenshotIn) (ScreenshotOut, error) {
	t, err := c.pane(ctx, in.PaneTarget, in.SocketName)
	if err != nil {
		return ScreenshotOut{}, err
	}
	start := 0
	if in.Start != nil {
		start = *in.Start
	}
	return takeScreenshot(ctx, t.ts, t.pane.PaneID, in.Scale, in.Theme, start)
}

// takeScreenshot reads a pane's state and screen in one command list and draws them.
func takeScreenshot(ctx context.Context, ts *tmux.Server, pane string, scale float64, theme string, start int) (ScreenshotOut, error) {
	th, ok := screenshot.ThemeNamed(theme)
	if !ok {
		th = screenshot.Dark
	}
	scale = max(minShotScale, min(scale, maxShotScale))
	// Trailing blanks kept: a bar of background colour to the end of a line.
	st, cp := &tmux.Screen{Pane: pane}, &tmux.Capture{Pane: pane, Escapes: true, Trailing: true}
	if start < 0 {
		from := max(start, -maxShotHistory)
		cp.Start = &from
	}
	if err := ts.Batch(ctx, st, cp); err != nil {
		if errors.Is(err, tmux.ErrNotFound) || !tmux.ValidPaneID(pane) {
			return ScreenshotOut{}, fail("List the panes with list_panes and use one of their ids.", "screenshot_pane: no pane %s on this tmux server", pane)
		}
		return ScreenshotOut{}, err
	}
	if st.Dead {
		return ScreenshotOut{}, fail("Restart it with respawn_pane, or read its last text with capture_pane.", "screenshot_pane: pane %s is dead (its program exited)", pane)
	}
	o := ScreenshotOut{PaneID: pane, Columns: st.Width, CursorX: st.CursorX, CursorY: st.CursorY,
		CursorVisible: st.CursorVisible && !st.InMode, AlternateOn: st.AlternateOn, PaneInMode: st.InMode,
		Theme: th.Name, Scale: scale, MimeType: "image/png"}
	height := st.Height
	lines := cp.Lines
	o.Rows = max(len(lines), height)
	o.HistoryRows = max(0, len(lines)-height)
	var err error
	o.CellWidthPx, o.CellHeightPx, err = screenshot.CellSize(scale)
	if err != nil {
		return ScreenshotOut{}, err
	}
	o.WidthPx, o.HeightPx = o.Columns*o.CellWidthPx, o.Rows*o.CellHeightPx
	if o.WidthPx*o.HeightPx > maxShotPixels {
		return ScreenshotOut{}, fail("Use a smaller scale or fewer scrollback lines (start closer to 0).",
			"screenshot_pane: %d×%d cells at scale %g would be %d×%d pixels; at most %d pixels are drawn", o.Columns, o.Rows, scale, o.WidthPx, o.HeightPx, maxShotPixels)
	}
	g := screen.Parse([]byte(strings.Join(lines, "\n")), o.Columns, o.Rows)
	opts := screenshot.Options{Scale: scale, Theme: th}
	if o.CursorVisible {
		opts.Cursor = &image.Point{X: o.CursorX, Y: o.HistoryRows + o.CursorY}
	}
	if o.png, err = screenshot.PNG(g, opts); err != nil {
		return ScreenshotOut{}, err
	}
	o.Bytes = len(o.png)
	return o, nil
}

// ---- the resource template

var screenshotTemplate = &mcp.ResourceTemplate{
	Name: "get_pane_screenshot", Title: "Pane Screenshot", MIMEType: "image/png",
	URITemplate: "tmux://panes/{pane_id}/screenshot{?socket_name}",
	Description: "The visible screen of a tmux pane (pane_id such as %1, raw or percent-encoded as %251) drawn as a PNG, as screenshot_pane draws it with its defaults (scale 1, dark theme).",
}

// addScreenshotResource registers the screenshot template.
func (s *Server) addScreenshotResource() {
	s.mcp.AddResourceTemplate(screenshotTemplate, s.readScreenshot)
}

// readScreenshot serves tmux://panes/{pane_id}/screenshot: the same bytes as screenshot_pane
// with its defaults.
func (s *Server) readScreenshot(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	u, err := parseResourceURI(uri)
	if err == nil && u.kind != "screenshot" {
		err = fmt.Errorf("not a screenshot URI")
	}
	if err != nil {
		return nil, invalidURI(uri, err)
	}
	ts, err := s.tmuxOn(u.host, u.socket)
	if err != nil {
		return nil, resourceErr(uri, err)
	}
	o, err := takeScreenshot(ctx, ts, u.pane, 1, "dark", 0)
	if err != nil {
		return nil, resourceErr(uri, err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "image/png", Blob: o.png}}}, nil
}
