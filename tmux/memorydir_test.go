package tmux

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestMkdirTempInMemory: a local script directory goes in the runtime directory (memory) when
// TMPDIR does not name another place; TMPDIR, when set, is where it goes.
func TestMkdirTempInMemory(t *testing.T) {
	runtimeDir, tmpDir := t.TempDir(), t.TempDir()
	s := NewServer(Config{SocketName: "unused"})
	for _, tc := range []struct {
		name, tmpdir, want string
	}{
		{"runtime dir", "", runtimeDir},
		{"TMPDIR set", tmpDir, tmpDir},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("XDG_RUNTIME_DIR", runtimeDir)
			t.Setenv("TMPDIR", tc.tmpdir)
			if tc.tmpdir == "" {
				os.Unsetenv("TMPDIR")
			}
			dir, err := s.MkdirTemp(context.Background(), "tmux-mcp-")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			want := tc.want
			if runtime.GOOS != "linux" && tc.tmpdir == "" {
				want = os.TempDir()
			}
			if filepath.Dir(dir) != filepath.Clean(want) {
				t.Errorf("MkdirTemp made %s, want it in %s", dir, want)
			}
			if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
				t.Errorf("mode: %v %v, want 0700", fi.Mode(), err)
			}
		})
	}
}
