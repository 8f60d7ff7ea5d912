package server

// batchTools: call_*_tools_batch (not built yet).
func batchTools() []*Tool { return nil }
