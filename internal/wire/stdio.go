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

// Transport serves MCP over newline-delimited JSON-RPC through the go-sdk's own mcp.IOTransport,
// with a filter in front of it, so that a bad line costs one error reply instead of the session.
//
// Why the SDK needs it (go-sdk v1.8.0, go-sdk#1209): IOTransport decodes its reader as one stream
// of JSON values. The first byte that is not JSON (garbage, a NUL, a truncated line, which the
// decoder joins to the next one), a line of more than one value, or a message its decoder refuses
// (a wrong or missing "jsonrpc", an object id, a batch once 2025-06-18 is negotiated, more than
// 1000 levels of nesting) comes back from Connection.Read as an error, with no reply; the SDK
// closes the session on any read error, Server.Run returns, and the process exits. The filter
// frames lines, vets each one (Decode), answers a bad one itself and passes a good one on to the
// SDK unchanged (trimmed of surrounding blanks, which the SDK's reader takes for trailing data):
// the SDK reads, decodes and dispatches everything it is given, as over its own transport.
//
// One thing it writes itself: a response's envelope around the result the SDK already encoded
// (writeResponse), which spares a 2.4 MB response a second scan of 50-150 ms (docs/performance.md).
type Transport struct {
	Reader io.Reader
	Writer io.Writer
	// MaxLine bounds one line in bytes; 0 means mcp.DefaultMaxLineLength (16 MiB). A longer
	// line is skipped, never buffered whole, and answered with an error.
	MaxLine int
}

// Connect implements mcp.Transport.
func (t *Transport) Connect(ctx context.Context) (mcp.Connection, error) {
	max := t.MaxLine
	if max <= 0 {
		max = mcp.DefaultMaxLineLength
	}
	w := &lineWriter{w: t.Writer}
	f := &filter{r: bufio.NewReaderSize(t.Reader, 64<<10), max: max, w: w}
	// The filter bounds lines already: the SDK's own bound (which counts the bytes its decoder
	// reads ahead) is left off.
	c, err := (&mcp.IOTransport{Reader: f, Writer: w, MaxLineLength: -1}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{Connection: c, w: w}, nil
}

// lineWriter writes whole lines, one at a time: the SDK's messages (each one Write), the
// filter's error replies and writeResponse's responses. Closing it leaves the writer open: it is the
// caller's.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (l *lineWriter) Close() error { return nil }

// writeLine writes b and a newline in one Write.
func (l *lineWriter) writeLine(b []byte) error {
	_, err := l.Write(append(b, '\n'))
	return err
}

// errTooLong marks a line over the limit, which readLine has skipped.
var errTooLong = errors.New("line too long")

// bigLine is the size above which a line's buffer is not kept for the next line.
const bigLine = 1 << 20

// filter is the reader the SDK's transport reads: the good lines of r, each whole with its
// newline. It answers the bad ones on w and leaves them out.
type filter struct {
	r       *bufio.Reader
	max     int
	w       *lineWriter
	buf     []byte // the line being handed on; its storage serves the next line
	pending []byte // what is left of it to hand on
	err     error  // the error to return once pending is empty (io.EOF at the end)
}

// Read implements io.Reader.
func (f *filter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		f.next()
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// next reads one line: a good one becomes pending, a bad one is answered.
func (f *filter) next() {
	if cap(f.buf) > bigLine {
		f.buf = nil
	}
	line, err := readLine(f.r, f.buf[:0], f.max)
	f.buf = line
	switch {
	case errors.Is(err, errTooLong):
		err = f.w.writeLine(invalid(nil, "the message is longer than %d bytes; send smaller messages", f.max).Reply())
	case len(trim(line)) > 0: // blank lines are skipped
		if _, e := Decode(line); e != nil {
			if werr := f.w.writeLine(e.Reply()); werr != nil {
				err = werr
			}
		} else {
			f.pending = append(trim(line), '\n')
		}
	}
	f.err = err // io.EOF included: the SDK ends the session on it, after the last line
}

// Close leaves the reader open: it is the caller's.
func (f *filter) Close() error { return nil }

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

// conn is the SDK's connection but for the writing of responses (writeResponse).
type conn struct {
	mcp.Connection
	w *lineWriter
}

// Write implements mcp.Connection: a response with a result is written by writeResponse,
// anything else by the SDK.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	r, ok := msg.(*jsonrpc.Response)
	if !ok || r.Error != nil || len(r.Result) == 0 || !r.ID.IsValid() {
		return c.Connection.Write(ctx, msg)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return c.w.writeResponse(r)
}

// copyResult is the size of result up to which writeResponse copies it beside its envelope
// and writes the line in one Write; a larger one is written where it lies, in a Write of its
// own between the envelope's two ends.
const copyResult = 16 << 10

// writeResponse writes r as jsonrpc.EncodeMessage does, byte for byte, and a newline; its result
// is neither encoded twice nor, when large, copied. The go-sdk marshals a result into the
// response (compact JSON, without HTML escaping), and EncodeMessage then marshals the response
// around it, which scans the result again (encoding/json compacts a json.RawMessage); here the
// envelope is written around it instead (BenchmarkEncodeResponse; the figures are in
// docs/performance.md).
func (l *lineWriter) writeResponse(r *jsonrpc.Response) error {
	room := 0
	if len(r.Result) <= copyResult {
		room = len(r.Result) + 2 // and "}\n"
	}
	head, err := envelope(r, room)
	if err != nil {
		return fmt.Errorf("encoding a JSON-RPC message: %w", err)
	}
	if room > 0 {
		return l.writeLine(append(append(head, r.Result...), '}'))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, b := range [][]byte{head, r.Result, []byte("}\n")} {
		if _, err := l.w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// envelope is what jsonrpc.EncodeMessage writes of a response before its result, with room
// bytes to spare after it.
func envelope(r *jsonrpc.Response, room int) ([]byte, error) {
	var id bytes.Buffer
	enc := json.NewEncoder(&id) // as EncodeMessage: no HTML escaping
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r.ID.Raw()); err != nil {
		return nil, err
	}
	b := make([]byte, 0, id.Len()+32+room)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, bytes.TrimSuffix(id.Bytes(), []byte("\n"))...)
	return append(b, `,"result":`...), nil
}
