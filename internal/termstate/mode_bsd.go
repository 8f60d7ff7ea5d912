//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package termstate

import "golang.org/x/sys/unix"

func readMode(fd int) (Mode, error) {
	t, err := unix.IoctlGetTermios(fd, unix.TIOCGETA)
	if err != nil {
		return Mode{}, err
	}
	return modeOf(uint64(t.Lflag)), nil
}
