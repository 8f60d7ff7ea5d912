package stream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/control"
)

// fixture is a private tmux server with a Hub dialing it the way the tmux
// package does: one `tmux -C attach -t <session>` process per connection.
type fixture struct {
	t     *testing.T
	srv   *testtmux.Server
	hub   *Hub
	dials atomic.Int32
	// onOutput, when set, sees every output before the Hub does.
	onOutput func(control.Output)
	// serverKilled: the test kills tmux itself.
	serverKilled bool

	cmu         sync.Mutex
	cconn       *control.Conn   // command connection for alive
	cconnExited <-chan struct{} // closed when its process has exited
	closing     bool            // the test is over: no new command connection
}

func newFixture(t *testing.T, opts HubOptions) *fixture {
	t.Helper()
	f := &fixture{t: t, srv: testtmux.New(t)}
	opts.Dial = f.dial
	opts.Alive = f.alive
	f.hub = NewHub(opts)
	t.Cleanup(func() { // runs before the server is killed
		// The fixture's own command connection goes first, and alone: no new one is
		// opened from now on, and the Hub's clients leave only once it has.
		f.cmu.Lock()
		f.closing = true
		cc, exited := f.cconn, f.cconnExited
		f.cconn = nil
		f.cmu.Unlock()
		if cc != nil {
			cc.Close()
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				t.Error("the fixture's command client did not exit")
			}
		}
		f.hub.Close()
		if f.serverKilled {
			return
		}
		// Detaching our clients must not take tmux down with it.
		time.Sleep(200 * time.Millisecond)
		if out, err := f.srv.TryTmux("list-sessions"); err != nil {
			t.Errorf("tmux server died: %v: %s", err, out)
		}
	})
	return f
}

func (f *fixture) dial(ctx context.Context, session string, opts control.Options) (*control.Conn, error) {
	f.dials.Add(1)
	if wrap := f.onOutput; wrap != nil {
		inner := opts.OnOutput
		opts.OnOutput = func(o control.Output) { wrap(o); inner(o) }
	}
	conn, _, err := f.spawn(session, opts)
	return conn, err
}

// spawn starts `tmux -C attach [flags] -t session` and a Conn over its pipes;
// exited is closed when the process has exited.
func (f *fixture) spawn(session string, opts control.Options, flags ...string) (conn *control.Conn, exited <-chan struct{}, err error) {
	args := append([]string{"-S", f.srv.Socket, "-C", "attach"}, flags...)
	cmd := exec.Command("tmux", append(args, "-t", session)...)
	cmd.Env = f.srv.Env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("start tmux -C: %w", err)
	}
	conn = control.NewConn(stdout, stdin, opts)
	done := make(chan struct{})
	go func() {
		<-conn.Done()
		cmd.Wait()
		close(done)
	}()
	return conn, done, nil
}

// alive lists live panes over a command connection of its own, as the tmux
// package does (a spawned tmux per call is too slow for the < 1 s targets on
// a loaded machine).
func (f *fixture) alive(ctx context.Context, _ []string) (map[string]bool, error) {
	c, err := f.commandConn(ctx)
	if err != nil {
		return nil, err
	}
	out, err := c.Do(ctx, []string{"list-panes", "-a", "-F", "#{pane_id} #{pane_dead}"})
	if err != nil {
		return nil, err
	}
	m := make(map[string]bool)
	for _, line := range out[0] {
		id, dead, ok := strings.Cut(line, " ")
		if ok && dead == "0" {
			m[id] = true
		}
	}
	return m, nil
}

