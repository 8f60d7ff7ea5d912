package control

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// ErrClosed is wrapped by every error that reports a finished connection:
// requests pending when it broke and every later call fail with it. Requests
// are never replayed (a mutation could apply twice).
var ErrClosed = errors.New("tmux control connection closed")

// errClosedByCaller is the cause recorded by Close.
var errClosedByCaller = errors.New("closed by caller")

// DefaultMaxLine is the longest line the reader accepts when
// Options.MaxLine is 0; a longer line fails the connection.
const DefaultMaxLine = 64 << 20

// Options configure a Conn. The callbacks run on the reader goroutine, one
// at a time and in stream order; they must return quickly and must not wait
// for a Do reply (the reply can only arrive once they return: use Send, or
// call Do from another goroutine).
type Options struct {
	// OnOutput receives every %output and %extended-output line, decoded.
	// Output.Data is only valid during the call: the buffer is reused, so
	// copy what you keep. Nil drops output.
	OnOutput func(Output)
	// OnNotification receives every other % line outside a block, known or
	// not, including %exit (just before the connection ends). Nil drops them.
	OnNotification func(Notification)
	// RerouteFlowControl treats a body line that is exactly `%pause %N` or
	// `%continue %N` as a notification rather than command output: tmux
	// writes them inside the block of the refresh-client -A command that
	// caused them.
	RerouteFlowControl bool
	// MaxLine caps one line in bytes (0 means DefaultMaxLine).
	MaxLine int
	// NoAttachWait writes requests at once instead of holding them until
	// the client is attached (the first %session-changed). Only for
	// transports that never attach, such as test doubles: tmux reads a
	// control client's input before it runs the client's own attach
	// command, so a command written early runs with no session (or renames
	// the session the attach is looking for).
	NoAttachWait bool
}

// CommandError reports a command that tmux refused (its %error block).
type CommandError struct {
	// Index is the position of the failed command in the Do call; tmux ran
	// the commands before it and none after it.
	Index int
	// Command is the argv of that command.
	Command []string
	// Message is the %error body, lines joined with "\n".
	Message string
	// ParseError reports that tmux refused the whole line before running
	// anything (the message starts with "parse error: "). Index is then 0
	// and Command the first command, whichever one tmux objected to.
	ParseError bool
}

// Error implements error.
func (e *CommandError) Error() string {
	name := ""
	if len(e.Command) > 0 {
		name = e.Command[0]
	}
	return fmt.Sprintf("tmux %s: %s", name, e.Message)
}

// request is one written command line waiting for its blocks.
type request struct {
	cmds [][]string // nil for Send: nobody reads the result
	n    int        // number of commands, i.e. blocks expected at most
	out  [][]string // bodies so far, then the result
	err  error
	done chan struct{} // closed once out/err are final; nil for Send
}

// Conn is a control-mode client over an established transport: r is tmux's
// stdout, w its stdin. It owns one reader and one writer goroutine. All
// methods are safe for concurrent use.
type Conn struct {
	opts Options
	r    io.Reader
	w    io.Writer

	mu     sync.Mutex
	queue  []*request // written requests waiting for blocks, FIFO from head
	head   int
	wbuf   []byte // lines not yet taken by the writer
	closed bool
	err    error

	wake      chan struct{} // capacity 1: wbuf has data
	ready     chan struct{} // closed once attached
	readyOnce sync.Once
	stop      chan struct{} // closed when the connection ends for any reason
	done      chan struct{} // closed when the reader returns
	closeOnce sync.Once
	closeErr  error
}

// NewConn starts a client over r (tmux's stdout) and w (tmux's stdin).
func NewConn(r io.Reader, w io.Writer, opts Options) *Conn {
	if opts.MaxLine <= 0 {
		opts.MaxLine = DefaultMaxLine
	}
	c := &Conn{
		opts:  opts,
		r:     r,
		w:     w,
		wake:  make(chan struct{}, 1),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
		ready: make(chan struct{}),
	}
	go c.readLoop()
	go c.writeLoop()
	return c
}

