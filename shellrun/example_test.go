package shellrun_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/shellrun"
)

// Example frames a command for sh in a pane of a private tmux server (a socket in a temp
// directory, killed at the end), and reads its exit status and output back out of the pane's
// raw output: here the bytes pipe-pane copies to a file, where the runner reads control
// mode's %output. The markers are escape sequences tmux draws nothing for, so the screen
// shows the command and its output only.
func Example() {
	dir, err := os.MkdirTemp("", "shellrun")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	tmux := privateTmux(dir)
	defer tmux("kill-server") // this server only: its socket is in dir
	if _, err := tmux("new-session", "-d", "-x", "80", "-y", "24", "env PS1='$ ' sh"); err != nil {
		fmt.Println(err)
		return
	}
	raw := filepath.Join(dir, "raw")
	tmux("pipe-pane", "-o", "cat >>"+raw)

	id := shellrun.NewID()
	script := filepath.Join(dir, "run.sh")
	text, err := shellrun.Script(shellrun.Sh, id, "echo hello; exit 3", script, shellrun.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	os.WriteFile(script, []byte(text), 0o600)
	keys := append(shellrun.ClearKeys(shellrun.Sh, false)[0], ";", "send-keys", "-l", shellrun.Line(shellrun.Sh, script), ";", "send-keys", "Enter")
	tmux(append([]string{"send-keys"}, keys...)...)

	var p shellrun.Parsed
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !p.Done; time.Sleep(20 * time.Millisecond) {
		out, _ := os.ReadFile(raw)
		p = shellrun.Parse(out, id)
	}
	fmt.Printf("done %v, exit status %d, output %q\n", p.Done, p.Status, p.Body)
	// Output: done true, exit status 3, output "hello"
}

// ExampleParse reads a run's markers out of raw pane output: what comes between the start and
// the end marker is the command's output, and the end marker carries its exit status. Text
// that only looks like a marker, or another run's, is output like any other.
func ExampleParse() {
	id := shellrun.NewID()
	start := "\x1b]6973;" + id + ";S\a"
	end := "\x1b]6973;" + id + ";E;0\a"
	out := []byte("$ make\r\n" + start + "built\r\n" + end + "$ ")
	p := shellrun.Parse(out, id)
	fmt.Printf("started %v, done %v, status %d, output %q\n", p.Started, p.Done, p.Status, p.Body)
	// Output: started true, done true, status 0, output "built"
}

// privateTmux returns a runner of tmux commands on a server of its own: its socket in dir, no
// configuration file, HOME in dir.
func privateTmux(dir string) func(args ...string) (string, error) {
	sock := filepath.Join(dir, "sock")
	return func(args ...string) (string, error) {
		cmd := exec.Command("tmux", append([]string{"-S", sock, "-f", os.DevNull}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+dir, "TMUX=", "ENV=")
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
}
