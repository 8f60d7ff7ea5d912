package shellrun

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// shell is a real shell the framings are run in, without tmux.
type shell struct {
	name string
	fam  Family
	argv []string // program and flags before -c (or -i)
	kind Shell
}

var posixShells = []shell{
	{"sh", POSIX, []string{"sh"}, Sh},
	{"dash", POSIX, []string{"dash"}, Dash},
	{"bash", POSIX, []string{"bash", "--noprofile", "--norc"}, Bash},
	{"zsh", POSIX, []string{"zsh", "-f"}, Zsh},
	{"mksh", POSIX, []string{"mksh"}, Mksh},
	{"ksh", POSIX, []string{"ksh"}, Ksh},
	{"ash", POSIX, []string{"busybox", "ash"}, Ash},
}

var fishShell = shell{"fish", Fish, []string{"fish", "--no-config"}, FishShell}

// allShells lists the shells to test in; -short keeps one per family.
func allShells() []shell {
	if testing.Short() {
		return []shell{posixShells[2], fishShell}
	}
	return append(append([]shell{}, posixShells...), fishShell)
}

// need skips the test when sh's program is not installed.
func need(t *testing.T, sh shell) {
	t.Helper()
	if _, err := exec.LookPath(sh.argv[0]); err != nil {
		t.Skipf("%s not installed", sh.argv[0])
	}
}

// runMode says how the framed command reaches the shell.
type runMode int

const (
	viaScript runMode = iota // write the script, run the typed line
	viaInline                // run the Inline line
)

func (m runMode) String() string {
	if m == viaInline {
		return "inline"
	}
	return "script"
}

// run is one framed execution in a real shell.
type run struct {
	out     []byte // stdout and stderr interleaved, as a pane would show them
	id      string
	path    string // script path (viaScript)
	parsed  Parsed
	after   string // the AFTER line printed by the shell after the wrapper
	startWD string
}

// randomName returns a file name that is not derived from any run id.
func randomName() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "cmd-" + hex.EncodeToString(b[:])
}

// afterLine is what the shell prints after the wrapper: its $? (POSIX, or
// $status in fish), its working directory and the state the wrapper must
// leave as it found it: variables of its own names (fish: set before, kept;
// POSIX: none left set), the fish SIGINT handler gone, and (POSIX) the shell's
// options.
func afterLine(f Family) string {
	if f == Fish {
		return `builtin printf 'AFTER:%s:%s:%s:%s:%s\n' $status $PWD "$__tmx_s" "$__tmx_f" (functions -q __tmx_int; and echo fn; or echo nofn)`
	}
	return `/usr/bin/env printf 'AFTER:%s:%s:%s:%s:%s\n' "$?" "$PWD" "${__tmx_s-unset}${__tmx_o-unset}${__tmx_p-unset}${__tmx_t-unset}${__tmx_n-unset}" "${POSIXLY_CORRECT-unset}" "$-"`
}

// preludeVars sets variables the wrapper must leave alone.
func preludeVars(f Family) string {
	if f == Fish {
		return "set -g __tmx_s keep_s; set -g __tmx_f keep_f"
	}
	return ""
}

// frame runs command framed for sh in mode, after prelude (shell code run
// first, on its own line), optionally as an interactive shell reading the
// lines from stdin.
func frame(t *testing.T, sh shell, mode runMode, prelude, command string, interactive bool) run {
	t.Helper()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	wd := filepath.Join(dir, "wd")
	sdir := filepath.Join(dir, "scripts")
	for _, d := range []string{home, wd, sdir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	r := run{id: NewID(), startWD: wd}
	var typed string
	switch mode {
	case viaScript:
		r.path = filepath.Join(sdir, randomName())
		script, err := Script(sh.kind, r.id, command, r.path, Options{})
		if err != nil {
			t.Fatalf("Script: %v", err)
		}
		ty := Line(sh.kind, r.path)
		assertNoID(t, r.id, script, ty, r.path)
		if err := os.WriteFile(r.path, []byte(script), 0o600); err != nil {
			t.Fatal(err)
		}
		typed = ty
	case viaInline:
		line, err := Inline(sh.kind, r.id, command)
		if err != nil {
			t.Fatalf("Inline: %v", err)
		}
		assertNoID(t, r.id, line)
		assertOneLine(t, line)
		typed = line
	}
	program := preludeVars(sh.fam) + "\n" + prelude + "\n" + typed + "\n" + afterLine(sh.fam) + "\n"

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var argv []string
	argv = append(argv, sh.argv...)
	if interactive {
		argv = append(argv, "-i")
	} else {
		argv = append(argv, "-c", program)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = wd
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=dumb", "LC_ALL=C.UTF-8", "PWD=" + wd}
	if interactive {
		cmd.Stdin = strings.NewReader(program + "exit\n")
	}
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	// A process group of its own: a test that sends SIGINT to its group
	// must not reach go test.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	_ = cmd.Run() // the exit status of the shell itself does not matter
	if ctx.Err() != nil {
		t.Fatalf("%s timed out; output:\n%s", sh.name, buf.Bytes())
	}
	r.out = buf.Bytes()
	r.parsed = Parse(r.out, r.id)
	if r.parsed.Done || r.parsed.Failed != "" {
		rest := string(r.out[r.parsed.End:])
		if m := regexp.MustCompile(`AFTER:[0-9]+:[^\n]*`).FindString(rest); m != "" {
			r.after = m
		}
	}
	return r
}

func assertNoID(t *testing.T, id string, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if strings.Contains(s, id) {
			t.Fatalf("the literal id %s appears in %q", id, s)
		}
	}
}

func assertOneLine(t *testing.T, s string) {
	t.Helper()
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '!' {
			t.Fatalf("inline line has byte %#x at %d: %q", c, i, s)
		}
	}
	if !strings.HasPrefix(s, " ") {
		t.Fatalf("inline line does not start with a space: %q", s)
	}
}

