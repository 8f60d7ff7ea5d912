package termstate

import (
	"errors"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// Mode is a terminal's line discipline, as the program in its foreground set it.
type Mode struct {
	Echo      bool // typed characters are echoed (ECHO)
	Canonical bool // input is read a line at a time, edited by the terminal (ICANON)
}

// Hidden reports whether typed input is read without being shown: canonical mode with echo
// off, as getpass, sudo, ssh and read -s set the terminal for a password.
func (m Mode) Hidden() bool { return m.Canonical && !m.Echo }

// Secret reports whether typed input is a secret the terminal does not show: Hidden input, or
// a passphrase dialog. gpg's pinentry (pinentry-curses, pinentry-tty: started by gpg-agent,
// so not the pane's process, while gpg waits in its foreground) reads keys one at a time
// with echo off and draws stars; names are the programs in the pane's foreground (the command
// tmux reports, the run's processes), any of them gpg, gpg2 or a pinentry.
func (m Mode) Secret(names ...string) bool {
	if m.Hidden() {
		return true
	}
	if m.Canonical || m.Echo {
		return false
	}
	for _, n := range names {
		n = n[strings.LastIndexByte(n, '/')+1:]
		if n == "gpg" || n == "gpg2" || strings.HasPrefix(n, "pinentry") {
			return true
		}
	}
	return false
}

// Raw reports whether the program reads keys one at a time: a line editor at a shell's
// prompt, a pager, an editor, a REPL.
func (m Mode) Raw() bool { return !m.Canonical }

// ErrNoTTY says a mode cannot be read: no path, or a platform without termios.
var ErrNoTTY = errors.New("no terminal to read")

// ReadMode reads the mode of the terminal at path (tmux's pane_tty). The terminal is opened
// without becoming this process's controlling terminal, never read, and closed at once: its
// program sees nothing.
func ReadMode(path string) (Mode, error) {
	if path == "" {
		return Mode{}, ErrNoTTY
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return Mode{}, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	return readMode(fd)
}

// modeOf decodes termios local flags.
func modeOf(lflag uint64) Mode {
	return Mode{Echo: lflag&uint64(unix.ECHO) != 0, Canonical: lflag&uint64(unix.ICANON) != 0}
}

// Name names the mode ("raw", "hidden", "line"); "unknown" when known is false.
func (m Mode) Name(known bool) string {
	switch {
	case !known:
		return "unknown"
	case m.Raw():
		return "raw"
	case m.Hidden():
		return "hidden"
	}
	return "line"
}

// ReadSize reads the size the terminal at path reports to its programs (TIOCGWINSZ): tmux
// sets it to the pane's, and stty cols/rows changes it behind tmux's back.
func ReadSize(path string) (cols, rows int, err error) {
	if path == "" {
		return 0, 0, ErrNoTTY
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, 0, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
	if err != nil {
		return 0, 0, err
	}
	return int(ws.Col), int(ws.Row), nil
}
