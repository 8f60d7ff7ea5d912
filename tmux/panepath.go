package tmux

import "strings"

// PanePath reads the directory of a pane's foreground process (pane_current_path), for a
// shell that does not report its directory itself. Set Pane (an id, %N); Path is its result.
type PanePath struct {
	Pane string

	Path string
}

var panePathFields = []field{{name: "pane_id"}, {name: "pane_current_path", text: true}}

var panePathFormat = format(panePathFields)

func (o *PanePath) commands() ([][]string, error) {
	if err := checkPanes(o.Pane); err != nil {
		return nil, err
	}
	return [][]string{{"display-message", "-p", "-t", o.Pane, panePathFormat}}, nil
}

func (o *PanePath) read(out [][]string) error {
	if len(out[0]) != 1 || !strings.HasPrefix(out[0][0], o.Pane+sep) {
		return notFound("pane", o.Pane)
	}
	r, err := parseRow(panePathFields, out[0][0])
	if err != nil {
		return err
	}
	o.Path = r.str("pane_current_path")
	return nil
}

func (*PanePath) mutates() bool { return false }
