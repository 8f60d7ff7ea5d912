package control

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

func TestRealWordsRoundTrip(t *testing.T) {
	tm := startTmux(t)
	c := tm.attach(t, Options{})
	words := []string{
		"plain", "two words", "  lead and trail  ", ";", " ; ", "a;b", "a ; b",
		"'", "''", `\'`, `'\''`, "it's", `"double"`, `\`, `end\`, `\\`, `a\nb`,
		"#{pane_id}", "#(echo pwned)", "##", "# comment", "$HOME", "${HOME}", "~", "~root", "%", "%if 1", "%endif",
		"{", "}", "{ display x }", "FOO=bar", "-", "--", "-dash", "=",
		"\r", "a\rb", "x\r", "\t", "\x01\x1b[31m\x7f", "ü日本語🙂", "\xfe\xc3 invalid utf-8",
		strings.Repeat("long ", 40000),
		"a\nb", "\n", "line\n", "it's\n\"$HOME\" \\ \\n #{pane_id} ~ ; { }\n\x01\x1b\x7f\tü", strings.Repeat("script line\n", 5000),
	}
	for i, w := range words {
		// Two oracles: a user option printed back in-band (show-options
		// prints values raw), and a paste buffer saved to a file.
		file := filepath.Join(tm.dir, fmt.Sprintf("w%d", i))
		got, err := c.Do(ctxT(t), []string{"set-option", "-g", "--", "@w", w}, []string{"show-options", "-gv", "@w"},
			[]string{"set-buffer", "-b", "x", "--", w}, []string{"save-buffer", "-b", "x", file})
		if err != nil {
			t.Errorf("word %.40q: %v", w, err)
			continue
		}
		// A value with LF is printed over several lines.
		// tmux 3.4 and later escape "$", control characters and invalid UTF-8 when
		// show-options prints a value; the buffer below is the oracle for those words.
		if !reflect.DeepEqual(got[1], strings.Split(strings.TrimSuffix(w, "\n"), "\n")) && !strings.HasSuffix(w, "\n") && !escapedWhenShown(w) {
			t.Errorf("word %.40q came back in-band as %.40q", w, got[1])
		}
		// save-buffer's %end comes before the client process has written
		// the file: poll.
		var data []byte
		for start := time.Now(); time.Since(start) < 5*time.Second; time.Sleep(5 * time.Millisecond) {
			if data, err = os.ReadFile(file); err == nil && len(data) == len(w) {
				break
			}
		}
		if string(data) != w {
			t.Errorf("word %.40q came back as %.40q (%v)", w, data, err)
		}
	}
	// set-buffer ignores empty data: check the empty word through an option.
	got, err := c.Do(ctxT(t),
		[]string{"set-option", "-g", "@w", "nonempty"}, []string{"set-option", "-g", "@w", ""},
		[]string{"display-message", "-p", "[#{@w}]"}, []string{"display-message", "-p", ""})
	if err != nil || !reflect.DeepEqual(got[2:], [][]string{{"[]"}, {""}}) {
		t.Errorf("empty word: %q, %v", got, err)
	}
}

func TestRealReplies(t *testing.T) {
	tm := startTmux(t)
	c := tm.attach(t, Options{})

	got, err := c.Do(ctxT(t), []string{"display-message", "-p", "a"}, []string{"kill-window", "-t", "@999"},
		[]string{"display-message", "-p", "b"})
	var ce *CommandError
	if !errors.As(err, &ce) || ce.Index != 1 || ce.Command[0] != "kill-window" || ce.ParseError ||
		!strings.Contains(ce.Message, "@999") || !reflect.DeepEqual(got, [][]string{{"a"}}) {
		t.Fatalf("run-time error: %q, %#v", got, err)
	}

	got, err = c.Do(ctxT(t), []string{"display-message", "-p", "a"}, []string{"nosuchcommand"})
	if !errors.As(err, &ce) || !ce.ParseError || !strings.Contains(ce.Message, "nosuchcommand") || got != nil {
		t.Fatalf("parse error: %q, %#v", got, err)
	}

	// Body lines that look like guards and notifications (show-buffer
	// prints them as they are; display-message would run strftime).
	tricky := []string{"%end 1 1 1", "%begin 1 1 1", "%error 1 1 1", "%exit", "%output %0 x", "%window-add @1"}
	var cmds [][]string
	for _, s := range tricky {
		cmds = append(cmds, []string{"set-buffer", "-b", "t", s}, []string{"show-buffer", "-b", "t"})
	}
	got, err = c.Do(ctxT(t), cmds...)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range tricky {
		if !reflect.DeepEqual(got[2*i+1], []string{s}) {
			t.Errorf("body %d = %q, want %q", i, got[2*i+1], s)
		}
	}

	// Multi-line bodies.
	got, err = c.Do(ctxT(t), []string{"list-windows", "-F", "#{window_id}"}, []string{"new-window", "-d"},
		[]string{"list-windows", "-F", "#{window_id}"})
	if err != nil || len(got[0]) != 1 || len(got[1]) != 0 || len(got[2]) != 2 {
		t.Fatalf("list-windows: %q, %v", got, err)
	}

	if _, err := c.Do(ctxT(t), []string{"if-shell", "-F", "1", "display x"}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("if-shell = %v", err)
	}
}

func TestRealTimeoutKeepsAlignment(t *testing.T) {
	tm := startTmux(t)
	c := tm.attach(t, Options{})
	// run-shell ends its block at once but holds the client's queue.
	if _, err := c.Do(ctxT(t), []string{"run-shell", "sleep 0.4"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := c.Do(ctx, []string{"display-message", "-p", "late"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Do = %v, want deadline", err)
	}
	if d := time.Since(start); d > 3*time.Second { // not held until the server answers
		t.Fatalf("timed-out Do returned after %v", d)
	}
	got, err := c.Do(ctxT(t), []string{"display-message", "-p", "next"})
	if err != nil || !reflect.DeepEqual(got, [][]string{{"next"}}) {
		t.Fatalf("Do after timeout = %q, %v", got, err)
	}
}

func TestRealConcurrentDo(t *testing.T) {
	tm := startTmux(t)
	c := tm.attach(t, Options{})
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for g := range 32 {
		wg.Go(func() {
			for i := range 40 {
				want := fmt.Sprintf("g%d i%d", g, i)
				got, err := c.Do(ctxT(t), []string{"display-message", "-p", want}, []string{"display-message", "-p", "#{session_name}"})
				if err != nil || !reflect.DeepEqual(got, [][]string{{want}, {"s"}}) {
					errs <- fmt.Errorf("Do = %q, %v", got, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// paneLog collects the decoded output of pane %0.
type paneLog struct {
	mu    sync.Mutex
	data  []byte
	ext   bool
	notes []string
	times []time.Time
}

func (l *paneLog) output(o Output) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if o.Pane == "%0" {
		l.data = append(l.data, o.Data...)
		l.ext = l.ext || o.Extended
	}
}

func (l *paneLog) notify(n Notification) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.notes = append(l.notes, n.Raw)
	l.times = append(l.times, time.Now())
}

func (l *paneLog) waitFor(t *testing.T, want []byte) {
	t.Helper()
	for start := time.Now(); time.Since(start) < 5*time.Second; time.Sleep(10 * time.Millisecond) {
		l.mu.Lock()
		ok := bytes.Contains(l.data, want)
		l.mu.Unlock()
		if ok {
			return
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	t.Fatalf("pane output never had %q; got %q", want, l.data)
}

func TestRealOutput(t *testing.T) {
	for _, extended := range []bool{false, true} {
		t.Run(fmt.Sprintf("extended=%v", extended), func(t *testing.T) {
			tm := startTmux(t)
			var log paneLog
			c := tm.attach(t, Options{OnOutput: log.output, OnNotification: log.notify, RerouteFlowControl: true})
			if extended {
				if _, err := c.Do(ctxT(t), []string{"refresh-client", "-f", "pause-after=10"}); err != nil {
					t.Fatal(err)
				}
			}
			// The shell prints a backslash, control bytes, UTF-8 and a line
			// that looks like a guard.
			script := `printf 'A\\B\001\303\251 %%end 1 1 1 : z\n'`
			if _, err := c.Do(ctxT(t), []string{"send-keys", "-t", "%0", "-l", "--", script},
				[]string{"send-keys", "-t", "%0", "Enter"}); err != nil {
				t.Fatal(err)
			}
			log.waitFor(t, []byte("A\\B\x01é %end 1 1 1 : z\r\n"))
			log.mu.Lock()
			ext := log.ext
			log.mu.Unlock()
			if ext != extended {
				t.Fatalf("extended output = %v, want %v", ext, extended)
			}
			if !extended {
				return
			}
			// %pause caused by our own command arrives inside its block.
			got, err := c.Do(ctxT(t), []string{"refresh-client", "-A", "%0:pause"})
			if err != nil || len(got[0]) != 0 {
				t.Fatalf("pause: %q, %v", got, err)
			}
			log.mu.Lock()
			notes := strings.Join(log.notes, "\n")
			log.mu.Unlock()
			if !strings.Contains(notes, "%pause %0") {
				t.Fatalf("no %%pause notification in %q", notes)
			}
		})
	}
}

func TestRealNotificationsAndExit(t *testing.T) {
	tm := startTmux(t)
	var log paneLog
	c := tm.attach(t, Options{OnNotification: log.notify})
	if _, err := c.Do(ctxT(t), []string{"new-window", "-d", "-n", "w two"}, []string{"rename-session", "new name"}); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		log.mu.Lock()
		notes := strings.Join(log.notes, "\n")
		log.mu.Unlock()
		if strings.Contains(notes, "%window-add @") {
			break
		}
		if time.Since(start) > 5*time.Second {
			out, _ := tm.command("list-clients").CombinedOutput()
			log.mu.Lock()
			for i := range log.times {
				t.Logf("%v %s", log.times[i].Sub(start), log.notes[i])
			}
			log.mu.Unlock()
			t.Fatalf("no %%window-add in %q (Err %v) clients: %s", notes, c.Err(), out)
		}
	}
	// kill-server ends the connection with %exit.
	c.Do(ctxT(t), []string{"kill-server"})
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("connection did not end after kill-server")
	}
	if _, err := c.Do(ctxT(t), []string{"display-message", "-p", "x"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Do after exit = %v", err)
	}
	log.mu.Lock()
	notes := strings.Join(log.notes, "\n")
	log.mu.Unlock()
	for _, want := range []string{"%window-add @", "%session-renamed $0 new name", "%exit"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notifications lack %q:\n%s", want, notes)
		}
	}
	t.Logf("Err() = %v", c.Err())
}

func TestRealAttachFailure(t *testing.T) {
	tm := startTmux(t)
	c := tm.attachTo(t, "nosuch", Options{})
	// Sent at once; tmux would run it before the failing attach if it were
	// not held.
	_, err := c.Do(ctxT(t), []string{"display-message", "-p", "x"})
	if !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "attach failed: can't find session: nosuch") {
		t.Fatalf("Do = %v", err)
	}
	select {
	case <-c.Ready():
		t.Fatal("Ready closed after a failed attach")
	default:
	}
}

func BenchmarkDoRealTmux(b *testing.B) {
	tm := startTmux(b)
	c := tm.attach(b, Options{})
	ctx := context.Background()
	cmd := []string{"display-message", "-p", "x"}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Do(ctx, cmd); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := c.Do(ctx, cmd); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// escapedWhenShown reports whether tmux 3.4 or later prints w escaped in show-options' output.
func escapedWhenShown(w string) bool {
	if !utf8.ValidString(w) || strings.Contains(w, "$") {
		return true
	}
	return strings.IndexFunc(w, func(r rune) bool { return r < 0x20 && r != '\t' && r != '\n' || r == 0x7f }) >= 0
}
