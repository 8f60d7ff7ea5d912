package termstate

import (
	"cmp"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/procfs"
)

func available() bool { return procfs.Available() }

func readProc(pid int) (Proc, bool) {
	st, ok := procfs.ReadStat(pid)
	if !ok {
		return Proc{}, false
	}
	comm := procfs.Comm(pid)
	p := Proc{PID: pid, PPID: st.PPID, PGID: st.PGID, TPGID: st.TPGID,
		Name: cmp.Or(procfs.Exe(pid), comm), Comm: comm, Wait: procfs.Wchan(pid),
		Zombie: st.State == 'Z' || st.State == 'X'}
	if age, ok := procfs.Age(st); ok {
		p.Started = time.Now().Add(-age)
	}
	return p, true
}

func children(pid int) (map[int]bool, bool) { return procfs.Children(pid) }

func readChars(pid int) (int64, bool) { return procfs.ReadChars(pid) }
