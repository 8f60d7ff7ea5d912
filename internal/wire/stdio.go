package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transport serves MCP over newline-delimited JSON-RPC, as the go-sdk's mcp.IOTransport does,
// but a bad line costs one error reply instead of the session.
//
// Why the SDK needs it (go-sdk v1.8.0): IOTransport decodes its reader as one stream of JSON
// values. The first byte that is not JSON (garbage, a NUL, a truncated line, which the decoder
// joins to the next one), a line of more than one value, or a message its decoder refuses (a
// wrong or missing "jsonrpc", an object id, a batch once 2025-06-18 is negotiated, more than
// 1000 levels of nesting) comes back from Connection.Read as an error, with no reply; the SDK
// closes the session on any read error, Server.Run returns, and the process exits. Transport
// frames lines itself, vets and decodes each one (Decode), answers a bad one itself, and hands
// the SDK only messages it takes.
//
// Decoding here also spares the SDK its own decoding of each message (jsonrpc.DecodeMessage
// runs decoders with fresh 32 KB buffers): on a tools/call line, DecodeMessage measured 20-25 µs
// and 66 kB, Decode 6 µs and 1.3 kB. Over stdio the difference is lost in the noise of a busy
// 2-core machine (list_sessions medians 0.36-0.55 ms either way); the point is the vetting.
type Transport struct {
	Reader io.Reader
	Writer io.Writer
	// MaxLine bounds one line in bytes; 0 means mcp.DefaultMaxLineLength (16 MiB). A longer
	// line is skipped, never buffered whole, and answered with an error.
	MaxLine int
}

// Connect implements mcp.Transport.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	max := t.MaxLine
	if max <= 0 {
		max = mcp.DefaultMaxLineLength
	}
	c := &conn{w: t.Writer, incoming: make(chan msgOrErr), closed: make(chan struct{})}
	// Reads run on their own goroutine so that Close unblocks Read, as in the SDK's ioConn
	// (whose goroutine also outlives a read of stdin that never returns).
	go c.readLoop(bufio.NewReaderSize(t.Reader, 64<<10), max)
	return c, nil
}

type msgOrErr struct {
	msg jsonrpc.Message
	err error
}

type conn struct {
	wmu sync.Mutex // one line at a time: the SDK's writes and the error replies
	w   io.Writer

	incoming  chan msgOrErr
	closeOnce sync.Once
	closed    chan struct{}
}

// errTooLong marks a line over the limit, which readLine has skipped.
var errTooLong = errors.New("line too long")

// bigLine is the size above which a line's buffer is not kept for the next line.
const bigLine = 1 << 20

func (c *conn) readLoop(r *bufio.Reader, max int) {
	var buf []byte
	for {
		line, err := readLine(r, buf[:0], max)
		var msg jsonrpc.Message
		switch {
		case errors.Is(err, errTooLong):
			err = c.reply(invalid(nil, "the message is longer than %d bytes; send smaller messages", max))
		case len(trim(line)) > 0: // blank lines are skipped
			var e *Error
			if msg, e = Decode(line); e != nil {
				if werr := c.reply(e); werr != nil {
					err = werr
				}
			}
		}
		buf = nil
		if cap(line) <= bigLine { // Decode keeps copies, so the buffer serves the next line
			buf = line
		}
		if msg != nil && !c.send(msgOrErr{msg: msg}) {
			return
		}
		if err != nil { // io.EOF included: the SDK ends the session on it
			c.send(msgOrErr{err: err})
			return
		}
	}
}

// send hands a message or the read error to Read, unless the connection is closed.
func (c *conn) send(m msgOrErr) bool {
	select {
	case c.incoming <- m:
		return true
	case <-c.closed:
		return false
	}
}

// readLine appends the next line of r to buf, without its newline. A line longer than max is
// read to its end and dropped: errTooLong. At the end of the stream the last line comes with
// io.EOF.
func readLine(r *bufio.Reader, buf []byte, max int) ([]byte, error) {
	for {
		frag, err := r.ReadSlice('\n')
		if len(buf)+len(frag) > max+1 {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			if err == nil || err == io.EOF {
				return buf[:0], errTooLong
			}
			return buf[:0], err
		}
		buf = append(buf, frag...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			if n := len(buf); err == nil && n > 0 && buf[n-1] == '\n' {
				buf = buf[:n-1]
			}
			return buf, err
		}
	}
}

// reply writes the error answer to a refused line.
func (c *conn) reply(e *Error) error {
	return c.writeLine(e.Reply())
}

func (c *conn) writeLine(b []byte) error {
	b = append(b, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(b)
	return err
}

// Read implements mcp.Connection.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m := <-c.incoming:
		return m.msg, m.err
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write implements mcp.Connection.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := encode(msg)
	if err != nil {
		return fmt.Errorf("encoding a JSON-RPC message: %w", err)
	}
	return c.writeLine(b)
}

// encode is jsonrpc.EncodeMessage, byte for byte, but a response's result is
// not encoded twice. The go-sdk marshals a result into the response (compact JSON, without HTML
// escaping), and EncodeMessage then marshals the response around it, which scans the result
// again (encoding/json compacts a json.RawMessage): for a 2.4 MB response (list_panes over
// 1,000 panes: its JSON as text and as structured content) that pass took 37-53 ms on a busy
// 2-core VM, the envelope written around the result 2-3 ms (BenchmarkEncodeResponse).
func encode(msg jsonrpc.Message) ([]byte, error) {
	r, ok := msg.(*jsonrpc.Response)
	if !ok || r.Error != nil || len(r.Result) == 0 || !r.ID.IsValid() {
		return jsonrpc.EncodeMessage(msg)
	}
	var id bytes.Buffer
	enc := json.NewEncoder(&id) // as EncodeMessage: no HTML escaping
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r.ID.Raw()); err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(r.Result)+id.Len()+64) // room for writeLine's newline
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, bytes.TrimSuffix(id.Bytes(), []byte("\n"))...)
	b = append(b, `,"result":`...)
	b = append(b, r.Result...)
	return append(b, '}'), nil
}

// Close implements mcp.Connection. The reader and writer are the caller's to close.
func (c *conn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// SessionID implements mcp.Connection: a stream has one session and no id.
func (c *conn) SessionID() string { return "" }
