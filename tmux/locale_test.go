package tmux_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Whatever the caller's locale, tmux's output reaches us byte for byte, over control mode and
// through spawned processes (without a UTF-8 locale tmux prints "_" for every non-ASCII
// byte).
func TestAnyLocale(t *testing.T) {
	tmx := testtmux.New(t)
	tmx.NewSession("s")
	const text = "é␞日本-#{session_name}"
	for name, extra := range map[string][]string{
		"none":         nil,
		"LANG=C":       {"LANG=C"},
		"LC_ALL=POSIX": {"LANG=C.UTF-8", "LC_ALL=POSIX"},
		"LC_CTYPE=C":   {"LC_CTYPE=C"},
	} {
		t.Run(name, func(t *testing.T) {
			env := append(append([]string{}, tmx.Env...), extra...)
			ts := tmux.NewServer(tmux.Config{SocketPath: tmx.Socket, Env: env, Timeout: 3 * time.Second})
			defer ts.Close()
			ctx := context.Background()
			format := strings.ReplaceAll(text, "#", "##")
			out, err := ts.Query(ctx, []string{"display-message", "-p", format})
			if err != nil || len(out[0]) != 1 || out[0][0] != text {
				t.Errorf("control mode: %q, %v", out, err)
			}
			lines, err := ts.Spawn(ctx, nil, "display-message", "-p", format)
			if err != nil || len(lines) != 1 || lines[0] != text {
				t.Errorf("spawned: %q, %v", lines, err)
			}
			raw, _, err := ts.SpawnRaw(ctx, nil, 1<<10, "display-message", "-p", format)
			if err != nil || string(raw) != text+"\n" {
				t.Errorf("spawned raw: %q, %v", raw, err)
			}
		})
	}
}

func TestSocketPath(t *testing.T) {
	uid := strconv.Itoa(os.Getuid())
	for _, c := range []struct {
		cfg  tmux.Config
		want string
	}{
		{tmux.Config{SocketPath: "/a/b/sock"}, "/a/b/sock"},
		{tmux.Config{SocketName: "x", Env: []string{"TMUX_TMPDIR=/run/t"}}, "/run/t/tmux-" + uid + "/x"},
		{tmux.Config{Env: []string{"PATH=/bin"}}, "/tmp/tmux-" + uid + "/default"},
	} {
		if got := tmux.NewServer(c.cfg).SocketPath(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.cfg, got, c.want)
		}
	}
}
