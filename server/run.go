package server

// runTools: run_shell_command, run_command (not built yet).
func runTools() []*Tool { return nil }
