package termstate

import (
	"encoding/binary"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

func TestWaitsOnInput(t *testing.T) {
	for wait, want := range map[string]bool{
		"n_tty_read": true, "wait_woken": true, "do_select": true, "poll_schedule_timeout.constprop.0": true,
		"ttyin": true, "select": true, "kqread": true,
		"do_wait": false, "hrtimer_nanosleep": false, "pipe_read": false, "nanslp": false, "wait": false, "": false,
	} {
		if got := WaitsOnInput(wait); got != want {
			t.Errorf("WaitsOnInput(%q) = %v, want %v", wait, got, want)
		}
	}
}

func TestMode(t *testing.T) {
	cases := []struct {
		m           Mode
		hidden, raw bool
	}{
		{Mode{Echo: true, Canonical: true}, false, false},  // read -p, input()
		{Mode{Echo: false, Canonical: true}, true, false},  // getpass, sudo, read -s
		{Mode{Echo: false, Canonical: false}, false, true}, // a line editor, less, vim
	}
	for _, tc := range cases {
		if tc.m.Hidden() != tc.hidden || tc.m.Raw() != tc.raw {
			t.Errorf("%+v: hidden %v raw %v", tc.m, tc.m.Hidden(), tc.m.Raw())
		}
	}
}

// freebsdRecord builds a kinfo_proc record as FreeBSD's sysctl returns it.
func freebsdRecord(pid, ppid, pgid, tpgid int, wmesg, comm string) []byte {
	b := make([]byte, freebsdKinfoSize)
	binary.LittleEndian.PutUint32(b, freebsdKinfoSize)
	for off, v := range map[int]int{fbPID: pid, fbPPID: ppid, fbPGID: pgid, fbTPGID: tpgid} {
		binary.LittleEndian.PutUint32(b[off:], uint32(v))
	}
	copy(b[fbWmesg:fbWmesg+fbWmesgLen-1], wmesg)
	copy(b[fbComm:fbComm+fbCommLen-1], comm)
	return b
}

func TestDecodeFreeBSD(t *testing.T) {
	rec := freebsdRecord(42, 7, 42, 42, "ttyin", "less")
	p, ok := decodeFreeBSD(rec)
	if !ok || p != (Proc{PID: 42, PPID: 7, PGID: 42, TPGID: 42, Name: "less", Comm: "less", Wait: "ttyin"}) {
		t.Fatalf("%+v %v", p, ok)
	}
	if !p.WaitsInput() {
		t.Error("ttyin not taken for a wait on input")
	}
	all := decodeFreeBSDAll(append(rec, freebsdRecord(43, 42, 43, 42, "nanslp", "sleep")...))
	if len(all) != 2 || all[1].PPID != 42 || all[1].WaitsInput() {
		t.Fatalf("%+v", all)
	}
	bad := append([]byte{}, rec...)
	binary.LittleEndian.PutUint32(bad, 1096) // another layout
	if _, ok := decodeFreeBSD(bad); ok {
		t.Error("a record of another size was read")
	}
	if _, ok := decodeFreeBSD(rec[:100]); ok {
		t.Error("a short record was read")
	}
}

func TestHidden(t *testing.T) {
	h := Hide()
	if h.Available() {
		t.Fatal("a hidden table is available")
	}
	if _, ok := h.Proc(os.Getpid()); ok {
		t.Error("a hidden table read a process")
	}
	if _, _, ok := h.Foreground(os.Getpid()); ok {
		t.Error("a hidden table read a foreground group")
	}
	if _, ok := h.Children(os.Getpid()); ok {
		t.Error("a hidden table listed children")
	}
	t.Setenv(HideEnv, "1")
	if New().Available() {
		t.Errorf("%s=1 did not hide the table", HideEnv)
	}
}

// TestSecret: hidden input is a secret whoever reads it; keys read with echo off are one only
// under gpg (its pinentry dialog), not in a pager or an editor that draws what is typed.
func TestSecret(t *testing.T) {
	raw, hidden, line := Mode{}, Mode{Canonical: true}, Mode{Canonical: true, Echo: true}
	for _, tc := range []struct {
		m     Mode
		names []string
		want  bool
	}{
		{hidden, nil, true},
		{raw, []string{"gpg"}, true},
		{raw, []string{"git", "/usr/bin/gpg2"}, true},
		{raw, []string{"pinentry-curses"}, true},
		{raw, []string{"less", "vim"}, false},
		{raw, nil, false},
		{Mode{Echo: true}, []string{"gpg"}, false},
		{line, []string{"gpg"}, false},
	} {
		if got := tc.m.Secret(tc.names...); got != tc.want {
			t.Errorf("%+v.Secret(%q) = %v, want %v", tc.m, tc.names, got, tc.want)
		}
	}
}

// TestPaneTerminal reads real panes: a program reading a line (cat), one reading a password
// (stty -echo), a line editor at its prompt, and the foreground group of each.
func TestPaneTerminal(t *testing.T) {
	testtmux.Require(t)
	tmx := testtmux.New(t)
	cases := []struct {
		name string
		argv []string
		mode Mode
		fg   string
	}{
		{"line", []string{"sh", "-c", "echo ready; exec cat"}, Mode{Echo: true, Canonical: true}, "cat"},
		{"hidden", []string{"sh", "-c", "stty -echo; echo ready; exec cat"}, Mode{Canonical: true}, "cat"},
		{"editor", []string{"bash", "--noprofile", "--norc"}, Mode{}, "bash"},
	}
	tmx.NewSession("s")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			testtmux.RequireShell(t, tc.argv)
			id := tmx.NewWindow("s", tc.argv...)
			info := strings.Fields(tmx.Tmux("display-message", "-p", "-t", id, "#{pane_tty} #{pane_pid}"))
			pid, _ := strconv.Atoi(info[1])
			var m Mode
			var err error
			// The program sets its mode as it starts: wait for it, never for a time.
			for range 1500 {
				if m, err = ReadMode(info[0]); err == nil && m == tc.mode {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if err != nil || m != tc.mode {
				t.Fatalf("mode %+v %v, want %+v", m, err, tc.mode)
			}
			if !System.Available() {
				t.Skip("no process table here")
			}
			// The mode is set before sh execs cat, and cat runs a moment before it reads: the
			// foreground is waited for until it is the program and waits, never for a time.
			var fg Proc
			var gone, ok bool
			for range 1500 {
				if fg, gone, ok = System.Foreground(pid); ok && !gone && fg.Comm == tc.fg && fg.WaitsInput() {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if !ok || gone || fg.Comm != tc.fg {
				t.Fatalf("foreground %+v gone %v ok %v, want %s", fg, gone, ok, tc.fg)
			}
			if !fg.WaitsInput() {
				t.Errorf("%s waits in %q, not taken for input", tc.fg, fg.Wait)
			}
		})
	}
	if _, err := ReadMode(""); err == nil {
		t.Error("no path read")
	}
	if _, err := ReadMode("/nonexistent/tty"); err == nil {
		t.Error("a missing tty read")
	}
}

// TestExitedZombie: a process that exited but was not reaped (tmux may leave a dead pane's
// program so under remain-on-exit) has ended; a running one has not.
func TestExitedZombie(t *testing.T) {
	if !System.Available() {
		t.Skip("no process table here")
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if System.Exited(pid) {
		t.Errorf("a running sleep (pid %d) counts as exited", pid)
	}
	cmd.Process.Kill() // not waited for: a zombie until Wait
	deadline := time.Now().Add(10 * time.Second)
	for !System.Exited(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the killed, unreaped sleep (pid %d) never counted as exited", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if p, ok := System.Proc(pid); ok && !p.Zombie {
		t.Errorf("pid %d: listed, not a zombie: %+v", pid, p)
	}
	cmd.Wait()
	if !System.Exited(pid) {
		t.Errorf("the reaped sleep (pid %d) does not count as exited", pid)
	}
}
