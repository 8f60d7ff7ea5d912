package shellrun

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSourcingFailedMessages(t *testing.T) {
	const p = "/tmp/tm1/cmd-1234"
	tests := []struct {
		name string
		out  string
		want bool
	}{
		{"dash", "$  . '" + p + "'\r\nsh: 1: .: cannot open " + p + ": No such file\r\n$ ", true},
		{"busybox ash", "ash: .: line 1: can't open '" + p + "': No such file or directory\n", true},
		{"bash", "bash: " + p + ": No such file or directory\r\n", true},
		{"zsh", "zsh:.:1: no such file or directory: " + p + "\r\n", true},
		{"mksh", "E: mksh: .: " + p + ": not found\n", true},
		{"ksh93", "ksh: .: " + p + ": cannot open [No such file or directory]\n", true},
		{"fish", "source: Error encountered while sourcing file ''" + p + "'':\nsource: No such file or directory\n", true},
		{"permission", "bash: " + p + ": Permission denied\n", true},
		{"colored", "\x1b[31mbash: \x1b[0m" + p + "\x1b[1m: No such file or directory\x1b[0m\r\n", true},
		{"echo only", "$  { . '" + p + "'; }\r\n" + string(mk("<S>")) + "ok\r\n", false},
		{"error without the path", "bash: /other: No such file or directory\n", false},
		{"path holding a phrase", "$  . '/tmp/not found/x'\r\n", false},
		{"xtrace of the wrapper", "+ command rm -f -- " + p + "\n", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		path := p
		if tt.name == "path holding a phrase" {
			path = "/tmp/not found/x"
		}
		if got := SourcingFailed([]byte(tt.out), path); got != tt.want {
			t.Errorf("%s: SourcingFailed = %v, want %v", tt.name, got, tt.want)
		}
	}
	if SourcingFailed([]byte("no such file"), "") {
		t.Error("empty path matched")
	}
}

// TestSourcingFailedInShells types the sourcing line for a file that does not
// exist, as a pane's shell on another machine would see it.
func TestSourcingFailedInShells(t *testing.T) {
	for _, sh := range allShells() {
		for _, interactive := range []bool{false, true} {
			name := sh.name
			if interactive {
				name += "-i"
			}
			t.Run(name, func(t *testing.T) {
				need(t, sh)
				t.Parallel()
				dir := t.TempDir()
				path := filepath.Join(dir, "gone", randomName())
				typed := Line(sh.kind, path)
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				argv := append([]string{}, sh.argv...)
				var cmd *exec.Cmd
				if interactive {
					cmd = exec.CommandContext(ctx, argv[0], append(argv[1:], "-i")...)
					cmd.Stdin = strings.NewReader(typed + "\nexit\n")
				} else {
					cmd = exec.CommandContext(ctx, argv[0], append(argv[1:], "-c", typed)...)
				}
				cmd.Dir = dir
				cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "TERM=dumb", "LC_ALL=C.UTF-8"}
				var buf bytes.Buffer
				cmd.Stdout, cmd.Stderr = &buf, &buf
				_ = cmd.Run()
				if !SourcingFailed(buf.Bytes(), path) {
					t.Errorf("SourcingFailed = false for:\n%s", buf.Bytes())
				}
			})
		}
	}
}
