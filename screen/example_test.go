package screen_test

import (
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/screen"
)

func ExampleParse() {
	// Two rows as tmux capture-pane -e -p -N prints them: a red word, a wide character.
	g := screen.Parse([]byte("\x1b[1;31mFAIL\x1b[0m ok\n中x"), 10, 2)
	c := g.At(0, 0)
	fg, _ := c.Style.FG.Index()
	fmt.Println(c.Text, fg, c.Style.Attrs&screen.Bold != 0)
	fmt.Println(g.At(0, 1).Width, g.At(2, 1).Text)
	fmt.Println(g.Text())
	// Output:
	// F 1 true
	// 2 x
	// FAIL ok
	// 中x
}
