package server

// readTools: snapshot_pane, capture_pane, capture_since, search_panes, display_message, find_pane_by_position (not built yet).
func readTools() []*Tool { return nil }
