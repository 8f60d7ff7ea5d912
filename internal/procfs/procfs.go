// Package procfs reads the little of Linux's /proc that tmux-mcp needs: a process's session
// and terminal foreground group, and its children. Elsewhere every read fails, and callers
// treat that as "unknown".
package procfs

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// Stat is what tmux-mcp uses of /proc/<pid>/stat.
type Stat struct {
	State   byte // R, S, D, Z (a zombie: exited, not reaped yet), ...
	PPID    int  // the parent
	PGID    int  // the process group
	Session int  // the session id
	TPGID   int  // the foreground process group of the process's controlling terminal
	// StartTicks is when it started, in clock ticks since the system booted (0: not read).
	StartTicks uint64
}

// ReadStat reads /proc/<pid>/stat.
func ReadStat(pid int) (Stat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, false
	}
	return ParseStat(string(b))
}

// ParseStat reads the fields after the parenthesised command name, which may itself hold
// spaces and parentheses: state ppid pgrp session tty_nr tpgid ...
func ParseStat(s string) (Stat, bool) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return Stat{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 6 {
		return Stat{}, false
	}
	ppid, err0 := strconv.Atoi(f[1])
	pgid, err1 := strconv.Atoi(f[2])
	session, err2 := strconv.Atoi(f[3])
	tpgid, err3 := strconv.Atoi(f[5])
	if err0 != nil || err1 != nil || err2 != nil || err3 != nil {
		return Stat{}, false
	}
	st := Stat{State: f[0][0], PPID: ppid, PGID: pgid, Session: session, TPGID: tpgid}
	if len(f) > 19 {
		st.StartTicks, _ = strconv.ParseUint(f[19], 10, 64)
	}
	return st, true
}

// userHZ is the unit of /proc's clock ticks (USER_HZ): 100 on every architecture Go builds
// for on Linux, whatever the kernel's own tick rate.
const userHZ = 100

// Age is how long the process of st has run, from the system's uptime (/proc/uptime, the
// clock its start time counts on); false when either is unknown.
func Age(st Stat) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/uptime")
	if err != nil || st.StartTicks == 0 {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, false
	}
	up, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0, false
	}
	age := time.Duration(up*float64(time.Second)) - time.Duration(st.StartTicks)*time.Second/userHZ
	return max(age, 0), true
}

// Children lists pid's child processes (the children of all its threads). It fails when pid
// is gone or the kernel does not list children (CONFIG_PROC_CHILDREN).
func Children(pid int) (map[int]bool, bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	kids := map[int]bool{}
	for _, t := range tasks {
		b, err := os.ReadFile(dir + t.Name() + "/children")
		if err != nil {
			return nil, false
		}
		for _, f := range strings.Fields(string(b)) {
			if k, err := strconv.Atoi(f); err == nil {
				kids[k] = true
			}
		}
	}
	return kids, true
}

// Exe is the base name of pid's executable ("" when unreadable).
func Exe(pid int) string {
	exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	if err != nil {
		return ""
	}
	exe = strings.TrimSuffix(exe, " (deleted)")
	return exe[strings.LastIndexByte(exe, '/')+1:]
}

// PIDs lists the running processes.
func PIDs() []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Wchan is the kernel function pid sleeps in ("" when it runs or cannot be read).
func Wchan(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/wchan")
	if err != nil {
		return ""
	}
	s := string(b)
	if s == "0" {
		return ""
	}
	return s
}

// ReadChars is the number of bytes pid has read so far (rchar in /proc/<pid>/io): it grows
// once a shell has read a key sent to its terminal.
func ReadChars(pid int) (int64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/io")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "rchar: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// Exists reports whether pid is a live process.
func Exists(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return err == nil
}

// Available reports whether this system has a Linux /proc to read.
func Available() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}

// WaitsOnInput reports whether wchan (from Wchan) is where a process sleeps while it waits
// for input on a terminal: a read of the terminal (canonical mode, or a line editor's raw
// read) or a poll or select over it. A process waiting for a child, a lock or a timer is not.
func WaitsOnInput(wchan string) bool {
	switch {
	case wchan == "wait_woken", wchan == "n_tty_read", wchan == "do_select", wchan == "core_sys_select",
		wchan == "do_sys_poll", wchan == "ep_poll", strings.HasPrefix(wchan, "poll_schedule_timeout"):
		return true
	}
	return false
}

// Foreground is the process group leader in the foreground of the terminal whose session
// leader is pid (a pane's first process): at a prompt, the interactive shell. ok is false when
// /proc cannot tell; gone is true when the terminal's foreground group has no leader any more
// (a command just ended and the shell has not taken the terminal back yet).
func Foreground(pid int) (leader int, gone, ok bool) {
	st, ok := ReadStat(pid)
	if !ok || st.TPGID <= 0 {
		return 0, false, false
	}
	if !Exists(st.TPGID) {
		return st.TPGID, true, true
	}
	return st.TPGID, false, true
}

// Comm is pid's command name as the kernel keeps it (the name it was started by, at most 15
// bytes: "vim" for /usr/bin/vim, a link to vim.basic); "" when unreadable.
func Comm(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Cmdline is pid's argument vector (nil when unreadable or a zombie's).
func Cmdline(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}
