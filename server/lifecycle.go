package server

// lifecycleTools: layout and lifecycle tools (not built yet).
func lifecycleTools() []*Tool { return nil }