// commandConn returns the fixture's command connection, (re)opening it on
// any session when needed. It asks for no pane output from the attach on
// (attach -f): with refresh-client -f no-output after the attach, the client
// counted as one taking output until then, and tmux 3.3a now and then
// segfaulted (in control_write) when the fixture closed it and the Hub's
// client together soon after.
func (f *fixture) commandConn(ctx context.Context) (*control.Conn, error) {
	f.cmu.Lock()
	defer f.cmu.Unlock()
	if f.closing {
		return nil, errors.New("the fixture is closing")
	}
	if f.cconn != nil {
		select {
		case <-f.cconn.Done():
			f.cconn = nil
		default:
			return f.cconn, nil
		}
	}
	ls := exec.CommandContext(ctx, "tmux", "-S", f.srv.Socket, "list-sessions", "-F", "#{session_id}")
	ls.Env = f.srv.Env
	out, err := ls.Output()
	if err != nil {
		return nil, fmt.Errorf("list-sessions: %w", err)
	}
	session, _, _ := strings.Cut(string(out), "\n")
	attached := make(chan struct{})
	var once sync.Once
	c, exited, err := f.spawn(session, control.Options{OnNotification: func(n control.Notification) {
		if n.Name == "session-changed" {
			once.Do(func() { close(attached) })
		}
	}}, "-f", "no-output")
	if err != nil {
		return nil, err
	}
	select {
	case <-attached:
	case <-c.Done():
		return nil, c.Err()
	case <-ctx.Done():
		c.Close()
		return nil, ctx.Err()
	}
	f.cconn, f.cconnExited = c, exited
	return c, nil
}

// controlClients counts the server's control-mode clients that take pane
// output (the fixture's command connection does not).
func (f *fixture) controlClients() int {
	out, err := f.srv.TryTmux("list-clients", "-F", "#{client_control_mode} #{client_flags}")
	if err != nil {
		return 0
	}
	n := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "1 ") && !strings.Contains(line, "no-output") {
			n++
		}
	}
	return n
}

func (f *fixture) watch(session, pane string) *Watch {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w, err := f.hub.Watch(ctx, session, pane)
	if err != nil {
		f.t.Fatalf("Watch(%s, %s): %v", session, pane, err)
	}
	f.t.Cleanup(w.Release)
	return w
}

// collect reads w from off until done(all bytes read) holds, the stream
// ends, or timeout. It returns the bytes, the missed count and the end error.
func collect(t *testing.T, w *Watch, off int64, timeout time.Duration, done func([]byte) bool) ([]byte, int64, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var all []byte
	var missed int64
	for {
		data, next, m, err := w.Read(off, 0)
		missed += m
		all = append(all, data...)
		off = next
		if err != nil || done(all) {
			return all, missed, err
		}
		if err := w.Wait(ctx, off); err != nil && !errors.Is(err, ErrPaneGone) &&
			!errors.Is(err, ErrServerGone) && !errors.Is(err, ErrSessionGone) {
			t.Fatalf("Wait: %v; read so far %q", err, tail(all))
		}
	}
}

func tail(b []byte) []byte {
	if len(b) > 300 {
		return b[len(b)-300:]
	}
	return b
}

func hasLine(b []byte, want string) bool {
	for _, l := range Clean(b) {
		if l == want {
			return true
		}
	}
	return false
}

func TestHubOutput(t *testing.T) {
	f := newFixture(t, HubOptions{})
	sess, pane := f.srv.NewSession("s")
	w := f.watch(sess, pane)
	off := w.Offset()
	f.srv.Tmux("send-keys", "-t", pane, "echo hi", "Enter")
	data, missed, err := collect(t, w, off, 5*time.Second, func(b []byte) bool { return hasLine(b, "hi") })
	if err != nil || missed != 0 || !hasLine(data, "hi") {
		t.Fatalf("got %q, missed %d, err %v", data, missed, err)
	}
	if w.Pane() != pane || w.Session() != sess || w.Err() != nil {
		t.Fatalf("Pane/Session/Err = %s %s %v", w.Pane(), w.Session(), w.Err())
	}
	if n := f.controlClients(); n != 1 {
		t.Fatalf("control clients = %d, want 1", n)
	}
}

