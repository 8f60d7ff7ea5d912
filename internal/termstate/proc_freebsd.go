package termstate

import (
	"golang.org/x/sys/unix"
)

func available() bool { return true }

func readProc(pid int) (Proc, bool) {
	b, err := unix.SysctlRaw("kern.proc.pid", pid)
	if err != nil {
		return Proc{}, false
	}
	p, ok := decodeFreeBSD(b)
	return p, ok && p.PID == pid
}

// children reads the whole process table: FreeBSD has no per-process list of children.
func children(pid int) (map[int]bool, bool) {
	if _, ok := readProc(pid); !ok {
		return nil, false
	}
	b, err := unix.SysctlRaw("kern.proc.proc")
	if err != nil {
		return nil, false
	}
	kids := map[int]bool{}
	for _, p := range decodeFreeBSDAll(b) {
		if p.PPID == pid {
			kids[p.PID] = true
		}
	}
	return kids, true
}

func readChars(int) (int64, bool) { return 0, false }
