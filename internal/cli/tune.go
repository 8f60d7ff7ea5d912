package cli

import (
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"
)

// TuneForStdio readies this process to serve one client over stdio, unless the user set the
// variables: GOMAXPROCS=1 and stdin read through the poller (see pollableStdin), and GOGC=50.
// It returns the reader to serve from and a function that puts stdin back as it was.
//
// On GOGC: the server's live heap is under 1 MB, so at GOGC=100 the collector's 4 MB minimum
// heap mostly holds the go-sdk's 32 KB decode buffers, garbage from the moment each message is
// read. 50 lowers that floor to 2 MB and the server's peak RSS with it; the collector runs more
// often, over the same small live heap, at no measurable latency (docs/performance.md).
func TuneForStdio(stdin io.Reader, env []string) (io.Reader, func()) {
	if _, set := lookup(env, "GOMAXPROCS"); !set {
		runtime.GOMAXPROCS(1)
	}
	if _, set := lookup(env, "GOGC"); !set {
		debug.SetGCPercent(50)
	}
	return pollableStdin(stdin)
}

// pollableStdin returns stdin switched to non-blocking mode and registered with the Go
// runtime's poller, as the pipes to tmux already are, and a function that puts it back. Only a
// pipe or a socket is switched, never a terminal, whose mode the user's shell shares; anything
// else is returned as it is.
//
// The server's work is waiting: for the client's next line, for tmux's reply. On the 2-core
// VMs this is measured on, a thread switch costs tens of microseconds, and most of a cheap
// call's time would go into the Go scheduler rather than into the call: a thread parked in a
// blocking read of stdin, whose P the scheduler must take back, and goroutines handed between
// threads at each wake-up. Reading stdin through the poller, and running Go code on one thread
// (TuneForStdio), avoids both (a cheap call a third faster: docs/performance.md).
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