func TestHubSharedConnection(t *testing.T) {
	f := newFixture(t, HubOptions{})
	sess, pane := f.srv.NewSession("s")
	pane2 := f.srv.SplitWindow(pane)
	var wg sync.WaitGroup
	ws := make([]*Watch, 8)
	for i := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := pane
			if i%2 == 1 {
				p = pane2
			}
			w, err := f.hub.Watch(context.Background(), sess, p)
			if err != nil {
				t.Error(err)
				return
			}
			ws[i] = w
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if n := f.dials.Load(); n != 1 {
		t.Fatalf("dials = %d, want 1", n)
	}
	if ws[0].ps != ws[2].ps || ws[0].ps == ws[1].ps {
		t.Fatal("watches of one pane do not share a ring, or two panes share one")
	}
	off := ws[1].Offset()
	f.srv.Tmux("send-keys", "-t", pane2, "echo two", "Enter")
	if data, _, err := collect(t, ws[3], off, 5*time.Second, func(b []byte) bool { return hasLine(b, "two") }); err != nil || !hasLine(data, "two") {
		t.Fatalf("pane2 got %q, %v", data, err)
	}
	for _, w := range ws {
		w.Release()
		w.Release() // idempotent
	}
	if ws[0].Err() != ErrReleased {
		t.Fatalf("released stream Err = %v", ws[0].Err())
	}
}

func TestHubUTF8Split(t *testing.T) {
	f := newFixture(t, HubOptions{})
	var splits atomic.Int32
	f.onOutput = func(o control.Output) {
		if incompleteTail(o.Data) > 0 {
			splits.Add(1)
		}
	}
	sess, pane := f.srv.NewSession("s")
	w := f.watch(sess, pane)
	off := w.Offset()
	// 60000 euro signs (3 bytes each) arrive in chunks that split some.
	f.srv.Tmux("send-keys", "-t", pane, `printf '€%.0s' $(seq 60000); printf '%s_%s\n' UTF DONE`, "Enter")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var all []byte
	for !bytes.Contains(all, []byte("UTF_DONE")) {
		if err := w.Wait(ctx, off); err != nil {
			t.Fatalf("Wait: %v", err)
		}
		// Every read up to the ring's end is whole UTF-8: the holdback
		// kept split characters out until they were complete.
		data, next, missed, err := w.Read(off, 0)
		if err != nil || missed != 0 {
			t.Fatalf("Read: missed %d, err %v", missed, err)
		}
		if !utf8.Valid(data) {
			t.Fatalf("read at %d is not valid UTF-8: ...%q", off, tail(data))
		}
		all = append(all, data...)
		off = next
	}
	if n := strings.Count(string(all), "€"); n < 60000 {
		t.Fatalf("got %d euro signs, want >= 60000", n)
	}
	if splits.Load() == 0 {
		t.Fatal("tmux never split a character across output lines: the test proved nothing")
	}
	t.Logf("%d chunks ended inside a character", splits.Load())
}

func TestHubFlood(t *testing.T) {
	f := newFixture(t, HubOptions{})
	sess, pane := f.srv.NewSession("s")
	w := f.watch(sess, pane)
	start := w.Offset()
	const size = 10 << 20
	f.srv.Tmux("send-keys", "-t", pane, fmt.Sprintf("yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c %d; printf '%%s_%%s\\n' FLOOD END", size), "Enter")
	// Do not read during the flood: let the ring overflow.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for w.Offset()-start < size {
		if err := w.Wait(ctx, w.Offset()); err != nil {
			t.Fatalf("Wait during flood at %d: %v", w.Offset()-start, err)
		}
	}
	data, missed, err := collect(t, w, start, 30*time.Second, func(b []byte) bool { return bytes.Contains(b, []byte("FLOOD_END")) })
	if err != nil || !bytes.Contains(data, []byte("FLOOD_END")) {
		t.Fatalf("end marker not seen: err %v, tail %q", err, tail(data))
	}
	if missed <= 0 {
		t.Fatalf("missed = %d after a %d-byte flood through a %d-byte ring", missed, size, DefaultRingSize)
	}
	if got := int64(len(data)) + missed; got < size {
		t.Fatalf("read %d + missed %d < %d", len(data), missed, size)
	}
	t.Logf("read %d bytes, missed %d, gaps %d", len(data), missed, w.Gaps(start, w.Offset()))
	// The connection survived: new output still arrives.
	off := w.Offset()
	f.srv.Tmux("send-keys", "-t", pane, "echo after", "Enter")
	if data, _, err := collect(t, w, off, 5*time.Second, func(b []byte) bool { return hasLine(b, "after") }); err != nil || !hasLine(data, "after") {
		t.Fatalf("after flood: %q, %v", tail(data), err)
	}
	if f.dials.Load() != 1 {
		t.Fatalf("dials = %d: the connection was lost", f.dials.Load())
	}
}

