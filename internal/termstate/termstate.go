// Package termstate reads what tmux-mcp needs to know of a pane's terminal and the processes
// on it, on every platform it runs on: the terminal's mode (its echo and canonical flags,
// read from the pane's tty with tcgetattr, which any process may do), and a process table
// (Linux's /proc; on macOS and the BSDs, sysctl's kinfo_proc: parent, process group, the
// terminal's foreground group, and what a process sleeps in).
//
// Every read may fail (another user's process, a tty on another host, a platform without a
// process table); callers treat that as "unknown" and fall back to what tmux itself reports
// (pane_current_command). Table's Hide makes the process table report "not available", so the
// fallbacks are tested on Linux as macOS would run them without /proc.
package termstate

import (
	"os"
	"strings"
	"time"
)

// Proc is what tmux-mcp uses of one process.
type Proc struct {
	PID, PPID int
	PGID      int // its process group
	TPGID     int // the foreground process group of its controlling terminal (0: none)
	// Name is the base name of its executable where the system tells it (Linux's
	// /proc/PID/exe: "bash" for sh when /bin/sh is bash), else its command name.
	Name string
	// Comm is its command name as the kernel keeps it ("vim" for a link to vim.basic).
	Comm string
	// Wait is what it sleeps in: Linux's wchan, the BSDs' wait message ("ttyin"); "" while
	// it runs or when unknown.
	Wait string
	// Zombie says it exited and its parent has not reaped it yet: tmux may leave a dead
	// pane's program so under remain-on-exit. Linux and macOS tell; elsewhere false.
	Zombie bool
	// Started is when it started: Linux and macOS tell; zero elsewhere.
	Started time.Time
}

// WaitsInput reports whether p sleeps where a process waits for input on a terminal: a read of
// the terminal (canonical mode, or a line editor's raw read), or a poll or select over it.
func (p Proc) WaitsInput() bool { return WaitsOnInput(p.Wait) }

// WaitsOnInput reports whether a wait channel (Linux) or wait message (macOS, the BSDs) is
// one a process sleeps in while it waits for terminal input. A process waiting for a child, a
// lock or a timer is not.
func WaitsOnInput(wait string) bool {
	switch {
	// Linux: a read in canonical mode, a line editor's raw read, poll, select, epoll.
	case wait == "wait_woken", wait == "n_tty_read", wait == "do_select", wait == "core_sys_select",
		wait == "do_sys_poll", wait == "ep_poll", strings.HasPrefix(wait, "poll_schedule_timeout"):
		return true
	// macOS and the BSDs: the terminal read ("ttyin"; "ttread" on OpenBSD), select and poll
	// ("select", "poll"), kqueue ("kqread").
	case wait == "ttyin", wait == "ttread", wait == "select", wait == "poll", wait == "kqread":
		return true
	}
	return false
}

// ReadsTerminal reports whether p sleeps in a read of a terminal itself (a program reading a
// line, or keys one at a time with read(2)); a poll or select, which also waits on sockets and
// pipes, is not enough. Linux: n_tty_read and wait_woken (where n_tty_read sleeps on newer
// kernels); macOS and the BSDs: "ttyin" ("ttread" on OpenBSD).
func (p Proc) ReadsTerminal() bool {
	switch p.Wait {
	case "n_tty_read", "wait_woken", "ttyin", "ttread":
		return true
	}
	return false
}

// Descendants returns pid's descendants (children first), at most limit of them; complete is
// false when some could not be read or limit was reached.
func (t *Table) Descendants(pid, limit int) (procs []Proc, complete bool) {
	complete = true
	queue := []int{pid}
	for len(queue) > 0 {
		kids, ok := t.Children(queue[0])
		queue = queue[1:]
		if !ok {
			return procs, false
		}
		for k := range kids {
			if len(procs) == limit {
				return procs, false
			}
			p, ok := t.Proc(k)
			if !ok {
				complete = false
				continue
			}
			procs = append(procs, p)
			queue = append(queue, k)
		}
	}
	return procs, complete
}

// Table reads the process table. The zero value reads the system's.
type Table struct {
	hidden bool
}

// Hide returns a Table that reports the process table as not available: what tmux-mcp sees
// where it has none (a pane on another host, a platform it cannot read), for tests on Linux.
func Hide() *Table { return &Table{hidden: true} }

// System is the system's process table (the zero Table).
var System = &Table{}

// HideEnv names the environment variable that, set to 1, makes New return a hidden table: a
// test switch for the built binary (e2e), never meant for users.
const HideEnv = "TMUX_MCP_TEST_NO_PROCS"

// New returns the system's table, or a hidden one when HideEnv is set to 1.
func New() *Table {
	if os.Getenv(HideEnv) == "1" {
		return Hide()
	}
	return System
}

// Available reports whether this table can read processes at all.
func (t *Table) Available() bool { return t != nil && !t.hidden && available() }

// SecretInput reports whether a terminal in mode m reads a secret it does not show
// (Mode.Secret): hidden input, or raw echo-off input under gpg, told by names (the pane's
// command as tmux reports it) and the names of pid's descendants (the pane's or the shell's),
// which are looked up only for such raw input.
func (t *Table) SecretInput(m Mode, pid int, names ...string) bool {
	if m.Hidden() || m.Canonical || m.Echo {
		return m.Hidden()
	}
	if pid > 0 {
		procs, _ := t.Descendants(pid, 64)
		for _, p := range procs {
			names = append(names, p.Name, p.Comm)
		}
	}
	return m.Secret(names...)
}

// Exited reports whether pid is known to have ended: no such process, or a zombie. False when
// the table cannot be read (Available).
func (t *Table) Exited(pid int) bool {
	if !t.Available() || pid <= 0 {
		return false
	}
	p, ok := readProc(pid)
	return !ok || p.Zombie
}

// Proc reads one process.
func (t *Table) Proc(pid int) (Proc, bool) {
	if !t.Available() || pid <= 0 {
		return Proc{}, false
	}
	return readProc(pid)
}

// Children lists pid's child processes; ok is false when pid is gone or unreadable.
func (t *Table) Children(pid int) (map[int]bool, bool) {
	if !t.Available() || pid <= 0 {
		return nil, false
	}
	return children(pid)
}

// ReadChars is how many bytes pid has read so far, where the system counts them (Linux): it
// grows once a shell has read a key sent to its terminal.
func (t *Table) ReadChars(pid int) (int64, bool) {
	if !t.Available() || pid <= 0 {
		return 0, false
	}
	return readChars(pid)
}

// Foreground reads the leader of the foreground process group of the terminal whose session
// leader is pid (a pane's first process, tmux's pane_pid): at a prompt, the interactive shell.
// ok is false when the table cannot tell; gone is true when that group has no leader any more
// (a command just ended and the shell has not taken the terminal back yet).
func (t *Table) Foreground(pid int) (leader Proc, gone, ok bool) {
	p, ok := t.Proc(pid)
	if !ok || p.TPGID <= 0 {
		return Proc{}, false, false
	}
	if p.TPGID == p.PID {
		return p, false, true
	}
	l, ok := t.Proc(p.TPGID)
	if !ok {
		return Proc{PID: p.TPGID}, true, true
	}
	return l, false, true
}
