package tmux

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMkdirTempShort: a directory for files a shell is given by a typed path is made in /tmp
// whatever TMPDIR says (macOS's is 49 bytes long), private, and in TMPDIR when /tmp cannot
// take it.
func TestMkdirTempShort(t *testing.T) {
	long := filepath.Join(t.TempDir(), "var", "folders", "zz", "zyxvpxvq6csfxvn_n0000000000000", "T")
	if err := os.MkdirAll(long, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", long)
	s := NewServer(Config{SocketPath: filepath.Join(long, "none")})
	defer s.Close()
	dir, err := s.MkdirTemp(context.Background(), "tmux-mcp-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 || !strings.HasPrefix(dir, "/tmp/tmux-mcp-") {
		t.Errorf("dir %s (%v, %v): want a private directory in /tmp", dir, st, err)
	}
	dir, err = mkdirTempIn([]string{filepath.Join(long, "missing"), long}, "x-")
	if err != nil || filepath.Dir(dir) != long {
		t.Errorf("without the first base: %s, %v; want a directory in %s", dir, err, long)
	}
	if _, err := mkdirTempIn([]string{filepath.Join(long, "missing")}, "x-"); err == nil {
		t.Error("no base can take it: no error")
	}
}
