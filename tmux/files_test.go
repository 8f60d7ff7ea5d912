package tmux

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMkdirTempShort: a directory for files a shell is given by a typed path is made where
// tmux keeps its sockets ($TMUX_TMPDIR, else /tmp) whatever TMPDIR says (macOS's is 49 bytes
// long), private, and in TMPDIR when neither can take it.
func TestMkdirTempShort(t *testing.T) {
	long := filepath.Join(t.TempDir(), "var", "folders", "zz", "zyxvpxvq6csfxvn_n0000000000000", "T")
	if err := os.MkdirAll(long, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", long)
	own := t.TempDir()
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{[]string{"HOME=/nonexistent"}, "/tmp"},
		{[]string{"TMUX_TMPDIR=" + own}, own},
		{[]string{"TMUX_TMPDIR=" + filepath.Join(own, "missing")}, long},
	} {
		s := NewServer(Config{SocketPath: filepath.Join(own, "none"), Env: tc.env})
		dir, err := s.MkdirTemp(context.Background(), "tmux-mcp-")
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		os.RemoveAll(dir)
		if filepath.Dir(dir) != tc.want || !strings.HasPrefix(filepath.Base(dir), "tmux-mcp-") {
			t.Errorf("%v: made %s, want it in %s", tc.env, dir, tc.want)
		}
	}
	if _, err := mkdirTempIn([]string{filepath.Join(long, "missing")}, "x-"); err == nil {
		t.Error("no base can take it: no error")
	}
}
