package cli

import (
	"io"
	"os"
	"runtime"
	"syscall"
	"time"
)

// pollableStdin returns stdin switched to non-blocking mode and registered with the Go
// runtime's poller, as the pipes to tmux already are, and a function that puts it back. Only a
// pipe or a socket is switched, never a terminal, whose mode the user's shell shares; anything
// else is returned as it is.
//
// The server's work is waiting: for the client's next line, for tmux's reply. On the 2-core
// VMs this is measured on, a thread switch costs tens of microseconds, and most of a cheap
// call's time went into the Go scheduler rather than into the call: a thread parked in a
// blocking read of stdin, whose P the scheduler must take back, and goroutines handed between
// threads at each wake-up. Reading stdin through the poller, and running Go code on one thread
// (Run sets GOMAXPROCS=1 unless the user set it), took list_sessions over stdio from about
// 0.45 ms to 0.29 ms median with a bare client, and from 0.6 to 0.42 ms with the go-sdk one.
func pollableStdin(stdin io.Reader) (io.Reader, func()) {
	f, ok := stdin.(*os.File)
	if !ok {
		return stdin, func() {}
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return stdin, func() {}
	}
	fd := int(f.Fd())
	if err := syscall.SetNonblock(fd, true); err != nil {
		return stdin, func() {}
	}
	// A new *os.File of a non-blocking descriptor is registered with the poller. It must stay
	// reachable until the mode is restored: its finalizer would close the descriptor.
	nf := os.NewFile(uintptr(fd), f.Name())
	if nf.SetReadDeadline(time.Time{}) != nil {
		// Not registered (ErrNoDeadline): reads would fail with EAGAIN. Stay blocking.
		syscall.SetNonblock(fd, false)
		return stdin, func() {}
	}
	return nf, func() {
		syscall.SetNonblock(fd, false)
		runtime.KeepAlive(nf)
	}
}
