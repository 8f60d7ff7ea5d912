package stream

import (
	"os/exec"
	"os"
	"runtime/pprof"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/control"
)

func TestDbgPause(t *testing.T) {
	f := newFixture(t, HubOptions{PauseAfter: 1})
	var stall atomic.Bool
	var maxAge atomic.Int64
	var n atomic.Int64
	f.onOutput = func(o control.Output) {
		n.Add(1)
		if o.Age > maxAge.Load() {
			maxAge.Store(o.Age)
		}
		if n.Load() == 50 && stall.CompareAndSwap(true, false) {
			t.Logf("stall start, ext=%v", o.Extended)
			time.Sleep(3000 * time.Millisecond)
			t.Logf("stall end")
		}
	}
	defer f.hub.Listen(func(_ string, n control.Notification) { t.Logf("notif %q", n.Raw) })()
	os.MkdirAll("/tmp/probe/logs", 0o755)
	c := exec.Command("sh", "-c", "ulimit -c unlimited; exec tmux -S \"$0\" -f \"$1\" new-session -d -s s -x 80 -y 24 bash --noprofile --norc", f.srv.Socket, f.srv.Conf)
	c.Env = f.srv.Env
	c.Dir = "/tmp/probe/logs"
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatal(err, string(out))
	}
	sess, pane := "$0", "%0"
	f.srv.WaitPrompt(pane)
	w := f.watch(sess, pane)
	stall.Store(true)
	f.srv.Tmux("send-keys", "-t", pane, "yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 3000000; echo END", "Enter")
	time.Sleep(6 * time.Second)
	t.Logf("outputs %d maxAge %d end %d", n.Load(), maxAge.Load(), w.Offset())
	t.Logf("screen: %q", f.srv.Tmux("capture-pane", "-p", "-t", pane))
	f.srv.Tmux("send-keys", "-t", pane, "echo hello", "Enter")
	time.Sleep(2 * time.Second)
	t.Logf("outputs %d maxAge %d end %d", n.Load(), maxAge.Load(), w.Offset())
	t.Logf("screen: %q", f.srv.Tmux("capture-pane", "-p", "-t", pane))
	if w.Offset() < 3000000 {
		pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
		t.Logf("clients: %s", f.srv.Tmux("list-clients", "-F", "#{client_name} #{client_flags} #{client_written} #{client_discarded}"))
	}
}
