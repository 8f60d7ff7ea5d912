package server

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

// cursor is a reader's position in a pane's live stream, handed to clients as an opaque,
// tamper-evident token (capture_since, wait_for_text).
type cursor struct {
	Pane        uint32 // N of the pane id %N
	DaemonPID   uint32 // the tmux daemon the stream belongs to
	DaemonStart int64  // its start time: a restarted server on the same pid is another daemon
	PanePID     uint32 // the pane's process: a respawned pane starts a new stream of text
	Gen         uint64 // the stream's generation in this process (see liveReads)
	Offset      int64  // absolute byte offset in that stream
}

const (
	cursorVersion = 1
	cursorPayload = 1 + 4 + 4 + 8 + 4 + 8 + 8
	cursorMAC     = 16 // bytes of HMAC-SHA256 kept
	cursorLen     = cursorPayload + cursorMAC
)

// cursorKey signs cursors; it is random per process, so a cursor of an earlier run of the
// server is refused like a forged one.
var cursorKey = sync.OnceValue(func() []byte {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic("crypto/rand: " + err.Error()) // never happens on supported systems
	}
	return k
})

// Cursor errors; the tools turn them into messages with a hint.
var (
	errCursorMalformed = errors.New("the cursor is malformed or truncated")
	errCursorForged    = errors.New("the cursor was not issued by this server (altered, or from an earlier run of tmux-mcp)")
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

// newCursor is the position off in stream generation gen of pane p on daemon id.
func newCursor(id tmux.Identity, p tmux.Pane, gen uint64, off int64) cursor {
	num, _ := paneNumber(p.PaneID)
	return cursor{Pane: num, DaemonPID: uint32(id.PID), DaemonStart: id.StartTime, PanePID: uint32(p.PanePID), Gen: gen, Offset: off}
}

// PaneID returns the cursor's pane id.
func (c cursor) PaneID() string { return "%" + strconv.FormatUint(uint64(c.Pane), 10) }

func cursorSum(payload []byte) []byte {
	m := hmac.New(sha256.New, cursorKey())
	m.Write(payload)
	return m.Sum(nil)[:cursorMAC]
}

// encode returns the cursor as a base64url token.
func (c cursor) encode() string {
	b := make([]byte, cursorPayload, cursorLen)
	b[0] = cursorVersion
	binary.BigEndian.PutUint32(b[1:], c.Pane)
	binary.BigEndian.PutUint32(b[5:], c.DaemonPID)
	binary.BigEndian.PutUint64(b[9:], uint64(c.DaemonStart))
	binary.BigEndian.PutUint32(b[17:], c.PanePID)
	binary.BigEndian.PutUint64(b[21:], c.Gen)
	binary.BigEndian.PutUint64(b[29:], uint64(c.Offset))
	b = append(b, cursorSum(b)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor checks and decodes a token made by encode.
func decodeCursor(s string) (cursor, error) {
	if len(s) != base64.RawURLEncoding.EncodedLen(cursorLen) {
		return cursor{}, errCursorMalformed
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != cursorLen || b[0] != cursorVersion {
		return cursor{}, errCursorMalformed
	}
	if !hmac.Equal(b[cursorPayload:], cursorSum(b[:cursorPayload])) {
		return cursor{}, errCursorForged
	}
	c := cursor{
		Pane:        binary.BigEndian.Uint32(b[1:]),
		DaemonPID:   binary.BigEndian.Uint32(b[5:]),
		DaemonStart: int64(binary.BigEndian.Uint64(b[9:])),
		PanePID:     binary.BigEndian.Uint32(b[17:]),
		Gen:         binary.BigEndian.Uint64(b[21:]),
		Offset:      int64(binary.BigEndian.Uint64(b[29:])),
	}
	if c.Offset < 0 {
		return cursor{}, errCursorMalformed // only a signed cursor gets here: never happens
	}
	return c, nil
}
