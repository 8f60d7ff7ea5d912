package control

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestDo(t *testing.T) {
	tests := []struct {
		name    string
		cmds    [][]string
		want    [][]string
		wantErr *CommandError
	}{
		{"one", [][]string{{"echo", "hello", "world"}}, [][]string{{"hello world"}}, nil},
		{"group", [][]string{{"echo", "a"}, {"lines", "x", "y"}, {"silent"}},
			[][]string{{"a"}, {"x", "y"}, nil}, nil},
		{"quoting survives", [][]string{{"echo", "it's", "; #{x} $H ~ {"}},
			[][]string{{"it's ; #{x} $H ~ {"}}, nil},
		{"error in the middle", [][]string{{"echo", "a"}, {"fail", "no", "such", "window"}, {"echo", "c"}},
			[][]string{{"a"}}, &CommandError{Index: 1, Command: []string{"fail", "no", "such", "window"}, Message: "no such window"}},
		{"error first", [][]string{{"fail", "x"}, {"echo", "c"}},
			nil, &CommandError{Index: 0, Command: []string{"fail", "x"}, Message: "x"}},
		{"parse error", [][]string{{"echo", "a"}, {"nosuch"}},
			nil, &CommandError{Index: 0, Command: []string{"echo", "a"}, Message: "parse error: unknown command: nosuch", ParseError: true}},
	}
	f := newFake(t, Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.conn.Do(ctxT(t), tt.cmds...)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Do: %v", err)
				}
			} else {
				var ce *CommandError
				if !errors.As(err, &ce) || !reflect.DeepEqual(ce, tt.wantErr) {
					t.Fatalf("Do error = %#v, want %#v", err, tt.wantErr)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Do = %q, want %q", got, tt.want)
			}
		})
	}
	// The connection is still aligned after all that.
	got, err := f.conn.Do(ctxT(t), []string{"echo", "last"})
	if err != nil || !reflect.DeepEqual(got, [][]string{{"last"}}) {
		t.Fatalf("Do after errors = %q, %v", got, err)
	}
}

func TestDoRefusesBeforeWriting(t *testing.T) {
	f := newFake(t, Options{})
	tests := []struct {
		cmds [][]string
		want error
	}{
		{nil, ErrUnsendable},
		{[][]string{{"echo", "a\x00b"}}, ErrUnsendable},
		{[][]string{{"echo", "ok"}, {"if-shell", "true", "x"}}, ErrUnsupported},
	}
	for _, tt := range tests {
		if _, err := f.conn.Do(ctxT(t), tt.cmds...); !errors.Is(err, tt.want) {
			t.Errorf("Do(%q) = %v, want %v", tt.cmds, err, tt.want)
		}
		if err := f.conn.Send(tt.cmds...); !errors.Is(err, tt.want) {
			t.Errorf("Send(%q) = %v, want %v", tt.cmds, err, tt.want)
		}
	}
	if _, err := f.conn.Do(ctxT(t), []string{"echo", "x"}); err != nil {
		t.Fatal(err)
	}
	if n := len(f.lines); n != 1 {
		t.Fatalf("%d lines written, want 1", n)
	}
}

