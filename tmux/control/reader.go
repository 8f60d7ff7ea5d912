package control

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// errLineTooLong fails a connection whose peer sent a line over the limit.
var errLineTooLong = errors.New("line too long")

// readLoop reads lines until the input ends, then fails the connection with
// the reason.
func (c *Conn) readLoop() {
	defer close(c.done)
	p := parser{opts: &c.opts, complete: c.complete, attached: c.markAttached}
	br := bufio.NewReaderSize(c.r, 64<<10)
	var long []byte
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long %output line: gather it, up to the cap.
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				if len(long)+len(line) > c.opts.MaxLine {
					c.fail(fmt.Errorf("%w (over %d bytes)", errLineTooLong, c.opts.MaxLine))
					return
				}
				long = append(long, line...)
			}
			line = long
		}
		if err != nil {
			// A final line without its newline is incomplete: dropped.
			if errors.Is(err, io.EOF) {
				c.fail(io.EOF)
			} else {
				c.fail(fmt.Errorf("read: %w", err))
			}
			return
		}
		line = line[:len(line)-1]
		if len(line) > c.opts.MaxLine {
			c.fail(fmt.Errorf("%w (over %d bytes)", errLineTooLong, c.opts.MaxLine))
			return
		}
		if err := p.line(line); err != nil {
			c.fail(err)
			return
		}
		if cap(long) > 4<<20 {
			long = nil
		}
	}
}

// parser is the protocol state machine: it sorts lines into block bodies,
// pane output and notifications. It has no goroutines of its own.
type parser struct {
	opts *Options
	// complete receives each finished block that carries flags 1 (a reply
	// to one of our commands): its body and whether it ended with %end.
	complete func(body []string, ok bool)
	// attached is called on the first %session-changed: the client is
	// attached to a session.
	attached func()

	isAttached bool
	attachErr  string // the %error body of a flags-0 block before attaching

	inBlock bool
	mine    bool   // the open block has flags 1: its body is kept
	guard   []byte // "<time> <number> <flags>" of the open %begin
	body    []byte // the open block's body lines, concatenated
	ends    []int  // end offset of each body line in body

	obuf  []byte            // decode buffer for output, reused
	panes map[string]string // pane id strings, interned
}

// line handles one line without its newline. It returns an error when the
// line is %exit outside a block: the connection is over.
func (p *parser) line(line []byte) error {
	if p.inBlock {
		p.blockLine(line)
		return nil
	}
	if len(line) < 2 || line[0] != '%' {
		if len(line) == 1 {
			p.notify(line) // a bare "%": pass it on, never drop
		}
		return nil // stray text outside a block: tmux sends none
	}
	switch line[1] {
	case 'o', 'e': // %output, %extended-output, %end, %error, %exit
		if h, data, ok := splitOutput(line); ok {
			p.output(h, line, data)
			return nil
		}
		if _, ok := guardArgs(line, "%end "); ok {
			return nil // unpaired: ignored
		}
		if _, ok := guardArgs(line, "%error "); ok {
			return nil
		}
		if bytes.Equal(line, []byte("%exit")) || bytes.HasPrefix(line, []byte("%exit ")) {
			n := p.notify(line)
			return p.exitError(n.Tail(0))
		}
	case 'b':
		if args, ok := guardArgs(line, "%begin "); ok {
			p.inBlock = true
			// Flags 1 marks a command this client sent; attach, hooks
			// and config run with flags 0.
			p.mine = guardFlags(args)&1 != 0
			p.guard = append(p.guard[:0], args...)
			p.body, p.ends = p.body[:0], p.ends[:0]
			return nil
		}
	case 's':
		if !p.isAttached && bytes.HasPrefix(line, []byte("%session-changed ")) {
			p.isAttached = true
			p.notify(line)
			if p.attached != nil {
				p.attached()
			}
			return nil
		}
	}
	p.notify(line)
	return nil
}

// exitError describes the end of the stream by %exit.
func (p *parser) exitError(reason string) error {
	switch {
	case !p.isAttached && p.attachErr != "":
		return fmt.Errorf("attach failed: %s", p.attachErr)
	case reason == "":
		return errors.New("tmux sent %exit")
	default:
		return fmt.Errorf("tmux sent %%exit: %s", reason)
	}
}

