package server

// pipeTools: pipe_pane (not built yet).
func pipeTools() []*Tool { return nil }
