package tmux

import (
	"regexp"
	"strings"
)

// maxViewLines bounds the lines ReadViewMode reads: a configuration's errors are a few lines.
const maxViewLines = 30

// ReadViewMode reads the lines a pane in view mode shows, then leaves the mode. tmux shows
// the errors of its configuration so (in the first session's active pane, when the server
// started with errors, and no terminal client was there to tell): the pane of a session just
// made would otherwise refuse runs, its errors unread. Lines are the mode's, from its top,
// up to the first empty one.
type ReadViewMode struct {
	Pane  string
	Lines []string
}

func (o *ReadViewMode) commands() ([][]string, error) {
	if err := checkPanes(o.Pane); err != nil {
		return nil, err
	}
	cmds := [][]string{{"send-keys", "-t", o.Pane, "-X", "history-top"}}
	for range maxViewLines {
		cmds = append(cmds, []string{"display-message", "-p", "-t", o.Pane, "#{copy_cursor_line}"},
			[]string{"send-keys", "-t", o.Pane, "-X", "cursor-down"})
	}
	return append(cmds, []string{"send-keys", "-t", o.Pane, "-X", "cancel"}), nil
}

// position is the mode's position indicator, drawn over the end of its top line.
var position = regexp.MustCompile(`\s*\[\d+/\d+\]$`)

func (o *ReadViewMode) read(out [][]string) error {
	o.Lines = nil
	for i := 1; i < len(out)-1; i += 2 {
		line := ""
		if len(out[i]) > 0 {
			line = out[i][0]
		}
		if i == 1 {
			line = position.ReplaceAllString(line, "")
		}
		line = strings.TrimRight(line, " ")
		if line == "" {
			break
		}
		o.Lines = append(o.Lines, line)
	}
	return nil
}

func (*ReadViewMode) mutates() bool { return true }