// TestHubPause stalls the reader mid-flood long enough for tmux's
// pause-after to fire, and checks the Hub continues the pane at once,
// records the gap, and the stream carries on.
func TestHubPause(t *testing.T) {
	// Under load, tmux 3.3a now and then sends a control client nothing more of a pane once it
	// has paused it: either %continue arrives and still no %output follows, while command
	// replies on the same client do and refresh-client -A off/on does not help (the Hub
	// answers every pause with a fresh connection, which gets the output), or the %pause line
	// never arrives, so nothing tells the Hub. That second case is tmux's flaw, out of our
	// reach; the scenario is tried again on a fresh server, twice (a loaded CI machine saw two
	// stalls in a row), before the test fails.
	for attempt := 1; ; attempt++ {
		stalled := hubPauseOnce(t)
		if !stalled {
			return
		}
		if attempt == 3 {
			t.Fatal("stream did not carry on after the stall, on three servers")
		}
		t.Log("tmux sent no more output after a continue; trying once more on a fresh server")
	}
}

// probe runs a command on the stream connection of a session: whether tmux still answers it.
func (f *fixture) probe(sess string) error {
	f.hub.mu.Lock()
	l := f.hub.links[sess]
	f.hub.mu.Unlock()
	if l == nil || l.conn == nil {
		return errors.New("no connection")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, err := l.conn.Do(ctx, []string{"display-message", "-p", "probe"})
	return err
}

// hubPauseOnce runs the stall scenario; it reports true when the stream did not carry on.
func hubPauseOnce(t *testing.T) (stalled bool) {
	f := newFixture(t, HubOptions{PauseAfter: 1})
	var outputs atomic.Int32
	f.onOutput = func(control.Output) {
		if outputs.Add(1) == 50 {
			time.Sleep(3 * time.Second) // tmux's queued blocks age meanwhile
		}
	}
	var pauses, continues atomic.Int32
	continued := make(chan struct{}, 1)
	defer f.hub.Listen(func(_ string, n control.Notification) {
		switch n.Name {
		case "pause":
			pauses.Add(1)
		case "continue":
			continues.Add(1)
			select {
			case continued <- struct{}{}:
			default:
			}
		}
	})()
	sess, pane := f.srv.NewSession("s")
	w := f.watch(sess, pane)
	start := w.Offset()
	f.srv.Tmux("send-keys", "-t", pane, "yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 3000000; printf '%s_%s\\n' PAUSE END", "Enter")
	// The end marker may fall in the discarded part (tmux drops a paused
	// pane's output until it reads our continue): once the pane is
	// continued, a second command must come through.
	f.srv.WaitFor(pane, func(screen string) bool { return strings.Contains(screen, "PAUSE_END") })
	select {
	case <-continued:
	case <-time.After(5 * time.Second): // no pause: nothing to wait for
	}
	f.srv.Tmux("send-keys", "-t", pane, "printf '%s_%s\\n' AFTER PAUSE", "Enter")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var data []byte
	for off := start; !hasLine(data, "AFTER_PAUSE"); {
		b, next, _, err := w.Read(off, 0)
		data, off = append(data, b...), next
		if err != nil {
			t.Fatalf("stream ended: %v", err)
		}
		if hasLine(data, "AFTER_PAUSE") {
			break
		}
		if err := w.Wait(ctx, off); err != nil {
			t.Logf("no more output after %d pauses and %d continues (%d outputs; a command on the stream's connection: %v); read so far %q",
				pauses.Load(), continues.Load(), outputs.Load(), f.probe(sess), tail(data))
			return true
		}
	}
	if pauses.Load() == 0 {
		t.Skip("tmux did not pause the pane during the stall (timing); flow control path not exercised")
	}
	// A pause is answered with continue on the connection and with a fresh connection
	// (Hub.replace), whose arrival closes the old one, %continue or not.
	if f.dials.Load() < 2 {
		t.Fatalf("%d pauses, %d continues and no replacement connection", pauses.Load(), continues.Load())
	}
	if g := w.Gaps(start, w.Offset()); g == 0 {
		t.Fatalf("%d pauses but no gap recorded", pauses.Load())
	}
	t.Logf("pauses %d, gaps %d", pauses.Load(), w.Gaps(start, w.Offset()))
	return false
}

func TestHubPaneKilled(t *testing.T) {
	f := newFixture(t, HubOptions{})
	sess, pane := f.srv.NewSession("s")
	pane2 := f.srv.SplitWindow(pane)
	w := f.watch(sess, pane2)
	keep := f.watch(sess, pane)
	off := w.Offset()
	begin := time.Now()
	f.srv.Tmux("kill-pane", "-t", pane2)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		err := w.Wait(ctx, off)
		if err == nil {
			_, off, _, _ = w.Read(off, 0)
			continue
		}
		if !errors.Is(err, ErrPaneGone) {
			t.Fatalf("Wait = %v, want ErrPaneGone", err)
		}
		break
	}
	d := time.Since(begin)
	if d > time.Second {
		t.Fatalf("ErrPaneGone after %v, want < 1s", d)
	}
	t.Logf("ErrPaneGone %v after kill-pane", d.Round(time.Millisecond))
	if keep.Err() != nil {
		t.Fatalf("the other pane's stream ended: %v", keep.Err())
	}
}

