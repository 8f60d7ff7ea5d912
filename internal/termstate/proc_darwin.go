package termstate

import (
	"time"

	"golang.org/x/sys/unix"
)

func available() bool { return true }

func readProc(pid int) (Proc, bool) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || k == nil || int(k.Proc.P_pid) != pid {
		return Proc{}, false
	}
	return darwinProc(k), true
}

func darwinProc(k *unix.KinfoProc) Proc {
	comm := cString(k.Proc.P_comm[:])
	return Proc{PID: int(k.Proc.P_pid), PPID: int(k.Eproc.Ppid), PGID: int(k.Eproc.Pgid),
		TPGID: int(k.Eproc.Tpgid), Name: comm, Comm: comm, Wait: cString(k.Eproc.Wmesg[:]),
		Zombie:  k.Proc.P_stat == 5, // SZOMB
		Started: time.Unix(k.Proc.P_starttime.Unix())}
}

// children reads the whole process table: macOS has no per-process list of children.
func children(pid int) (map[int]bool, bool) {
	if _, ok := readProc(pid); !ok {
		return nil, false
	}
	all, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, false
	}
	kids := map[int]bool{}
	for i := range all {
		if int(all[i].Eproc.Ppid) == pid {
			kids[int(all[i].Proc.P_pid)] = true
		}
	}
	return kids, true
}

func readChars(int) (int64, bool) { return 0, false }
