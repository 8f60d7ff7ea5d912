package procfs

import (
	"os"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Stat
		ok   bool
	}{
		{"123 (bash) S 1 123 123 34816 123 4194304 ...", Stat{State: 'S', PPID: 1, PGID: 123, Session: 123, TPGID: 123}, true},
		{"7 (a) b (c) d) R 1 7 5 0 -1 0", Stat{State: 'R', PPID: 1, PGID: 7, Session: 5, TPGID: -1}, true},
		{"9 (sh) Z 1 9 9 0 -1 0", Stat{State: 'Z', PPID: 1, PGID: 9, Session: 9, TPGID: -1}, true},
		{"7 (x) R 1 7", Stat{}, false},
		{"no parenthesis", Stat{}, false},
		{"7 (x) R 1 7 x 0 9", Stat{}, false},
		{"5 (zsh) S 4 5 5 34817 5 4194560 1093 0 0 0 1 2 0 0 20 0 1 0 81234 9871360 1320", Stat{State: 'S', PPID: 4, PGID: 5, Session: 5, TPGID: 5, StartTicks: 81234}, true},
	} {
		got, ok := ParseStat(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseStat(%q) = %+v, %v; want %+v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestSelf(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	if _, ok := ReadStat(os.Getpid()); !ok {
		t.Error("ReadStat(self) failed")
	}
	if Exe(os.Getpid()) == "" {
		t.Error("Exe(self) is empty")
	}
	st, _ := ReadStat(os.Getpid())
	if age, ok := Age(st); !ok || age > time.Hour {
		t.Errorf("Age(self) = %v, %v; want the test binary's few seconds", age, ok)
	}
	n, ok := ReadChars(os.Getpid())
	if !ok {
		t.Error("ReadChars(self) failed")
	}
	if _, err := os.ReadFile("/proc/self/stat"); err != nil {
		t.Fatal(err)
	}
	if m, _ := ReadChars(os.Getpid()); m <= n {
		t.Errorf("ReadChars(self) = %d after a read, %d before; want it grown", m, n)
	}
	if _, ok := Children(os.Getpid()); !ok {
		t.Skip("the kernel does not list children")
	}
	found := false
	for _, p := range PIDs() {
		found = found || p == os.Getpid()
	}
	if !found {
		t.Error("PIDs() misses this process")
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add("123 (bash) S 1 123 123 34816 123 4194304")
	f.Add("1 ()) R 0 0 0 0 0")
	f.Fuzz(func(t *testing.T, s string) { ParseStat(s) })
}
