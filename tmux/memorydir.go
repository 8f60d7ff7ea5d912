package tmux

import (
	"os"
	"runtime"
)

// memoryDir is where short-lived files a pane's shell reads (a run's wrapper script and its
// scratch files, written, read and removed in every run) go when a directory in memory is at
// hand: on Linux the user's runtime directory ($XDG_RUNTIME_DIR, a tmpfs only its user can
// enter), else /dev/shm (a tmpfs like /tmp is a disk, sticky and world-writable as /tmp is;
// MkdirTemp's directory is private either way). On a disk each of a run's files costs its
// shell a journalled create, truncate and unlink. "" means TMPDIR: macOS and the BSDs, or no
// such directory.
func memoryDir() string {
	if runtime.GOOS != "linux" || os.Getenv("TMPDIR") != "" {
		return ""
	}
	for _, dir := range []string{os.Getenv("XDG_RUNTIME_DIR"), "/dev/shm"} {
		if fi, err := os.Stat(dir); dir != "" && err == nil && fi.IsDir() {
			return dir
		}
	}
	return ""
}
