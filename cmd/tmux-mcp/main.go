// Command tmux-mcp is a Model Context Protocol server for tmux. See README.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/tmux-mcp/tmux-mcp/internal/cli"
	"github.com/tmux-mcp/tmux-mcp/internal/inherit"
)

func main() {
	inherit.OnlyStdio() // tmux servers it starts keep nothing of its parent's but stdio
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], cli.IO{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Env: os.Environ(),
		StdinIsTerminal: cli.IsTerminal(os.Stdin), OwnProcess: true,
	})
	stop()
	os.Exit(code)
}
