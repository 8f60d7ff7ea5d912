package server

// bufferTools: buffer tools (not built yet).
func bufferTools() []*Tool { return nil }
