package server

// waitTools: wait_for_text, wait_for_channel, signal_channel (not built yet).
func waitTools() []*Tool { return nil }