// Do sends cmds as one command line (one tmux command list, run at one
// instant) and waits for their blocks. It returns one slice of body lines
// per command.
//
// When command i fails, Do returns the bodies of the commands before it and
// a *CommandError. Words that cannot be sent fail with ErrUnsendable and
// commands that would break the connection with ErrUnsupported, before
// anything is written.
//
// ctx bounds the wait: when it is done Do returns ctx.Err() at once, but the
// line may already be written (tmux may still run it); its reply is then
// discarded on arrival so later replies stay aligned. Note that tmux runs a
// client's commands one after another, so a command that waits (run-shell
// without -b, wait-for, save-buffer to a slow file) delays every later
// request on the connection; such commands also end their block before
// their work is done. Until the client is attached (see Ready) requests are
// held, so an early Do waits for the attach.
func (c *Conn) Do(ctx context.Context, cmds ...[]string) ([][]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	req := &request{cmds: cmds, n: len(cmds), done: make(chan struct{})}
	if err := c.enqueue(req, cmds); err != nil {
		return nil, err
	}
	select {
	case <-req.done:
		return req.out, req.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Send writes cmds as one command line like Do but does not wait: the reply
// is discarded, errors included. It is meant for callbacks (for example
// answering %pause with refresh-client -A), which must not wait for a reply.
func (c *Conn) Send(cmds ...[]string) error {
	return c.enqueue(&request{n: len(cmds)}, cmds)
}

// enqueue checks cmds, then appends their line to the write buffer and req
// to the queue under one lock, so queue order is write order.
func (c *Conn) enqueue(req *request, cmds [][]string) error {
	if err := checkCommands(cmds); err != nil {
		return err
	}
	if err := checkSupported(cmds); err != nil {
		return err
	}
	c.mu.Lock()
	if c.closed {
		err := c.err
		c.mu.Unlock()
		return err
	}
	c.wbuf = appendLine(c.wbuf, cmds)
	c.wbuf = append(c.wbuf, '\n')
	c.queue = append(c.queue, req)
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default: // the writer is already due to run
	}
	return nil
}

// Ready is closed once tmux reports the client attached to a session (the
// first %session-changed). Requests made earlier are held until then unless
// Options.NoAttachWait is set. It is never closed when the connection ends
// first: wait on Done too. A failed attach ends the connection with an error
// that says why (for example "can't find session: s").
func (c *Conn) Ready() <-chan struct{} { return c.ready }

// markAttached closes ready; called by the reader.
func (c *Conn) markAttached() { c.readyOnce.Do(func() { close(c.ready) }) }

// writeLoop hands buffered lines to w, batching whatever accumulated while
// the previous write ran. A write error ends the connection: a partial line
// would corrupt the next one.
func (c *Conn) writeLoop() {
	if !c.opts.NoAttachWait {
		select {
		case <-c.ready:
		case <-c.stop:
			return
		}
	}
	var buf []byte
	for {
		select {
		case <-c.stop:
			return
		case <-c.wake:
		}
		c.mu.Lock()
		buf, c.wbuf = c.wbuf, buf[:0]
		c.mu.Unlock()
		if len(buf) == 0 {
			continue
		}
		if _, err := c.w.Write(buf); err != nil {
			c.fail(fmt.Errorf("write: %w", err))
			return
		}
		if cap(buf) > 1<<20 {
			buf = nil // do not pin a huge buffer after one big line
		}
	}
}

// fail ends the connection with cause (the first cause wins) and fails every
// queued request.
func (c *Conn) fail(cause error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	c.err = fmt.Errorf("%w: %w", ErrClosed, cause)
	pending := c.queue[c.head:]
	c.queue, c.head, c.wbuf = nil, 0, nil
	close(c.stop)
	err := c.err
	c.mu.Unlock()
	for _, req := range pending {
		req.out, req.err = nil, err
		if req.done != nil {
			close(req.done)
		}
	}
}

// Close ends the connection: pending and later requests fail with an error
// wrapping ErrClosed, and w is closed if it is an io.Closer (tmux then
// detaches and ends its output, which ends the reader). Close does not close
// r, and nothing but Close closes w. A writer that is not an io.Closer and
// blocks forever keeps the writer goroutine alive. Close returns the error of
// closing w.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		c.fail(errClosedByCaller)
		if cl, ok := c.w.(io.Closer); ok {
			c.closeErr = cl.Close()
		}
	})
	return c.closeErr
}

// Done is closed when the reader has ended (end of input, %exit, read
// error, over-long line).
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err reports why the connection ended (an error wrapping ErrClosed and the
// cause), or nil while it is open.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// complete records one finished block for the oldest request. ok reports a
// %end block, !ok an %error block whose body is in body. It is called by the
// reader only.
func (c *Conn) complete(body []string, ok bool) {
	c.mu.Lock()
	if c.head == len(c.queue) {
		// Nobody asked (the connection was closed, or tmux sent an extra
		// block): drop it.
		c.mu.Unlock()
		return
	}
	req := c.queue[c.head]
	if ok {
		if req.done != nil {
			req.out = append(req.out, body)
		} else {
			req.out = append(req.out, nil) // only the count matters
		}
		if len(req.out) < req.n {
			c.mu.Unlock()
			return
		}
	} else if req.done != nil {
		msg := strings.Join(body, "\n")
		i := len(req.out)
		ce := &CommandError{Index: i, Message: msg}
		if i == 0 && strings.HasPrefix(msg, "parse error: ") {
			ce.ParseError = true
		}
		if i < len(req.cmds) {
			ce.Command = req.cmds[i]
		}
		req.err = ce
	}
	c.queue[c.head] = nil
	c.head++
	switch {
	case c.head == len(c.queue):
		c.queue, c.head = c.queue[:0], 0
	case c.head >= 256 && 2*c.head >= len(c.queue):
		n := copy(c.queue, c.queue[c.head:])
		clear(c.queue[n:])
		c.queue, c.head = c.queue[:n], 0
	}
	c.mu.Unlock()
	if req.done != nil {
		close(req.done)
	}
}
