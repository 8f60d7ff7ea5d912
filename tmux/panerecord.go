package tmux

import "fmt"

// PaneRecord reads a pane's record (display-message), as Snapshot lists it. Set Pane (a pane
// id, or a window id for its active pane); Record is its result.
type PaneRecord struct {
	Pane string

	Record Pane
}

func (o *PaneRecord) commands() ([][]string, error) {
	if !validPaneTarget(o.Pane) {
		return nil, invalidPane(o.Pane)
	}
	return [][]string{{"display-message", "-p", "-t", o.Pane, paneFormat}}, nil
}

func (o *PaneRecord) read(out [][]string) error {
	if len(out[0]) != 1 {
		return fmt.Errorf("tmux printed %d lines for the record of pane %s", len(out[0]), o.Pane)
	}
	r, err := parseRow(paneFields, out[0][0])
	if err != nil {
		return err
	}
	p := paneFromRow(r)
	if ValidPaneID(o.Pane) && p.PaneID != o.Pane {
		// display-message prints the client's own pane when the target does not exist.
		return notFound("pane", o.Pane)
	}
	o.Record = p
	return nil
}

func (*PaneRecord) mutates() bool { return false }
