package control

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

// parseEvents runs the parser over stream lines and describes what it did.
func parseEvents(stream string, reroute bool) []string {
	var ev []string
	opts := &Options{
		RerouteFlowControl: reroute,
		OnOutput: func(o Output) {
			ev = append(ev, fmt.Sprintf("output %s %q", o.Pane, o.Data))
		},
		OnNotification: func(n Notification) {
			ev = append(ev, "notify "+n.Raw)
		},
	}
	p := parser{opts: opts, complete: func(body []string, ok bool) {
		ev = append(ev, fmt.Sprintf("block ok=%v %q", ok, body))
	}, attached: func() { ev = append(ev, "attached") }}
	for _, line := range strings.Split(strings.TrimSuffix(stream, "\n"), "\n") {
		if err := p.line([]byte(line)); err != nil {
			ev = append(ev, "exit: "+err.Error())
			break
		}
	}
	return ev
}

func TestParser(t *testing.T) {
	tests := []struct {
		name    string
		stream  string
		reroute bool
		want    []string
	}{
		{
			name:   "attach block ignored, then notification",
			stream: "%begin 1796005258 264 0\n%end 1796005258 264 0\n%session-changed $0 a\n",
			want:   []string{"notify %session-changed $0 a", "attached"},
		},
		{
			name:   "only the first session-changed attaches",
			stream: "%session-changed $0 a\n%session-changed $1 b\n",
			want:   []string{"notify %session-changed $0 a", "attached", "notify %session-changed $1 b"},
		},
		{
			name:   "failed attach explains the exit",
			stream: "%begin 1 264 0\ncan't find session: s\n%error 1 264 0\n%exit\n",
			want:   []string{"notify %exit", "exit: attach failed: can't find session: s"},
		},
		{
			name:   "plain exit",
			stream: "%exit\n",
			want:   []string{"notify %exit", "exit: tmux sent %exit"},
		},
		{
			name:   "reply with body",
			stream: "%begin 1 5 1\nline one\n\nline three\n%end 1 5 1\n",
			want:   []string{`block ok=true ["line one" "" "line three"]`},
		},
		{
			name:   "empty reply",
			stream: "%begin 1 5 1\n%end 1 5 1\n",
			want:   []string{`block ok=true []`},
		},
		{
			name:   "error reply",
			stream: "%begin 1 5 1\ncan't find window: @9\n%error 1 5 1\n",
			want:   []string{`block ok=false ["can't find window: @9"]`},
		},
		{
			name: "guard look-alikes inside a block are body",
			stream: "%begin 1 5 1\n%end 1 4 1\n%end 2 5 1\n%end 1 5 0\n%error 1 6 1\n%begin 1 5 1\n" +
				"%output %1 x\n%exit\n%pause %1\n%end 1 5 1 \n%end 1 5 1\n",
			want: []string{`block ok=true ["%end 1 4 1" "%end 2 5 1" "%end 1 5 0" "%error 1 6 1" "%begin 1 5 1" "%output %1 x" "%exit" "%pause %1" "%end 1 5 1 "]`},
		},
		{
			name:    "flow control rerouted from a block",
			stream:  "%begin 1 5 1\n%pause %1\n%pause %1 \n%continue %22\n%end 1 5 1\n",
			reroute: true,
			want:    []string{"notify %pause %1", "notify %continue %22", `block ok=true ["%pause %1 "]`},
		},
		{
			name:   "flags 0 blocks and their bodies are skipped",
			stream: "%begin 1 5 0\nhooked\n%end 1 5 0\n%begin 1 6 1\nmine\n%end 1 6 1\n",
			want:   []string{`block ok=true ["mine"]`},
		},
		{
			name:   "unpaired end and error outside a block are ignored",
			stream: "%end 1 5 1\n%error 1 5 1\n%window-add @2\n",
			want:   []string{"notify %window-add @2"},
		},
		{
			name:   "malformed guards are notifications",
			stream: "%begin x\n%begin 1 2\n%end\n",
			want:   []string{"notify %begin x", "notify %begin 1 2", "notify %end"},
		},
		{
			name: "notifications and output interleaved between blocks",
			stream: "%begin 1 5 1\na\n%end 1 5 1\n%output %1 hi\\015\\012\n%window-renamed @1 new name\n" +
				"%extended-output %2 10 : x\n%begin 1 6 1\nb\n%end 1 6 1\n%unknown-thing 1 2\n",
			want: []string{`block ok=true ["a"]`, `output %1 "hi\r\n"`, "notify %window-renamed @1 new name",
				`output %2 "x"`, `block ok=true ["b"]`, "notify %unknown-thing 1 2"},
		},
		{
			name:   "malformed output is passed on as a notification",
			stream: "%output nopane\n",
			want:   []string{"notify %output nopane"},
		},
		{
			name:   "exit ends the stream",
			stream: "%exit server exited unexpectedly\n%window-add @1\n",
			want:   []string{"notify %exit server exited unexpectedly", "exit: tmux sent %exit: server exited unexpectedly"},
		},
		{
			name:   "stray text is dropped",
			stream: "hello\n\n%\n",
			want:   []string{"notify %"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseEvents(tt.stream, tt.reroute)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// BenchmarkReplyCapture2000 reads a reply of 2,000 lines (capture-pane -S -2000 of a pane of
// short lines, 44 KB) through a Conn over pipes: the reader's lines, the block's body and its
// hand-over to Do.
func BenchmarkReplyCapture2000(b *testing.B) {
	var block strings.Builder
	block.WriteString("%begin 1700000000 1 1\n")
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&block, "line %d of the history\n", i)
	}
	block.WriteString("%end 1700000000 1 1\n")
	reply := []byte(block.String())
	inR, inW := io.Pipe()   // tmux's stdin
	outR, outW := io.Pipe() // tmux's stdout
	go func() {
		sc := bufio.NewScanner(inR)
		for sc.Scan() {
			if _, err := outW.Write(reply); err != nil {
				return
			}
		}
	}()
	c := NewConn(outR, inW, Options{NoAttachWait: true})
	defer c.Close()
	defer outW.Close()
	b.SetBytes(int64(len(reply)))
	for b.Loop() {
		out, err := c.Do(context.Background(), []string{"capture-pane", "-p"})
		if err != nil || len(out[0]) != 2000 {
			b.Fatal(err, len(out))
		}
	}
}