// checkAfter verifies the shell state after the wrapper: the working
// directory did not move, the wrapper's variable names kept the user's
// values, the fish SIGINT handler is gone, and (when wantStatus >= 0) $? is
// the command's status.
func checkAfter(t *testing.T, sh shell, r run, wantStatus int) {
	t.Helper()
	if r.after == "" {
		t.Errorf("%s: no AFTER line; output:\n%s", sh.name, r.out)
		return
	}
	f := strings.Split(strings.TrimPrefix(r.after, "AFTER:"), ":")
	if len(f) != 5 {
		t.Errorf("%s: malformed %q", sh.name, r.after)
		return
	}
	if wantStatus >= 0 && f[0] != strconv.Itoa(wantStatus) {
		t.Errorf("%s: $? after the wrapper = %s, want %d (%q)", sh.name, f[0], wantStatus, r.after)
	}
	if f[1] != r.startWD {
		t.Errorf("%s: working directory leaked: %s, want %s", sh.name, f[1], r.startWD)
	}
	if sh.fam == Fish {
		if f[2] != "keep_s" || f[3] != "keep_f" || f[4] != "nofn" {
			t.Errorf("%s: wrapper clobbered shell state: %q", sh.name, r.after)
		}
	} else if f[2] != "unsetunsetunsetunsetunset" || f[3] != "unset" {
		t.Errorf("%s: wrapper left variables or POSIX mode behind: %q", sh.name, r.after)
	}
}

// TestDebugTraps: a DEBUG trap in the interactive shell (it runs before every command, and
// zsh's subshells then skip their EXIT trap when they end by falling off their end) leaves
// the run its end marker and status, by script and typed inline.
func TestDebugTraps(t *testing.T) {
	for _, tc := range []struct {
		sh      shell
		prelude string
	}{
		{posixShells[2], "trap : DEBUG"},
		{posixShells[3], "trap : DEBUG"},
		{posixShells[3], "TRAPDEBUG() { : }"},
	} {
		for _, mode := range []runMode{viaScript, viaInline} {
			t.Run(tc.sh.name+"/"+tc.prelude+"/"+mode.String(), func(t *testing.T) {
				need(t, tc.sh)
				t.Parallel()
				r := frame(t, tc.sh, mode, tc.prelude, "echo ran; (exit 4)", true)
				if p := r.parsed; !p.Done || p.Status != 4 || string(p.Body) != "ran" {
					t.Fatalf("done %v status %d body %q, want 4 \"ran\"; output:\n%s", p.Done, p.Status, p.Body, r.out)
				}
			})
		}
	}
}

// TestZshKshArrays: under KSH_ARRAYS (set by emulate ksh, or by hand), $options[name] is
// $options followed by "[name]": the wrapper reads its options with braces, so the command's
// output holds no error of the wrapper's and the shell keeps its aliases after the run.
func TestZshKshArrays(t *testing.T) {
	sh := posixShells[3]
	need(t, sh)
	for _, mode := range []runMode{viaScript, viaInline} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			r := frame(t, sh, mode, "setopt ksharrays; alias hi='echo ALIASED'", "echo ran; (exit 4)\nhi", true)
			p := r.parsed
			if !p.Done || p.Status != 0 || string(p.Body) != "ran\nALIASED" {
				t.Fatalf("done %v status %d body %q, want 0 \"ran\\nALIASED\"; output:\n%s", p.Done, p.Status, p.Body, r.out)
			}
			if strings.Contains(string(r.out), "invalid value") {
				t.Errorf("the wrapper failed to restore an option; output:\n%s", r.out)
			}
		})
	}
}