// waitGone waits up to max for w to end with ErrPaneGone.
func waitGone(t *testing.T, name string, w *Watch, max time.Duration) {
	t.Helper()
	begin := time.Now()
	_, _, err := collect(t, w, 0, max, func([]byte) bool { return false })
	if !errors.Is(err, ErrPaneGone) {
		t.Fatalf("%s: err = %v, want ErrPaneGone", name, err)
	}
	t.Logf("%s: ended after %v", name, time.Since(begin).Round(time.Millisecond))
}

func TestHubPaneExitsAndDies(t *testing.T) {
	f := newFixture(t, HubOptions{})
	sess, pane := f.srv.NewSession("s")

	exiting := f.srv.SplitWindow(pane)
	we := f.watch(sess, exiting)
	f.srv.Tmux("send-keys", "-t", exiting, "exit", "Enter")
	waitGone(t, "exited", we, time.Second)

	// A dead pane (remain-on-exit) in the background: tmux says nothing,
	// CheckPanes finds it.
	dying := f.srv.SplitWindow(pane)
	f.srv.Tmux("set-option", "-p", "-t", dying, "remain-on-exit", "on")
	wd := f.watch(sess, dying)
	f.srv.Tmux("send-keys", "-t", dying, "exit", "Enter")
	deadline := time.Now().Add(5 * time.Second)
	for f.srv.Tmux("display-message", "-p", "-t", dying, "#{pane_dead}") != "1" {
		if time.Now().After(deadline) {
			t.Fatal("pane did not die")
		}
		time.Sleep(20 * time.Millisecond)
	}
	f.hub.CheckPanes()
	waitGone(t, "dead, after CheckPanes", wd, time.Second)

}

