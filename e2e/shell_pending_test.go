package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// pendingCase is text left on a shell's command line (typed, never entered) when a run
// starts, with the cursor where a person may have left it.
type pendingCase struct {
	text   string // "touch" or "rm"
	cursor string // end; left (three Left keys); normal (vi: Escape, the editor in command mode)
}

// TestShellPendingInput: text typed with send_keys enter=false and left on
// the command line, in emacs and vi mode, the cursor at its end or moved left (or the vi
// editor in command mode), never runs when run_shell_command runs `echo hi`: the file it
// would touch never appears and the directory a half-typed `rm -rf ` names survives. The run
// either succeeds with output "hi", or fails with an error that names the pending text.
// Either way the pane takes a new run afterwards (it is not reserved for good). The rm
// targets a directory made for the purpose inside the test server's temporary directory, and
// the shell's working directory is its temporary HOME.
func TestShellPendingInput(t *testing.T) {
	forEachShell(t, func(t *testing.T, sc *shellClient, shell string) {
		setups := []testtmux.Setup{testtmux.Config(shell, "rc")}
		if shell == "dash" {
			setups = []testtmux.Setup{testtmux.Config(shell, "clean")} // the terminal edits the line
		} else {
			setups = append(setups, testtmux.Config(shell, "vi"))
		}
		for _, su := range setups {
			cursors := []string{"end", "left"}
			if su.Vi {
				cursors = append(cursors, "normal")
			}
			for _, cur := range cursors {
				for _, text := range []string{"touch", "rm"} {
					pc := pendingCase{text: text, cursor: cur}
					t.Run(su.Config+"/"+cur+"/"+text, func(t *testing.T) {
						t.Parallel()
						pendingRun(t, sc, su, pc)
					})
				}
			}
		}
	})
}

func pendingRun(t *testing.T, sc *shellClient, su testtmux.Setup, pc pendingCase) {
	sc = sc.For(t)
	// A short path of the case's own (inside the test server's temporary directory), so the
	// pending line never wraps on the 80-column screen.
	dir, err := os.MkdirTemp(sc.Tmx.Dir, "p")
	if err != nil {
		t.Fatal(err)
	}
	touched := filepath.Join(dir, "pending-file")
	victim := filepath.Join(dir, "victim")
	if err := os.Mkdir(victim, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(victim, "keep"), []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	pending := "touch " + touched
	if pc.text == "rm" {
		pending = "rm -rf " + victim + " "
	}
	p := sc.Tmx.StartShell(t, su)
	defer p.Kill()
	sc.OK("send_keys", map[string]any{"pane_id": p.ID, "keys": pending, "enter": false, "literal": true}, nil)
	want := strings.TrimSpace(pending)
	p.WaitState("the pending text", func(screen, _ string) bool { return strings.Contains(flat(screen), want) })
	switch pc.cursor {
	case "left":
		var before string
		p.WaitState("the cursor", func(_, b string) bool { before = b; return true })
		sc.OK("send_keys", map[string]any{"pane_id": p.ID, "keys": "Left Left Left", "enter": false}, nil)
		screen, err := p.Poll(5*time.Second, func(screen, b string) bool {
			if !su.LineEditor {
				return strings.Contains(screen, "^[[D^[[D^[[D") // the terminal echoes the keys
			}
			return len([]rune(b)) == len([]rune(before))-3
		})
		if err != nil {
			t.Skipf("Left does not move the cursor in %s (%v): the normal case covers a cursor moved off the end\n%s", su.Name(), err, screen)
		}
	case "normal":
		sc.OK("send_keys", map[string]any{"pane_id": p.ID, "keys": "Escape", "enter": false}, nil)
		if su.ViIndicator != nil {
			p.WaitState("vi command mode", func(screen, _ string) bool { return su.ViIndicator.MatchString(screen) })
		} else {
			// No indicator to wait for: let the editor's escape timeout pass (test set-up only).
			time.Sleep(time.Second)
		}
	}

	a := sc.try("run_shell_command", p.ID, "echo hi", runTimeout)
	switch {
	case a.ok(0, "hi"):
	case a.errText != "" && strings.Contains(a.errText, want):
		t.Logf("refused, naming the pending text: %s", a.errText)
	case a.errText != "" && strings.Contains(a.errText, "Nothing of the command ran"):
		// A safe refusal: the line the shell showed was not the one typed (mksh's vi mode under
		// load, whose escape timeout the set-up can only sleep out), nothing ran, and it says to
		// look and run again; the checks below hold it to that.
		t.Logf("refused, nothing ran: %s", a.errText)
	default:
		t.Errorf("with %q pending (cursor %s): %v; want output \"hi\", or an error naming the pending text", pending, pc.cursor, a)
	}
	// Nothing runs now (echo hi ended, or never started): the pane takes a new run without
	// help. Only what is left on the command line may still be in the way; a person clears
	// that with C-c, and so does the test, once.
	next := sc.tryWhenFree("run_shell_command", p.ID, "echo again", 10*time.Second)
	if next.busy() {
		t.Errorf("the pane is still reserved 10 s after the run returned, with nothing running: %v", next)
	}
	if !next.ok(0, "again") {
		p.Keys("C-c")
		next = sc.tryWhenFree("run_shell_command", p.ID, "echo again", 15*time.Second)
	}
	if !next.ok(0, "again") {
		t.Errorf("the pane does not take a new run afterwards, even after C-c: %v", next)
	}
	if _, err := os.Stat(touched); err == nil {
		t.Errorf("the pending %q ran: %s exists", pending, touched)
	}
	if _, err := os.Stat(filepath.Join(victim, "keep")); err != nil {
		t.Errorf("the pending %q ran: %v", pending, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the pending text ran: the case's directory holds %q, want only victim", names)
	}
	if t.Failed() {
		t.Logf("screen:\n%s", capture(sc.Tmx, p.ID))
	}
}

// flat joins the screen's lines, so a pending text the line editor wrapped is found whole.
func flat(screen string) string {
	var b strings.Builder
	for _, l := range strings.Split(screen, "\n") {
		b.WriteString(strings.TrimRight(l, " "))
	}
	return b.String()
}
