// Package cursor is a reader's position in a pane's live stream as clients hold it: an
// opaque, tamper-evident token (capture_since, wait_for_text) that names the tmux daemon, the
// pane and its process, the stream and the byte offset.
package cursor

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strconv"
	"strings"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Cursor is a reader's position in a pane's live stream.
type Cursor struct {
	Pane        uint32 // N of the pane id %N
	DaemonPID   uint32 // the tmux daemon the stream belongs to
	DaemonStart int64  // its start time: a restarted server on the same pid is another daemon
	PanePID     uint32 // the pane's process: a respawned pane starts a new stream of text
	Gen         uint64 // the stream's generation in this process (stream.Kept)
	Offset      int64  // absolute byte offset in that stream
}

const (
	version    = 1
	payloadLen = 1 + 4 + 4 + 8 + 4 + 8 + 8
	macLen     = 16 // bytes of HMAC-SHA256 kept
	tokenLen   = payloadLen + macLen
)

// key signs cursors; it is random per process, so a cursor of an earlier run of the
// server is refused like a forged one.
var key = sync.OnceValue(func() []byte {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic("crypto/rand: " + err.Error()) // never happens on supported systems
	}
	return k
})

// Decode's errors; the tools turn them into messages with a hint.
var (
	ErrMalformed = errors.New("the cursor is malformed or truncated")
	ErrForged    = errors.New("the cursor was not issued by this server (altered, or from an earlier run of tmux-mcp)")
)

// paneNumber returns N of %N, or false.
func paneNumber(id string) (uint32, bool) {
	n, ok := strings.CutPrefix(id, "%")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseUint(n, 10, 32)
	return uint32(v), err == nil
}

// New is the position off in stream generation gen of pane p on daemon id.
func New(id tmux.Identity, p tmux.Pane, gen uint64, off int64) Cursor {
	num, _ := paneNumber(p.PaneID)
	return Cursor{Pane: num, DaemonPID: uint32(id.PID), DaemonStart: id.StartTime, PanePID: uint32(p.PanePID), Gen: gen, Offset: off}
}

// PaneID returns the cursor's pane id.
func (c Cursor) PaneID() string { return "%" + strconv.FormatUint(uint64(c.Pane), 10) }

func sum(payload []byte) []byte {
	m := hmac.New(sha256.New, key())
	m.Write(payload)
	return m.Sum(nil)[:macLen]
}

// Encode returns the cursor as a base64url token.
func (c Cursor) Encode() string {
	b := make([]byte, payloadLen, tokenLen)
	b[0] = version
	binary.BigEndian.PutUint32(b[1:], c.Pane)
	binary.BigEndian.PutUint32(b[5:], c.DaemonPID)
	binary.BigEndian.PutUint64(b[9:], uint64(c.DaemonStart))
	binary.BigEndian.PutUint32(b[17:], c.PanePID)
	binary.BigEndian.PutUint64(b[21:], c.Gen)
	binary.BigEndian.PutUint64(b[29:], uint64(c.Offset))
	b = append(b, sum(b)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Decode checks and decodes a token made by Encode in this process.
func Decode(s string) (Cursor, error) {
	if len(s) != base64.RawURLEncoding.EncodedLen(tokenLen) {
		return Cursor{}, ErrMalformed
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != tokenLen || b[0] != version {
		return Cursor{}, ErrMalformed
	}
	if !hmac.Equal(b[payloadLen:], sum(b[:payloadLen])) {
		return Cursor{}, ErrForged
	}
	c := Cursor{
		Pane:        binary.BigEndian.Uint32(b[1:]),
		DaemonPID:   binary.BigEndian.Uint32(b[5:]),
		DaemonStart: int64(binary.BigEndian.Uint64(b[9:])),
		PanePID:     binary.BigEndian.Uint32(b[17:]),
		Gen:         binary.BigEndian.Uint64(b[21:]),
		Offset:      int64(binary.BigEndian.Uint64(b[29:])),
	}
	if c.Offset < 0 {
		return Cursor{}, ErrMalformed // only a signed cursor gets here: never happens
	}
	return c, nil
}
