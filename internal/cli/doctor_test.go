package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// doctor checks what the server will see, in the server's environment: under env -i or LANG=C
// a running tmux server is running and reads back non-ASCII text exactly (under a bare locale tmux
// prints non-ASCII as "_", and doctor must not then say "not running" and all green).
func TestDoctorAnyEnvironment(t *testing.T) {
	tmx := testtmux.New(t)
	tmx.NewSession("dóc")
	bare := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tmx.Home, "LIBTMUX_SOCKET_PATH=" + tmx.Socket}
	for name, env := range map[string][]string{
		"env -i":       bare,
		"LANG=C":       append(bare, "LANG=C"),
		"LC_ALL=POSIX": append(bare, "LANG=C.UTF-8", "LC_ALL=POSIX"),
	} {
		code, out, errs := runCLI(t, env, "doctor")
		if code != 0 || strings.Contains(out, "FAILS") || !strings.Contains(out, "server:        running (pid ") {
			t.Errorf("%s: doctor exited %d:\n%s%s", name, code, out, errs)
		}
		if !strings.Contains(out, "shell marks:   0 panes with OSC 133 marks for list_commands; 1 without any seen") {
			t.Errorf("%s: doctor does not say which panes have marks:\n%s", name, out)
		}
		if !strings.Contains(out, "(not UTF-8): fine for tmux-mcp") {
			t.Errorf("%s: doctor does not describe the locale:\n%s", name, out)
		}
	}
	code, out, _ := runCLI(t, append(bare, "LANG=C.UTF-8"), "doctor")
	if code != 0 || !strings.Contains(out, "locale:        LANG=C.UTF-8 (UTF-8)") {
		t.Errorf("UTF-8: doctor exited %d:\n%s", code, out)
	}
}

func TestDoctorNotRunning(t *testing.T) {
	tmx := testtmux.New(t) // no session: no server
	code, out, _ := runCLI(t, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tmx.Home, "LIBTMUX_SOCKET_PATH=" + tmx.Socket}, "doctor")
	if code != 0 || !strings.Contains(out, "server:        not running") || !strings.Contains(out, "socket:        -S "+tmx.Socket+"\n") {
		t.Errorf("doctor exited %d:\n%s", code, out)
	}
}

// A tmux that mangles non-ASCII output (here: one run without -u in a bare environment) is
// reported, and doctor exits 1.
func TestDoctorReportsMangledOutput(t *testing.T) {
	tmx := testtmux.New(t)
	tmx.NewSession("x")
	real, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatal(err)
	}
	wrapper := filepath.Join(tmx.Dir, "tmux-without-u")
	script := "#!/bin/sh\nfor a; do shift; [ \"$a\" = -u ] || set -- \"$@\" \"$a\"; done\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tmx.Home, "LIBTMUX_SOCKET_PATH=" + tmx.Socket, "LIBTMUX_TMUX_BIN=" + wrapper}
	code, out, _ := runCLI(t, env, "doctor")
	if code != 1 || !strings.Contains(out, "FAILS: control mode returned") || !strings.Contains(out, "FAILS: spawned tmux returned") {
		t.Errorf("doctor exited %d:\n%s", code, out)
	}
}