func TestHubUnknownPane(t *testing.T) {
	f := newFixture(t, HubOptions{})
	sess, _ := f.srv.NewSession("s")
	w := f.watch(sess, "%999")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := w.Wait(ctx, 0); !errors.Is(err, ErrPaneGone) {
		t.Fatalf("Wait = %v, want ErrPaneGone", err)
	}
}

func TestHubServerKilled(t *testing.T) {
	f := newFixture(t, HubOptions{})
	sess, pane := f.srv.NewSession("s")
	w := f.watch(sess, pane)
	var exits atomic.Int32
	defer f.hub.Listen(func(_ string, n control.Notification) {
		if n.Name == "exit" {
			exits.Add(1)
		}
	})()
	pid := f.srv.Tmux("display-message", "-p", "#{pid}")
	f.serverKilled = true
	begin := time.Now()
	if err := exec.Command("kill", "-KILL", pid).Run(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := w.Wait(ctx, w.Offset()); !errors.Is(err, ErrServerGone) {
		t.Fatalf("Wait = %v, want ErrServerGone", err)
	}
	d := time.Since(begin)
	if d > time.Second {
		t.Fatalf("ErrServerGone after %v, want < 1s", d)
	}
	t.Logf("ErrServerGone %v after SIGKILL", d.Round(time.Millisecond))
	if exits.Load() == 0 {
		t.Fatal("listeners were not told the connection ended")
	}
	// A Watch after the death fails (no server to attach to) and does not hang.
	if _, err := f.hub.Watch(ctx, sess, pane); err == nil {
		t.Fatal("Watch on a dead server succeeded")
	}
}

func TestHubSessionDestroyedPaneLivesOn(t *testing.T) {
	f := newFixture(t, HubOptions{})
	f.srv.NewSession("keep")
	sess, pane := f.srv.NewSession("doomed")
	// Link the doomed session's window into "keep" too, so its pane
	// outlives the session.
	f.srv.Tmux("link-window", "-s", pane, "-t", "keep:9")
	w := f.watch(sess, pane)
	if out, err := f.srv.TryTmux("kill-session", "-t", sess); err != nil {
		if _, alive := f.srv.TryTmux("list-sessions"); alive != nil {
			// tmux 3.3a's own defect (docs/architecture.md): a session killed from outside while a
			// control client is attached to it can take the server down (segfault at 20,
			// seen once in three runs of the suite beside CPU hogs). tmux-mcp orders its
			// own kills with its attaches (tmux/gate.go); a kill from outside it cannot.
			f.serverKilled = true
			t.Skipf("tmux crashed on kill-session (%v: %s)", err, out)
		}
		t.Fatalf("kill-session: %v: %s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := w.Wait(ctx, w.Offset())
	if !errors.Is(err, ErrSessionGone) {
		t.Fatalf("Wait = %v, want ErrSessionGone", err)
	}
}

func TestHubTopologyNoise(t *testing.T) {
	f := newFixture(t, HubOptions{})
	sess, pane := f.srv.NewSession("s")
	w := f.watch(sess, pane)
	var seen sync.Map
	defer f.hub.Listen(func(s string, n control.Notification) {
		if s == sess {
			seen.Store(n.Name, true)
		}
	})()
	off := w.Offset()
	p2 := f.srv.SplitWindow(pane)
	f.srv.Tmux("rename-window", "-t", pane, "renamed")
	f.srv.Tmux("rename-session", "-t", sess, "s2")
	f.srv.Tmux("select-layout", "-t", pane, "even-vertical")
	f.srv.Tmux("resize-window", "-t", pane, "-x", "100", "-y", "30")
	f.srv.NewWindow(sess)
	f.srv.Tmux("kill-pane", "-t", p2)
	f.srv.NewSession("other")
	f.srv.Tmux("send-keys", "-t", pane, "echo still", "Enter")
	data, _, err := collect(t, w, off, 5*time.Second, func(b []byte) bool { return hasLine(b, "still") })
	if err != nil || !hasLine(data, "still") {
		t.Fatalf("after topology noise: %q, %v", tail(data), err)
	}
	if w.Err() != nil {
		t.Fatalf("stream ended: %v", w.Err())
	}
	for _, name := range []string{"layout-change", "window-renamed", "window-add"} {
		if _, ok := seen.Load(name); !ok {
			t.Errorf("listener did not see %%%s", name)
		}
	}
}

func TestHubLinger(t *testing.T) {
	f := newFixture(t, HubOptions{Linger: 300 * time.Millisecond})
	sess, pane := f.srv.NewSession("s")
	ctx := context.Background()
	w, err := f.hub.Watch(ctx, sess, pane)
	if err != nil {
		t.Fatal(err)
	}
	w.Release()
	// Rejoined within the linger: same connection.
	w, err = f.hub.Watch(ctx, sess, pane)
	if err != nil {
		t.Fatal(err)
	}
	if f.dials.Load() != 1 {
		t.Fatalf("dials = %d, want 1", f.dials.Load())
	}
	time.Sleep(500 * time.Millisecond)
	if n := f.controlClients(); n != 1 {
		t.Fatalf("control clients while watched = %d, want 1", n)
	}
	w.Release()
	deadline := time.Now().Add(5 * time.Second)
	for f.controlClients() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("connection still open 5s after the linger")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A later Watch dials again.
	w, err = f.hub.Watch(ctx, sess, pane)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Release()
	if f.dials.Load() != 2 {
		t.Fatalf("dials = %d, want 2", f.dials.Load())
	}
}

func TestHubClose(t *testing.T) {
	f := newFixture(t, HubOptions{})
	sess, pane := f.srv.NewSession("s")
	w := f.watch(sess, pane)
	errc := make(chan error, 1)
	go func() { errc <- w.Wait(context.Background(), w.Offset()) }()
	f.hub.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrHubClosed) {
			t.Fatalf("Wait = %v, want ErrHubClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not wake the reader")
	}
	if _, err := f.hub.Watch(context.Background(), sess, pane); !errors.Is(err, ErrHubClosed) {
		t.Fatalf("Watch after Close = %v", err)
	}
}

func TestHubDialError(t *testing.T) {
	f := newFixture(t, HubOptions{})
	f.srv.NewSession("s")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := f.hub.Watch(ctx, "$4242", "%0"); err == nil {
		t.Fatal("Watch of a missing session succeeded")
	}
	if _, err := NewHub(HubOptions{}).Watch(ctx, "$0", "%0"); err == nil {
		t.Fatal("Watch without Dial succeeded")
	}
}

// TestHubAbandonedDial: a Watch that gives up while the attach is under way
// leaves a connection nobody holds; it still closes after the linger.
func TestHubAbandonedDial(t *testing.T) {
	f := newFixture(t, HubOptions{Linger: 100 * time.Millisecond})
	sess, pane := f.srv.NewSession("s")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.hub.Watch(ctx, sess, pane); !errors.Is(err, context.Canceled) {
		t.Fatalf("Watch with a cancelled context = %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		f.hub.mu.Lock()
		n := len(f.hub.links)
		f.hub.mu.Unlock()
		if n == 0 && f.controlClients() == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("abandoned connection still open: %d links, %d clients", n, f.controlClients())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if f.dials.Load() != 1 {
		t.Fatalf("dials = %d, want 1", f.dials.Load())
	}
}

// Hub.replace hands a session's streams to a fresh connection: the watches carry on (with a
// gap at the switch), the old connection closes, and releasing the watches lets the new one
// linger and close.
func TestHubReplace(t *testing.T) {
	f := newFixture(t, HubOptions{Linger: 100 * time.Millisecond})
	sess, pane := f.srv.NewSession("s")
	w1, w2 := f.watch(sess, pane), f.watch(sess, pane)
	off := w1.Offset()
	f.srv.Tmux("send-keys", "-t", pane, "echo before", "Enter")
	if data, _, err := collect(t, w1, off, 5*time.Second, func(b []byte) bool { return hasLine(b, "before") }); err != nil || !hasLine(data, "before") {
		t.Fatalf("before the switch: %q, %v", data, err)
	}
	// tmux 3.3a can crash when a client identifies itself while another one's departure is
	// being announced (docs/architecture.md): the old client is seen gone, over control mode, before the
	// next tmux command is spawned.
	cc, err := f.commandConn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	clients := func() int {
		out, err := cc.Do(context.Background(), []string{"list-clients", "-F", "#{client_pid}"})
		if err != nil || len(out) == 0 {
			t.Fatalf("list-clients: %v", err)
		}
		return len(out[0])
	}
	n := clients()
	f.hub.mu.Lock()
	old := f.hub.links[sess]
	f.hub.mu.Unlock()
	old.mu.Lock()
	old.replacing = true // as onNotification sets it
	old.mu.Unlock()
	f.hub.replace(old)
	f.hub.mu.Lock()
	nl := f.hub.links[sess]
	f.hub.mu.Unlock()
	if nl == old || nl == nil || !old.dead {
		t.Fatalf("the session's link was not replaced (old %p, now %p, old dead %v)", old, nl, old.dead)
	}
	select {
	case <-old.conn.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the old connection stayed open")
	}
	for deadline := time.Now().Add(5 * time.Second); clients() != n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the old client is still listed: %d clients, want %d", clients(), n)
		}
	}
	mid := w1.Offset()
	f.srv.Tmux("send-keys", "-t", pane, "echo after", "Enter")
	for _, w := range []*Watch{w1, w2} {
		if data, _, err := collect(t, w, mid, 5*time.Second, func(b []byte) bool { return hasLine(b, "after") }); err != nil || !hasLine(data, "after") {
			t.Fatalf("after the switch: %q, %v", data, err)
		}
	}
	if g := w1.Gaps(off, w1.Offset()); g != 1 {
		t.Fatalf("%d gaps recorded across the switch, want 1", g)
	}
	w1.Release()
	w2.Release()
	deadline := time.Now().Add(5 * time.Second)
	for {
		f.hub.mu.Lock()
		_, open := f.hub.links[sess]
		f.hub.mu.Unlock()
		if !open {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the new link did not close after its linger once both watches were released")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if w1.Err() != ErrReleased {
		t.Fatalf("stream end %v, want ErrReleased", w1.Err())
	}
}

// When no new connection can be had, the old one keeps its streams.
func TestHubReplaceFails(t *testing.T) {
	f := newFixture(t, HubOptions{DialTimeout: 2 * time.Second})
	sess, pane := f.srv.NewSession("s")
	w := f.watch(sess, pane)
	f.hub.mu.Lock()
	old := f.hub.links[sess]
	dial := f.hub.opts.Dial
	f.hub.opts.Dial = func(context.Context, string, control.Options) (*control.Conn, error) {
		return nil, errors.New("no more clients")
	}
	f.hub.mu.Unlock()
	f.hub.replace(old)
	f.hub.mu.Lock()
	f.hub.opts.Dial = dial
	still := f.hub.links[sess] == old
	f.hub.mu.Unlock()
	if !still || old.dead {
		t.Fatal("a failed replacement dropped the working link")
	}
	off := w.Offset()
	f.srv.Tmux("send-keys", "-t", pane, "echo still", "Enter")
	if data, _, err := collect(t, w, off, 5*time.Second, func(b []byte) bool { return hasLine(b, "still") }); err != nil || !hasLine(data, "still") {
		t.Fatalf("after a failed switch: %q, %v", data, err)
	}
}
