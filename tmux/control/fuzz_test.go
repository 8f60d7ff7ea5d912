package control

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"
)

// FuzzParse feeds arbitrary bytes as tmux's side of a control connection,
// first straight into the parser, then into a Conn over a pipe with requests
// pending. Nothing may panic, and every request and the reader must finish
// once the input ends.
func FuzzParse(f *testing.F) {
	f.Add([]byte("%begin 1 1 0\n%end 1 1 0\n%session-changed $0 a\n%begin 1 2 1\nx\n%end 1 2 1\n"), false)
	f.Add([]byte("%begin 1 2 1\n%pause %1\n%error 1 2 1\n%output %1 a\\015\n%exit bye\n"), true)
	f.Add([]byte("%begin 1 2 1\n%end 1 2 1\n%begin 1 3 1\n%end 1 3 1\n%begin 1 4 1\n%error 1 4 1\n"), false)
	f.Add([]byte("%extended-output %1 5 x : y\\\n%begin 0 0 1\n%end 0 0 1 \n%end 0 0 1"), false)
	f.Add([]byte("%begin 1 1 0\ncan't find session: s\n%error 1 1 0\n%exit\n"), false)
	f.Add([]byte("\n\n%\n%%\n%begin 99999999999999999999999 1 1\n%end 99999999999999999999999 1 1\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, reroute bool) {
		opts := Options{
			RerouteFlowControl: reroute,
			OnOutput: func(o Output) {
				if o.Pane == "" || o.Pane[0] != '%' {
					t.Errorf("bad pane %q", o.Pane)
				}
			},
			OnNotification: func(n Notification) {},
		}

		p := parser{opts: &opts, complete: func([]string, bool) {}}
		for _, line := range bytes.Split(data, []byte("\n")) {
			if p.line(line) != nil {
				break
			}
		}

		outR, outW := io.Pipe()
		opts.MaxLine = 1 << 12
		c := NewConn(outR, io.Discard, opts)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		errs := make(chan error, 3)
		for i := range 3 {
			cmds := make([][]string, i+1)
			for j := range cmds {
				cmds[j] = []string{"display-message", "-p", "x"}
			}
			go func() {
				_, err := c.Do(ctx, cmds...)
				errs <- err
			}()
		}
		for {
			c.mu.Lock()
			n := len(c.queue) - c.head
			c.mu.Unlock()
			if n == 3 {
				break
			}
			time.Sleep(50 * time.Microsecond)
		}
		outW.Write(data)
		outW.Close()
		for range 3 {
			err := <-errs
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatal("Do hung after the input ended")
			}
			var ce *CommandError
			if err != nil && !errors.Is(err, ErrClosed) && !errors.As(err, &ce) {
				t.Fatalf("Do = %v", err)
			}
		}
		select {
		case <-c.Done():
		case <-ctx.Done():
			t.Fatal("reader did not end")
		}
		if !errors.Is(c.Err(), ErrClosed) {
			t.Fatalf("Err = %v", c.Err())
		}
		c.Close()
	})
}
