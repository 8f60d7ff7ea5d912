package inherit_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/inherit"
)

// TestOnlyStdio starts a child with an inherited descriptor (a file the test process was
// given, made inheritable as a parent's would be), marks it, and checks that a program
// started afterwards no longer has it while this process still does.
func TestOnlyStdio(t *testing.T) {
	if os.Getenv("INHERIT_CHILD") == "1" {
		inherit.OnlyStdio()
		out, err := exec.Command("sh", "-c", "ls /proc/$$/fd").Output()
		if err != nil {
			t.Fatal(err)
		}
		fds := strings.Fields(string(out))
		for _, fd := range fds {
			if fd == "3" {
				t.Fatalf("a program started after OnlyStdio has descriptor 3: %v", fds)
			}
		}
		if _, err := os.NewFile(3, "inherited").Stat(); err != nil {
			t.Fatalf("the process lost its own descriptor 3: %v", err)
		}
		return
	}
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd")
	}
	f, err := os.Create(t.TempDir() + "/held")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestOnlyStdio$", "-test.v")
	cmd.Env = append(os.Environ(), "INHERIT_CHILD=1")
	cmd.ExtraFiles = []*os.File{f} // descriptor 3 in the child, not close-on-exec there
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
