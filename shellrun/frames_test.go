package shellrun

import (
	"strings"
	"testing"
)

// TestFrameChoice checks which POSIX frame each program and command gets:
// one subshell where it is safe, the nested pair otherwise.
func TestFrameChoice(t *testing.T) {
	for _, tt := range []struct {
		prog, cmd string
		nested    bool
	}{
		{"bash", "true", false},
		{"-bash", "echo hi", false},
		{"zsh-5.9", "true", false},
		{"dash", "true", false},
		{"mksh", "true", false},
		{"bash", "trap 'echo bye' EXIT", true},
		{"zsh", "TRAPEXIT() { echo bye; }", true},
		{"bash", "exec >/dev/null", true},
		{"bash", "find . -exec true {} +", true},
		{"ksh", "true", true},
		{"ksh93", "true", true},
		{"sh", "true", true},
		{"", "true", true},
	} {
		script, _, err := ScriptFor(POSIX, tt.prog, tid, tt.cmd, "/tmp/tm1/s")
		if err != nil {
			t.Fatal(err)
		}
		line, err := InlineFor(POSIX, tt.prog, tid, tt.cmd)
		if err != nil {
			t.Fatal(err)
		}
		nested := strings.Contains(script, "\n(\ncase $__tmx_o")
		if nested != tt.nested || strings.Contains(line, "( case $__tmx_o") != tt.nested {
			t.Errorf("%q %q: nested=%v, want %v\n%s\n%s", tt.prog, tt.cmd, nested, tt.nested, script, line)
		}
	}
}
