package screen

import (
	"strings"
	"testing"
)

func TestParseStyles(t *testing.T) {
	// What tmux 3.3a's capture-pane -e -p -N printed for a line of styled text (see the
	// screenshot tests for the live version).
	in := "\x1b[31mred\x1b[39m \x1b[1m\x1b[42mbold\x1b[0m\x1b[39m\x1b[49m \x1b[38;5;208mo\x1b[48;2;10;20;30mT\x1b[39m\x1b[49m " +
		"\x1b[7mrev\x1b[0m \x1b[4:3mcurly\x1b[0m \x1b[4m\x1b[58;2;255;0;0mu\x1b[0m \x1b[5:3mover\x1b[0m \x1b[38:2::1:2:3mc\x1b[39m 中😀x\n" +
		"\x1b[44mbar   \n\x1b[49mnext"
	g := Parse([]byte(in), 60, 4)
	want := []struct {
		x, y int
		text string
		st   Style
		w    uint8
	}{
		{0, 0, "r", Style{FG: Indexed(1)}, 1},
		{3, 0, "", Style{}, 1},
		{4, 0, "b", Style{BG: Indexed(2), Attrs: Bold}, 1},
		{9, 0, "o", Style{FG: Indexed(208)}, 1},
		{10, 0, "T", Style{FG: Indexed(208), BG: RGB(10, 20, 30)}, 1},
		{12, 0, "r", Style{Attrs: Reverse}, 1},
		{16, 0, "c", Style{Attrs: CurlyUnderline}, 1},
		{22, 0, "u", Style{Attrs: Underline, UL: RGB(255, 0, 0)}, 1},
		{24, 0, "o", Style{Attrs: Overline}, 1},
		{29, 0, "c", Style{FG: RGB(1, 2, 3)}, 1},
		{31, 0, "中", Style{}, 2},
		{32, 0, "", Style{}, 0},
		{33, 0, "😀", Style{}, 2},
		{35, 0, "x", Style{}, 1},
		{0, 1, "b", Style{BG: Indexed(4)}, 1},
		{5, 1, "", Style{BG: Indexed(4)}, 1}, // a kept trailing blank (-N) holds its colour
		{6, 1, "", Style{}, 1},
		{0, 2, "n", Style{}, 1},
	}
	for _, w := range want {
		c := g.At(w.x, w.y)
		if c.Text != w.text || c.Style != w.st || c.Width != w.w {
			t.Errorf("cell %d,%d = %q %+v width %d, want %q %+v width %d", w.x, w.y, c.Text, c.Style, c.Width, w.text, w.st, w.w)
		}
	}
	if got := strings.Split(g.Text(), "\n")[2]; got != "next" {
		t.Errorf("row 2 = %q", got)
	}
}

func TestParseSGR(t *testing.T) {
	for _, tc := range []struct {
		seq  string
		want Style
	}{
		{"\x1b[m", Style{}},
		{"\x1b[1;2;3;9m", Style{Attrs: Bold | Dim | Italic | Strike}},
		{"\x1b[1;22m", Style{}},
		{"\x1b[21m", Style{Attrs: DoubleUnderline}},
		{"\x1b[4:2m", Style{Attrs: DoubleUnderline}},
		{"\x1b[4:0m", Style{}},
		{"\x1b[4;24m", Style{}},
		{"\x1b[91;104m", Style{FG: Indexed(9), BG: Indexed(12)}},
		{"\x1b[38;2;300;2;3m", Style{FG: RGB(44, 2, 3)}}, // out-of-range components wrap, never panic
		{"\x1b[48:5:17m", Style{BG: Indexed(17)}},
		{"\x1b[38;5m", Style{}}, // incomplete: ignored
		{"\x1b[53;7;8m", Style{Attrs: Overline | Reverse | Hidden}},
		{"\x1b[58;5;1;59m", Style{}},
	} {
		g := Parse([]byte(tc.seq+"x"), 2, 1)
		if got := g.At(0, 0).Style; got != tc.want {
			t.Errorf("%q: style %+v, want %+v", tc.seq, got, tc.want)
		}
	}
}

func TestParseEdges(t *testing.T) {
	// A wide character at the last column does not fit; text past the grid is dropped;
	// other escape sequences and control characters are skipped; a combining mark joins.
	g := Parse([]byte("abc中\x1b]0;title\x07\x1b[2J\t\r\nxyz\n1\n2\n3"), 4, 3)
	if got := g.Text(); got != "abc\nxyz\n1" {
		t.Errorf("text %q", got)
	}
	g = Parse([]byte("e\u0301x\u200d"), 3, 1)
	if g.At(0, 0).Text != "e\u0301" || g.At(1, 0).Text[:1] != "x" {
		t.Errorf("combining: %q %q", g.At(0, 0).Text, g.At(1, 0).Text)
	}
	for _, in := range []string{"", "\x1b", "\x1b[", "\xff\xfe", "\x1b[" + strings.Repeat("1;", 100) + "m", "\x9b31m", "\x1bP1;2q" + strings.Repeat("x", 1000)} {
		Parse([]byte(in+"z"), 5, 2) // must not panic
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"\x1b[31mred\x1b[0m\n中😀", "\x1b[38:2::1:2:3;4:3;5:3m", "\x1b[48;5;300m\x1b[58;2;1m", "e\u0301\u200d\n\n\n"} {
		f.Add([]byte(s), 10, 3)
	}
	f.Fuzz(func(t *testing.T, data []byte, cols, rows int) {
		cols, rows = cols%300, rows%100
		g := Parse(data, cols, rows)
		if g.Cols < 0 || g.Rows < 0 || len(g.Cells) != g.Cols*g.Rows {
			t.Fatalf("grid %dx%d with %d cells", g.Cols, g.Rows, len(g.Cells))
		}
		for y := 0; y < g.Rows; y++ {
			row := g.Row(y)
			for x, c := range row {
				// A wide character's right half always follows its left half.
				if c.Width == 0 && (x == 0 || row[x-1].Width != 2) {
					t.Fatalf("orphan continuation cell at %d,%d", x, y)
				}
				if c.Width == 2 && (x+1 >= len(row) || row[x+1].Width != 0) {
					t.Fatalf("wide cell at %d,%d without its right half", x, y)
				}
			}
		}
	})
}
