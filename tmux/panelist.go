package tmux

// PaneList lists every pane of the server with what chooses one (ids and place, title,
// command, path, whether active), and the clients (see Snapshot.Watches), in one command
// list: a listing that reads less than Snapshot's every field costs tmux and this side less.
// Its result is a Snapshot holding Panes (those fields only) and Clients.
type PaneList struct {
	Snapshot *Snapshot
}

// paneBriefFields are PaneList's fields, the costly ones printed once (see printedOnce).
var paneBriefFields = printedOnce([]field{
	{name: "pane_id"}, {name: "pane_index"}, {name: "pane_title", text: true}, {name: "pane_active"},
	{name: "window_id"}, {name: "window_index"}, {name: "session_id"}, {name: "session_name", text: true},
	{name: "pane_current_command", text: true}, {name: "pane_current_path", text: true},
}, "pane_current_command", "pane_current_path")

func (o *PaneList) commands() ([][]string, error) {
	return listArgs(WithPanes|WithClients, paneBriefFields), nil
}

func (o *PaneList) read(out [][]string) error {
	snap, err := parseSnapshot(WithPanes|WithClients, out, paneBriefFields)
	if err != nil {
		// A command or path holds the separator: every text field length-prefixed.
		return err
	}
	o.Snapshot = snap
	return nil
}

func (*PaneList) mutates() bool { return false }
