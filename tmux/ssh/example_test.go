package ssh_test

import (
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/tmux/ssh"
)

// ExampleCommandLine shows the one string ssh sends for an argv: every word quoted for the
// remote login shell, a quote and a backslash written outside the quotes.
func ExampleCommandLine() {
	fmt.Println(ssh.CommandLine([]string{"tmux", "-L", "it's", `a\b`, "$HOME"}))
	// Output: exec 'tmux' '-L' 'it'\''s' 'a'\\'b' '$HOME'
}

// ExampleHost_Args shows an ssh command line for a host: batch mode, the shared connection,
// then the destination and the quoted command.
func ExampleHost_Args() {
	h := &ssh.Host{Name: "build", Destination: "me@build.example"}
	defer h.Close()
	args, err := h.Args("tmux", "-V")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(args[len(args)-3:])
	// Output: [-- me@build.example exec 'tmux' '-V']
}
