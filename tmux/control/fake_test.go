package control

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
)

// splitLine is a model of how tmux's parser reads the lines Line builds:
// words separated by spaces, commands by an unquoted ";", single quotes
// literal, \' outside quotes a quote. It reports false for anything Line
// never produces.
func splitLine(line string) ([][]string, bool) {
	var cmds [][]string
	var argv []string
	var word strings.Builder
	inWord, quoted, dquoted := false, false, false
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case dquoted && ch == '"':
			dquoted = false
		case dquoted && ch == '\\' && i+1 < len(line):
			i++
			switch c := line[i]; {
			case c == 'n':
				word.WriteByte('\n')
			case c >= '0' && c <= '7' && i+2 < len(line):
				word.WriteByte((c-'0')<<6 | (line[i+1]-'0')<<3 | (line[i+2] - '0'))
				i += 2
			default:
				word.WriteByte(c)
			}
		case dquoted:
			word.WriteByte(ch)
		case quoted:
			if ch == '\'' {
				quoted = false
			} else {
				word.WriteByte(ch)
			}
		case ch == '"':
			dquoted, inWord = true, true
		case ch == '\'':
			quoted, inWord = true, true
		case ch == '\\' && i+1 < len(line) && line[i+1] == '\'':
			word.WriteByte('\'')
			inWord = true
			i++
		case ch == ' ':
			if inWord {
				argv = append(argv, word.String())
				word.Reset()
				inWord = false
			}
		case ch == ';' && !inWord:
			cmds = append(cmds, argv)
			argv = nil
		default:
			return nil, false
		}
	}
	if quoted || dquoted {
		return nil, false
	}
	if inWord {
		argv = append(argv, word.String())
	}
	return append(cmds, argv), true
}

// fakeTmux plays tmux's side of a control connection over pipes. Its
// commands: "echo words…" prints the words as one line, "lines a b c" prints
// one line per word, "fail msg…" fails at run time, "silent" prints nothing,
// "hold" prints nothing until release is called (the reply is then
// written), "quit" sends %exit; anything else is a parse error for the whole
// line. Before each reply it can write extra lines (noise) such as
// notifications or flags-0 blocks.
type fakeTmux struct {
	t      testing.TB
	conn   *Conn
	toConn *io.PipeWriter // tmux's stdout
	mu     sync.Mutex
	num    int
	noise  func(num int) string
	lines  chan string // every line the client wrote
	held   chan string // a "hold" line arrived; serving waits for release
	rel    chan string // the body release answers the held line with
	quit   chan struct{}
}

func newFake(t testing.TB, opts Options) *fakeTmux {
	t.Helper()
	outR, outW := io.Pipe() // tmux -> conn
	inR, inW := io.Pipe()   // conn -> tmux
	f := &fakeTmux{t: t, toConn: outW, lines: make(chan string, 1024), held: make(chan string, 16),
		rel: make(chan string), quit: make(chan struct{})}
	f.conn = NewConn(outR, inW, opts)
	go f.serve(inR)
	// What tmux -C attach prints first: requests are held until then.
	go f.write("%begin 100 1 0\n%end 100 1 0\n%session-changed $0 s\n")
	t.Cleanup(func() {
		close(f.quit)
		f.conn.Close()
		outW.Close()
		<-f.conn.Done()
	})
	return f
}

// write sends raw stream text to the client.
func (f *fakeTmux) write(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.toConn.Write([]byte(s))
}

func (f *fakeTmux) serve(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		select {
		case f.lines <- line:
		default:
		}
		reply := f.reply(line)
		if reply == "HOLD" {
			// tmux runs one client's commands in order: nothing else is
			// answered until this one is.
			f.held <- line
			select {
			case body := <-f.rel:
				n := f.next()
				reply = fmt.Sprintf("%%begin 100 %d 1\n%s%%end 100 %d 1\n", n, body, n)
			case <-f.quit:
				return
			}
		}
		f.write(reply)
	}
}

// release answers the held line with body (lines ending in newlines).
func (f *fakeTmux) release(body string) { f.rel <- body }

func (f *fakeTmux) next() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.num++
	return f.num + 1
}

func (f *fakeTmux) reply(line string) string {
	cmds, ok := splitLine(line)
	var b strings.Builder
	next := f.next
	if !ok {
		n := next()
		fmt.Fprintf(&b, "%%begin 100 %d 1\nparse error: bad quoting\n%%error 100 %d 1\n", n, n)
		return b.String()
	}
	for _, argv := range cmds {
		switch argv[0] {
		case "echo", "lines", "fail", "silent", "hold", "quit":
		default:
			n := next()
			fmt.Fprintf(&b, "%%begin 100 %d 1\nparse error: unknown command: %s\n%%error 100 %d 1\n", n, argv[0], n)
			return b.String()
		}
	}
	for _, argv := range cmds {
		n := next()
		if f.noise != nil {
			b.WriteString(f.noise(n))
		}
		switch argv[0] {
		case "hold":
			return "HOLD"
		case "quit":
			b.WriteString("%exit bye now\n")
			return b.String()
		}
		fmt.Fprintf(&b, "%%begin 100 %d 1\n", n)
		switch argv[0] {
		case "echo":
			b.WriteString(strings.Join(argv[1:], " ") + "\n")
		case "lines":
			for _, w := range argv[1:] {
				b.WriteString(w + "\n")
			}
		case "fail":
			b.WriteString(strings.Join(argv[1:], " ") + "\n")
			fmt.Fprintf(&b, "%%error 100 %d 1\n", n)
			return b.String()
		}
		fmt.Fprintf(&b, "%%end 100 %d 1\n", n)
	}
	return b.String()
}
