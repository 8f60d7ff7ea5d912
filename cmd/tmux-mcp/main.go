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
	// Every way out goes through Run's clean-up, which ends and reaps the control clients the
	// server started (one left attached to a printing pane can hang the tmux server): SIGHUP
	// too, and SIGPIPE, which Go otherwise lets kill the process on the first write to a closed
	// stdout (a client that went away); with it caught the write fails and the session ends.
	// (Caught, not ignored: an ignored signal stays ignored in the tmux processes it starts.)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := cli.Run(ctx, os.Args[1:], cli.IO{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Env: os.Environ(),
		StdinIsTerminal: cli.IsTerminal(os.Stdin), OwnProcess: true,
	})
	stop()
	os.Exit(code)
}
