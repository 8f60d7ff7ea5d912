package server

// optionTools: options, environment and hooks (not built yet).
func optionTools() []*Tool { return nil }
