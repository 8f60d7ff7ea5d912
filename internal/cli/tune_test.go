package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func isNonblock(t *testing.T, fd int) bool {
	t.Helper()
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	return fl&syscall.O_NONBLOCK != 0
}

func TestPollableStdinPipe(t *testing.T) {
	// A blocking pipe, as a client hands one to the server (os.Pipe's are already in the
	// poller).
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil { // Pipe2 is not on macOS
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(p[0]), "stdin"), os.NewFile(uintptr(p[1]), "w")
	defer r.Close()
	defer w.Close()
	fd := p[0]
	in, restore := pollableStdin(r)
	if !isNonblock(t, fd) {
		t.Fatal("a pipe must be switched to non-blocking mode")
	}
	// Reads still block (in the poller) until data comes, and see it whole.
	got := make(chan string, 1)
	go func() {
		b := make([]byte, 16)
		n, _ := in.Read(b)
		got <- string(b[:n])
	}()
	select {
	case s := <-got:
		t.Fatalf("read returned %q before anything was written", s)
	case <-time.After(50 * time.Millisecond):
	}
	io.WriteString(w, "hello\n")
	select {
	case s := <-got:
		if s != "hello\n" {
			t.Fatalf("read %q", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the read never returned")
	}
	restore()
	if isNonblock(t, fd) {
		t.Fatal("restore must put the pipe back in blocking mode")
	}
}

func TestPollableStdinLeavesOthers(t *testing.T) {
	// A regular file (like </dev/null or a redirect) and a non-file reader pass through.
	f, err := os.Create(filepath.Join(t.TempDir(), "in"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if in, restore := pollableStdin(f); in != io.Reader(f) || isNonblock(t, int(f.Fd())) {
		t.Fatal("a regular file must be left as it is")
	} else {
		restore()
	}
	sr := strings.NewReader("x")
	if in, restore := pollableStdin(sr); in != io.Reader(sr) {
		t.Fatal("a non-file reader must be left as it is")
	} else {
		restore()
	}
}

func TestPollableStdinAlreadyPolled(t *testing.T) {
	// A descriptor the poller already holds cannot be registered twice: it must stay as it
	// was rather than fail every read with EAGAIN.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	syscall.SetNonblock(int(r.Fd()), false)
	in, restore := pollableStdin(r)
	defer restore()
	io.WriteString(w, "x")
	b := make([]byte, 4)
	if n, err := in.Read(b); err != nil || string(b[:n]) != "x" {
		t.Fatalf("read %q, %v", b[:n], err)
	}
}