// blockLine handles a line inside an open block: the matching %end or
// %error closes it, anything else is body.
func (p *parser) blockLine(line []byte) {
	if p.opts.RerouteFlowControl && isFlowControl(line) {
		p.notify(line)
		return
	}
	if len(line) > 4 && line[0] == '%' && line[1] == 'e' {
		if args, ok := guardArgs(line, "%end "); ok && bytes.Equal(args, p.guard) {
			p.closeBlock(true)
			return
		}
		if args, ok := guardArgs(line, "%error "); ok && bytes.Equal(args, p.guard) {
			p.closeBlock(false)
			return
		}
	}
	// Bodies of flags-0 blocks are kept only while not attached: a failed
	// attach explains itself there.
	if p.mine || (!p.isAttached && len(p.body) < 64<<10) {
		p.body = append(p.body, line...)
		p.ends = append(p.ends, len(p.body))
	}
}

// closeBlock ends the open block and hands a reply to complete.
func (p *parser) closeBlock(ok bool) {
	p.inBlock = false
	if !p.mine {
		if !ok && !p.isAttached {
			p.attachErr = p.bodyText()
		}
		return
	}
	var lines []string
	if len(p.ends) > 0 {
		// One string for the whole body, sliced per line: two allocations
		// per block whatever its size.
		s := string(p.body)
		lines = make([]string, len(p.ends))
		start := 0
		for i, end := range p.ends {
			lines[i] = s[start:end]
			start = end
		}
	}
	if cap(p.body) > 4<<20 {
		p.body = nil
	}
	if cap(p.ends) > 1<<16 {
		p.ends = nil
	}
	if p.complete != nil {
		p.complete(lines, ok)
	}
}

// bodyText returns the open block's body lines joined by newlines.
func (p *parser) bodyText() string {
	b := make([]byte, 0, len(p.body)+len(p.ends))
	start := 0
	for i, end := range p.ends {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, p.body[start:end]...)
		start = end
	}
	return string(b)
}

// output decodes and delivers one output line.
func (p *parser) output(h outputHeader, line, data []byte) {
	if p.opts.OnOutput == nil {
		return
	}
	p.obuf = DecodeOutput(p.obuf[:0], data)
	o := h.Output
	o.Pane = p.pane(h.paneBytes(line))
	o.Data = p.obuf
	p.opts.OnOutput(o)
	if cap(p.obuf) > 4<<20 {
		p.obuf = nil
	}
}

// pane returns b as a string, allocating once per distinct pane id.
func (p *parser) pane(b []byte) string {
	if s, ok := p.panes[string(b)]; ok {
		return s
	}
	if p.panes == nil || len(p.panes) > 4096 {
		p.panes = make(map[string]string)
	}
	s := string(b)
	p.panes[s] = s
	return s
}

// notify delivers line as a Notification and returns it.
func (p *parser) notify(line []byte) Notification {
	n := ParseNotification(string(line))
	if p.opts.OnNotification != nil {
		p.opts.OnNotification(n)
	}
	return n
}

// guardArgs returns the "<time> <number> <flags>" part of a guard line with
// the given prefix ("%begin ", "%end ", "%error ") when it is well formed.
func guardArgs(line []byte, prefix string) ([]byte, bool) {
	if len(line) <= len(prefix) || string(line[:len(prefix)]) != prefix {
		return nil, false
	}
	args := line[len(prefix):]
	fields := 0
	digits := 0
	for _, ch := range args {
		switch {
		case ch >= '0' && ch <= '9':
			digits++
		case ch == ' ' && digits > 0:
			fields++
			digits = 0
		default:
			return nil, false
		}
	}
	if digits == 0 || fields != 2 {
		return nil, false
	}
	return args, true
}

// guardFlags returns the flags field of well-formed guard arguments.
func guardFlags(args []byte) int64 {
	i := bytes.LastIndexByte(args, ' ')
	n, ok := parseUint(args[i+1:])
	if !ok {
		return 0
	}
	return n
}
