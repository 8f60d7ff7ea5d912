package server

// inputTools: send_keys, send_keys_batch, paste_text (not built yet).
func inputTools() []*Tool { return nil }
