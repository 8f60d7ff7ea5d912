package screenshot

import "image/color"

// Theme is a colour scheme: the default foreground and background, the cursor, and the 16
// ANSI colours (palette entries 16-255 are the standard xterm cube and grey ramp in every
// theme; 24-bit colours are drawn as they are).
type Theme struct {
	Name       string
	FG, BG     color.RGBA
	Cursor     color.RGBA // the block cursor
	CursorText color.RGBA // the character under the block cursor
	ANSI       [16]color.RGBA
}

func rgb(v uint32) color.RGBA {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

// Dark is a dark theme (the default): light grey on near-black, xterm-like ANSI colours.
var Dark = &Theme{
	Name: "dark", FG: rgb(0xd0d0d0), BG: rgb(0x1c1c1c), Cursor: rgb(0xe8e8e8), CursorText: rgb(0x1c1c1c),
	ANSI: [16]color.RGBA{
		rgb(0x000000), rgb(0xcd3131), rgb(0x0dbc79), rgb(0xe5e510), rgb(0x2472c8), rgb(0xbc3fbc), rgb(0x11a8cd), rgb(0xe5e5e5),
		rgb(0x666666), rgb(0xf14c4c), rgb(0x23d18b), rgb(0xf5f543), rgb(0x3b8eea), rgb(0xd670d6), rgb(0x29b8db), rgb(0xffffff),
	},
}

// Light is a light theme: near-black on white, ANSI colours dark enough to read on it.
var Light = &Theme{
	Name: "light", FG: rgb(0x202020), BG: rgb(0xfdfdfd), Cursor: rgb(0x303030), CursorText: rgb(0xfdfdfd),
	ANSI: [16]color.RGBA{
		rgb(0x000000), rgb(0xc91b00), rgb(0x00a600), rgb(0x998800), rgb(0x0037da), rgb(0xb000b0), rgb(0x00868b), rgb(0xbfbfbf),
		rgb(0x686868), rgb(0xe5341c), rgb(0x00c200), rgb(0xb8a600), rgb(0x4466ff), rgb(0xd633d6), rgb(0x00a5b0), rgb(0xe5e5e5),
	},
}

// themes are the themes by name.
var themes = map[string]*Theme{"dark": Dark, "light": Light}

// ThemeNamed returns the theme of that name ("dark" or "light"); false for another name.
func ThemeNamed(name string) (*Theme, bool) {
	t, ok := themes[name]
	return t, ok
}

// Palette returns palette entry i: the theme's ANSI colour for 0-15, else the xterm 6×6×6
// cube (16-231) or grey ramp (232-255).
func (t *Theme) Palette(i uint8) color.RGBA {
	switch {
	case i < 16:
		return t.ANSI[i]
	case i < 232:
		i -= 16
		level := func(v uint8) uint8 {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return color.RGBA{R: level(i / 36), G: level(i / 6 % 6), B: level(i % 6), A: 0xff}
	}
	v := 8 + 10*(i-232)
	return color.RGBA{R: v, G: v, B: v, A: 0xff}
}
