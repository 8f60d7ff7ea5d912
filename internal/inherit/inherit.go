// Package inherit keeps the processes tmux-mcp starts from inheriting its open files beyond
// stdin, stdout and stderr.
//
// Go marks every file it opens close-on-exec, but not the ones a process was started with. A
// tmux server that tmux-mcp starts (create_session with no server running) forks into a daemon
// that keeps every descriptor it inherited for as long as it runs: a pipe an MCP client left
// open in tmux-mcp would never see its end, and a client waiting for that end would wait for
// the tmux server to exit. In tests the same leak hangs Go's fuzzing: a fuzz worker talks to
// its coordinator over inherited descriptors 3 and 4, and a tmux server holding them keeps
// the coordinator waiting for a worker that is gone.
package inherit

import (
	"os"
	"strconv"
	"sync"
	"syscall"
)

var once sync.Once

// OnlyStdio marks every open descriptor above stderr close-on-exec, once per process, so
// that the programs this process starts from now on inherit only their stdio (and what an
// exec.Cmd passes in ExtraFiles). The process itself keeps using them.
func OnlyStdio() {
	once.Do(func() {
		for _, dir := range []string{"/proc/self/fd", "/dev/fd"} {
			entries, err := os.ReadDir(dir)
			if err != nil {
				continue
			}
			for _, e := range entries {
				if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
					syscall.CloseOnExec(fd)
				}
			}
			return
		}
	})
}
