package testssh

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStart reaches a test sshd with the test's own config, sees the environment it sets, is
// refused with the other key, and is refused once killed.
func TestStart(t *testing.T) {
	n := New(t)
	d := n.Start("h1")
	n.AddRefusedKey("nokey", d)
	n.AddClosed("closed")
	out, err := exec.Command("ssh", "-F", n.Config, "-o", "BatchMode=yes", "--", "h1", `echo "$TMUX_TMPDIR $HOME"`).CombinedOutput()
	if err != nil {
		t.Fatalf("ssh h1: %v: %s\n%s", err, out, d.Log())
	}
	if got, want := strings.TrimSpace(string(out)), d.TmuxTmpdir+" "+d.Home; got != want {
		t.Errorf("remote environment %q, want %q", got, want)
	}
	// The host runs the tmux the test runs (the first on its PATH), whichever version that is.
	if local, err := exec.Command("tmux", "-V").Output(); err == nil {
		out, err := exec.Command("ssh", "-F", n.Config, "-o", "BatchMode=yes", "--", "h1", "tmux -V").CombinedOutput()
		if err != nil || string(out) != string(local) {
			t.Errorf("the host's tmux -V: %q (%v), want %q", out, err, local)
		}
	}
	out, err = exec.Command("ssh", "-F", n.Config, "-o", "BatchMode=yes", "--", "nokey", "true").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Permission denied") {
		t.Errorf("nokey: err %v, output %s", err, out)
	}
	out, err = exec.Command("ssh", "-F", n.Config, "-o", "BatchMode=yes", "--", "closed", "true").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "refused") {
		t.Errorf("closed: err %v, output %s", err, out)
	}
	d.Kill()
	if out, err := exec.Command("ssh", "-F", n.Config, "-o", "BatchMode=yes", "--", "h1", "true").CombinedOutput(); err == nil {
		t.Errorf("ssh to a killed sshd worked: %s", out)
	}
	d.Restart()
	if out, err := exec.Command("ssh", "-F", n.Config, "-o", "BatchMode=yes", "--", "h1", "true").CombinedOutput(); err != nil {
		t.Errorf("ssh after Restart: %v: %s", err, out)
	}
}