func TestDoNoise(t *testing.T) {
	// Notifications, output and flags-0 blocks between and before replies
	// are delivered, not mistaken for replies.
	var mu sync.Mutex
	var notes, outs []string
	f := newFake(t, Options{
		OnNotification: func(n Notification) { mu.Lock(); notes = append(notes, n.Raw); mu.Unlock() },
		OnOutput:       func(o Output) { mu.Lock(); outs = append(outs, o.Pane+" "+string(o.Data)); mu.Unlock() },
	})
	f.noise = func(n int) string {
		return fmt.Sprintf("%%begin 100 %d 0\n%%end 100 %d 1\nhook\n%%end 100 %d 0\n%%window-add @%d\n%%output %%1 n\\134%d\n", n+1000, n, n+1000, n, n)
	}
	got, err := f.conn.Do(ctxT(t), []string{"echo", "a"}, []string{"echo", "b"})
	if err != nil || !reflect.DeepEqual(got, [][]string{{"a"}, {"b"}}) {
		t.Fatalf("Do = %q, %v", got, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notes) != 3 || notes[0] != "%session-changed $0 s" || !strings.HasPrefix(notes[1], "%window-add @") ||
		len(outs) != 2 || !strings.HasPrefix(outs[1], `%1 n\`) {
		t.Fatalf("notes %q outs %q", notes, outs)
	}
}

func TestDoTimeoutKeepsAlignment(t *testing.T) {
	f := newFake(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := f.conn.Do(ctx, []string{"hold"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Do = %v, want deadline", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("Do took %v after its deadline", d)
	}
	// A second request is queued behind the held one.
	type result struct {
		out [][]string
		err error
	}
	res := make(chan result, 1)
	go func() {
		out, err := f.conn.Do(ctxT(t), []string{"echo", "second"})
		res <- result{out, err}
	}()
	waitQueued(t, f.conn, 2)
	f.release("late reply for the abandoned request\n")
	r := <-res
	if r.err != nil || !reflect.DeepEqual(r.out, [][]string{{"second"}}) {
		t.Fatalf("second Do = %q, %v", r.out, r.err)
	}
	// An already expired context fails before writing.
	cancel()
	if _, err := f.conn.Do(ctx, []string{"echo", "x"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Do with done ctx = %v", err)
	}
}

// waitQueued waits until c has n requests waiting for replies.
func waitQueued(t *testing.T, c *Conn, n int) {
	t.Helper()
	for start := time.Now(); time.Since(start) < 5*time.Second; time.Sleep(time.Millisecond) {
		c.mu.Lock()
		q := len(c.queue) - c.head
		c.mu.Unlock()
		if q == n {
			return
		}
	}
	t.Fatalf("queue never reached %d requests", n)
}

func TestSendReplyDiscarded(t *testing.T) {
	f := newFake(t, Options{})
	if err := f.conn.Send([]string{"echo", "ignored"}, []string{"fail", "also ignored"}); err != nil {
		t.Fatal(err)
	}
	got, err := f.conn.Do(ctxT(t), []string{"echo", "mine"})
	if err != nil || !reflect.DeepEqual(got, [][]string{{"mine"}}) {
		t.Fatalf("Do after Send = %q, %v", got, err)
	}
}

func TestExitFailsPending(t *testing.T) {
	f := newFake(t, Options{})
	errs := make(chan error, 3)
	for range 2 {
		go func() {
			_, err := f.conn.Do(ctxT(t), []string{"hold"})
			errs <- err
		}()
	}
	<-f.held
	waitQueued(t, f.conn, 2)
	f.write("%exit server exited\n")
	for range 2 {
		if err := <-errs; !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "server exited") {
			t.Fatalf("pending Do = %v", err)
		}
	}
	select {
	case <-f.conn.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed after exit")
	}
	if err := f.conn.Err(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Err = %v", err)
	}
	if _, err := f.conn.Do(ctxT(t), []string{"echo"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Do after exit = %v", err)
	}
	if err := f.conn.Send([]string{"echo"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Send after exit = %v", err)
	}
}

func TestEOFFailsPendingMidReply(t *testing.T) {
	outR, outW := io.Pipe()
	inR, inW := io.Pipe()
	go io.Copy(io.Discard, inR)
	c := NewConn(outR, inW, Options{})
	defer c.Close()
	errs := make(chan error, 1)
	go func() {
		_, err := c.Do(ctxT(t), []string{"a"}, []string{"b"})
		errs <- err
	}()
	waitQueued(t, c, 1)
	// First block arrives, then the stream ends in the middle of the second.
	io.WriteString(outW, "%begin 1 1 1\nx\n%end 1 1 1\n%begin 1 2 1\npartial")
	outW.Close()
	if err := <-errs; !errors.Is(err, ErrClosed) || !errors.Is(err, io.EOF) {
		t.Fatalf("Do = %v, want ErrClosed wrapping EOF", err)
	}
	<-c.Done()
}

func TestCloseFailsPending(t *testing.T) {
	f := newFake(t, Options{})
	errs := make(chan error, 1)
	go func() {
		_, err := f.conn.Do(ctxT(t), []string{"hold"})
		errs <- err
	}()
	<-f.held
	if err := f.conn.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errs; !errors.Is(err, ErrClosed) {
		t.Fatalf("pending Do after Close = %v", err)
	}
	if err := f.conn.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
}

func TestWriteErrorFailsConn(t *testing.T) {
	outR, _ := io.Pipe()
	inR, inW := io.Pipe()
	inR.CloseWithError(errors.New("broken pipe"))
	c := NewConn(outR, inW, Options{NoAttachWait: true})
	defer c.Close()
	_, err := c.Do(ctxT(t), []string{"echo"})
	if !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "broken pipe") {
		t.Fatalf("Do = %v", err)
	}
}

func TestLongLines(t *testing.T) {
	outR, outW := io.Pipe()
	var got []int
	c := NewConn(outR, io.Discard, Options{MaxLine: 1 << 20, OnOutput: func(o Output) { got = append(got, len(o.Data)) }})
	defer c.Close()
	big := strings.Repeat("x", 300<<10)
	go func() {
		fmt.Fprintf(outW, "%%output %%1 %s\n", big)
		fmt.Fprintf(outW, "%%output %%1 %s\n", big+big+big+big)
		outW.Close()
	}()
	<-c.Done()
	if !reflect.DeepEqual(got, []int{300 << 10}) {
		t.Fatalf("outputs %v", got)
	}
	if err := c.Err(); !errors.Is(err, errLineTooLong) {
		t.Fatalf("Err = %v", err)
	}
}

func TestConcurrentDo(t *testing.T) {
	f := newFake(t, Options{})
	f.noise = func(n int) string {
		if n%3 == 0 {
			return fmt.Sprintf("%%begin 9 %d 0\n%%end 9 %d 0\n%%output %%1 x\n", n+1<<20, n+1<<20)
		}
		return ""
	}
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for g := range 32 {
		wg.Go(func() {
			for i := range 50 {
				a, b := fmt.Sprintf("g%d-%d", g, i), fmt.Sprintf("it's %d", i)
				var got [][]string
				var err error
				if i%10 == 9 {
					// Some requests give up at once; replies must still line up.
					ctx, cancel := context.WithCancel(context.Background())
					cancel()
					f.conn.Do(ctx, []string{"echo", a})
					continue
				}
				if i%7 == 3 {
					_, err = f.conn.Do(ctxT(t), []string{"echo", a}, []string{"fail", b}, []string{"echo", "never"})
					var ce *CommandError
					if !errors.As(err, &ce) || ce.Index != 1 || ce.Message != b {
						errs <- fmt.Errorf("failing group: %v", err)
						return
					}
					continue
				}
				got, err = f.conn.Do(ctxT(t), []string{"echo", a}, []string{"lines", b, a})
				if err != nil || !reflect.DeepEqual(got, [][]string{{a}, {b, a}}) {
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

func TestRequestsWaitForAttach(t *testing.T) {
	outR, outW := io.Pipe()
	inR, inW := io.Pipe()
	c := NewConn(outR, inW, Options{})
	defer c.Close()
	defer outW.Close()
	lines := make(chan string, 4)
	go func() {
		br := bufio.NewReader(inR)
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				return
			}
			lines <- l
		}
	}()
	res := make(chan error, 1)
	go func() {
		_, err := c.Do(ctxT(t), []string{"display-message", "-p", "x"})
		res <- err
	}()
	waitQueued(t, c, 1)
	select {
	case l := <-lines:
		t.Fatalf("wrote %q before attaching", l)
	case <-time.After(50 * time.Millisecond):
	}
	io.WriteString(outW, "%begin 1 1 0\n%end 1 1 0\n")
	select {
	case l := <-lines:
		t.Fatalf("wrote %q before %%session-changed", l)
	case <-time.After(20 * time.Millisecond):
	}
	io.WriteString(outW, "%session-changed $0 s\n")
	select {
	case <-c.Ready():
	case <-time.After(5 * time.Second):
		t.Fatal("Ready not closed")
	}
	if l := <-lines; l != "'display-message' '-p' 'x'\n" {
		t.Fatalf("wrote %q", l)
	}
	io.WriteString(outW, "%begin 1 2 1\nx\n%end 1 2 1\n")
	if err := <-res; err != nil {
		t.Fatal(err)
	}
}

func TestAttachFailure(t *testing.T) {
	outR, outW := io.Pipe()
	c := NewConn(outR, io.Discard, Options{})
	defer c.Close()
	res := make(chan error, 1)
	go func() {
		_, err := c.Do(ctxT(t), []string{"display-message", "-p", "x"})
		res <- err
	}()
	waitQueued(t, c, 1)
	io.WriteString(outW, "%begin 1 264 0\ncan't find session: s\n%error 1 264 0\n%exit\n")
	err := <-res
	if !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "attach failed: can't find session: s") {
		t.Fatalf("Do = %v", err)
	}
	outW.Close()
}
