package shellrun

import (
	"slices"
	"testing"
)

func TestStateOnly(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want []string
	}{
		{"cd /tmp", []string{"cd"}},
		{"cd '/my dir' && export PATH=\"$HOME/bin:$PATH\"", []string{"cd", "export"}},
		{"source .venv/bin/activate\n", []string{"source"}},
		{". ~/.profile; conda activate ml", []string{".", "conda activate"}},
		{"FOO=1 BAR=x", []string{"assignment"}},
		{"set -o vi; shopt -s globstar", []string{"set", "shopt"}},
		{"cd /tmp && ls", nil},
		{"FOO=1 make", nil},
		{"cd /tmp | cat", nil},
		{"cd $(mktemp -d)", nil},
		{"export A=1 > /dev/null", nil},
		{"(cd /tmp)", nil},
		{"cd /tmp &", nil},
		{"echo 'cd /tmp'", nil},
		{"conda install x", nil},
		{"", nil},
	} {
		if got := StateOnly(tc.cmd); !slices.Equal(got, tc.want) {
			t.Errorf("StateOnly(%q) = %q, want %q", tc.cmd, got, tc.want)
		}
	}
}
