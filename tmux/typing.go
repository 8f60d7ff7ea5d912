package tmux

import (
	tmuxformat "github.com/tmux-mcp/tmux-mcp/tmux/format"
	"github.com/tmux-mcp/tmux-mcp/tmux/keys"
)

// SendKeys presses keys in a pane: each a tmux key name (Enter, C-c, Escape), pressed in
// order. Run it with SendText in one Batch to type text after them with nothing in between.
type SendKeys struct {
	Pane string
	Keys []string
}

func (o *SendKeys) commands() ([][]string, error) {
	if err := checkPanes(o.Pane); err != nil {
		return nil, err
	}
	cmds := make([][]string, 0, len(o.Keys))
	for _, k := range o.Keys {
		cmds = append(cmds, []string{"send-keys", "-t", o.Pane, k})
	}
	return cmds, nil
}

func (*SendKeys) read([][]string) error { return nil }
func (*SendKeys) mutates() bool         { return true }

// SendText types Text into a pane literally (send-keys -l): no key names, every byte as is;
// line feeds and carriage returns travel as the keys C-j and C-m (the same bytes), so the
// command list stays one control-mode line.
type SendText struct {
	Pane string
	Text string
}

func (o *SendText) commands() ([][]string, error) {
	if err := checkPanes(o.Pane); err != nil {
		return nil, err
	}
	return keys.Literal(o.Pane, o.Text), nil
}

func (*SendText) read([][]string) error { return nil }
func (*SendText) mutates() bool         { return true }

// SetTitle sets a pane's title (select-pane -T), as a program's own title sequence would,
// taken as it is: select-pane expands -T as a format, and the title is a command's text.
type SetTitle struct {
	Pane  string
	Title string
}

func (o *SetTitle) commands() ([][]string, error) {
	if err := checkPanes(o.Pane); err != nil {
		return nil, err
	}
	return [][]string{{"select-pane", "-t", o.Pane, "-T", tmuxformat.Escape(o.Title)}}, nil
}

func (*SetTitle) read([][]string) error { return nil }
func (*SetTitle) mutates() bool         { return true }
