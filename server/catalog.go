package server

import "sync"

// catalog lists every tool of the product, in the order clients see them. Each group lives in
// the file named for it.
var catalog = sync.OnceValue(func() []*Tool {
	var all []*Tool
	for _, group := range [][]*Tool{
		inventoryTools(), // inventory.go
		runTools(),       // run.go: run_shell_command, run_command
		inputTools(),     // input.go: send_keys, send_keys_batch, paste_text
		secretTools(),    // secret.go: type_secret
		readTools(),      // read.go: snapshot_pane, capture_pane, capture_since, search_panes, display_message, find_pane_by_position
		commandTools(),   // commands.go: list_commands, get_command_output
		shotTools(),      // screenshot.go: screenshot_pane
		waitTools(),      // wait.go: wait_for_text, wait_for_channel, signal_channel
		pipeTools(),      // pipe.go: pipe_pane
		recordTools(),    // record.go: start_recording, stop_recording, list_recordings
		paneTools(),      // panes.go: select/swap/resize/title/clear/copy mode/respawn/kill panes
		windowTools(),    // windows.go: rename/select/layout/resize/move/kill windows and sessions, kill_server
		optionTools(),    // options.go: options, environment, hooks
		bufferTools(),    // buffers.go
		batchTools(),     // batch.go
	} {
		all = append(all, group...)
	}
	return all
})
