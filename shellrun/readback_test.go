package shellrun

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// userTrap is a RETURN trap of the user's that spans lines and holds what the wrapper's own
// reads stop at (a line break, quotes).
const userTrap = "trap 'echo \"user return\"\n: second line' RETURN"

// evilRan matches the output of the trap text planted in the history.
var evilRan = regexp.MustCompile(`(?m)^EVIL\r?$`)

// TestBashReadBack: what the bash wrapper reads back from its script file (bashReadBack) in
// an interactive bash with history: a RETURN trap of the user's is the same after the run, the
// typed line is gone from the history (the command is there with Options.History), and a last
// history entry that spans lines, or a RETURN trap printed as text, is never run.
func TestBashReadBack(t *testing.T) {
	sh := posixShells[2]
	need(t, sh)
	evil := "echo \"last\ntrap -- 'echo EVIL' RETURN\""
	cases := []struct {
		name, prelude string
		history       bool
		trap          string // want trap -p RETURN after the run
		recorded      bool   // the command is in the history
	}{
		{name: "trap", prelude: userTrap, trap: userTrap},
		{name: "no-trap"},
		{name: "history", prelude: userTrap, history: true, trap: userTrap, recorded: true},
		{name: "ignorespace", prelude: "HISTCONTROL=ignorespace; shopt -s lithist; " + userTrap + "\n" + evil, history: true, trap: userTrap, recorded: true},
		{name: "history-off", prelude: "shopt -s lithist; " + userTrap + "\n" + evil + "\nset +o history", trap: userTrap},
		{name: "nounset-errexit-vi", prelude: "set -o vi -eu; HISTCONTROL=ignoredups:erasedups; " + userTrap, trap: userTrap},
		{name: "histtimeformat", prelude: "HISTTIMEFORMAT='%F %T '; " + userTrap, history: true, trap: userTrap, recorded: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out, home, path := runBashReadBack(t, c.prelude, c.history)
			if evilRan.Match(out) {
				t.Errorf("text read back was run:\n%s", out)
			}
			trap, err := os.ReadFile(filepath.Join(home, "trap.txt"))
			if err != nil {
				t.Fatalf("no trap listing: %v; output:\n%s", err, out)
			}
			want := ""
			if c.trap != "" {
				want = strings.Replace(c.trap, "trap '", "trap -- '", 1) + "\n"
			}
			if string(trap) != want {
				t.Errorf("RETURN trap after the run %q, want %q", trap, want)
			}
			hist, err := os.ReadFile(filepath.Join(home, "hist.txt"))
			if err != nil {
				t.Fatalf("no history listing: %v", err)
			}
			if bytes.Contains(hist, []byte(path)) || bytes.Contains(hist, []byte("POSIXLY_CORRECT=y")) {
				t.Errorf("the history holds the typed line:\n%s", hist)
			}
			if got := bytes.Contains(hist, []byte("echo ran")); got != c.recorded {
				t.Errorf("command in the history: %v, want %v:\n%s", got, c.recorded, hist)
			}
			if !bytes.Contains(out, []byte("AFTER:0:unset:")) {
				t.Errorf("status or variables after the run wrong; output:\n%s", out)
			}
		})
	}
}

// runBashReadBack runs "echo ran" through the bash wrapper in an interactive bash reading its
// lines from stdin, after prelude; the shell then lists its RETURN trap and history into files
// in home.
func runBashReadBack(t *testing.T, prelude string, history bool) (out []byte, home, path string) {
	t.Helper()
	dir := t.TempDir()
	home = filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(dir, randomName())
	id := NewID()
	script, err := Script(Bash, id, "echo ran", path, Options{History: history})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	program := prelude + "\n" + Line(Bash, path) + "\n" +
		`echo "AFTER:$?:${__tmx_t-unset}${__tmx_n-}${__tmx_h-}:${POSIXLY_CORRECT-unset}"` + "\n" +
		"set +eu; trap -p RETURN > ~/trap.txt; HISTTIMEFORMAT= history > ~/hist.txt\nexit\n"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-i")
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=dumb", "LC_ALL=C.UTF-8"}
	cmd.Stdin = strings.NewReader(program)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	_ = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("bash timed out; output:\n%s", buf.Bytes())
	}
	if p := Parse(buf.Bytes(), id); !p.Done || p.Status != 0 || string(p.Body) != "ran" {
		t.Fatalf("run: Done=%v Status=%d Body=%q; output:\n%s", p.Done, p.Status, p.Body, buf.Bytes())
	}
	return buf.Bytes(), home, path
}
