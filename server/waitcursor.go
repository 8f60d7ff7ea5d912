package server

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// waitCursor is a resume point in a pane's live stream, as wait_for_text returns it: the next
// wait with it sees exactly the output printed after the point, even output printed between
// the calls. It names the daemon (a restarted tmux voids it), the pane and the pane's process
// (a respawned pane voids it), and the kept stream whose byte offsets it counts in.
//
// On the wire it is "wt1." + base64url(JSON) + "." + base64url(HMAC-SHA256 prefix), signed
// with a key made at process start: a cursor cannot be forged or altered, and one from another
// tmux-mcp process is refused as such.
type waitCursor struct {
	PID     int    `json:"pid"` // daemon pid
	Start   int64  `json:"st"`  // daemon start time
	Pane    string `json:"p"`
	PanePID int    `json:"pp"`
	Stream  uint64 `json:"s"` // the kept stream (watchKeeper id)
	Off     int64  `json:"o"` // byte offset in that stream
}

const (
	waitCursorPrefix = "wt1."
	waitCursorMax    = 512 // bytes; a real cursor is about 120
)

var waitCursorKey = sync.OnceValue(func() []byte {
	k := make([]byte, 32)
	rand.Read(k)
	return k
})

func (c waitCursor) String() string {
	b, _ := json.Marshal(c)
	payload := base64.RawURLEncoding.EncodeToString(b)
	return waitCursorPrefix + payload + "." + base64.RawURLEncoding.EncodeToString(cursorMAC(payload))
}

func cursorMAC(payload string) []byte {
	m := hmac.New(sha256.New, waitCursorKey())
	m.Write([]byte(waitCursorPrefix + payload))
	return m.Sum(nil)[:16]
}

const cursorHint = "Pass a cursor exactly as wait_for_text returned it, or omit cursor to wait for output from now on."

// parseWaitCursor decodes and verifies a cursor string.
func parseWaitCursor(s string) (waitCursor, error) {
	var c waitCursor
	if len(s) > waitCursorMax || !strings.HasPrefix(s, waitCursorPrefix) {
		return c, fail(cursorHint, "cursor %q is not a wait_for_text cursor", truncate(s, 60))
	}
	payload, mac, ok := strings.Cut(s[len(waitCursorPrefix):], ".")
	sig, err := base64.RawURLEncoding.DecodeString(mac)
	if !ok || err != nil {
		return c, fail(cursorHint, "cursor %q is malformed", truncate(s, 60))
	}
	if !hmac.Equal(sig, cursorMAC(payload)) {
		return c, fail("Cursors last only as long as the tmux-mcp process that issued them. "+cursorHint,
			"cursor was not issued by this tmux-mcp process (it was altered, or the server restarted)")
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil || json.Unmarshal(b, &c) != nil || c.Pane == "" || c.Off < 0 {
		return c, fail(cursorHint, "cursor %q is malformed", truncate(s, 60))
	}
	return c, nil
}

// Kept streams: a wait's stream is kept for keepFor after the wait, so that a cursor can
// resume it without losing what the pane printed in between. At most keepMax panes are kept;
// the least recently used idle one goes first.
const (
	keepFor = 60 * time.Second
	keepMax = 16
)

var errCursorExpired = errors.New("the cursor's stream is no longer kept")

// watchKeeper holds pane streams between waits. The zero value is ready to use.
type watchKeeper struct {
	mu   sync.Mutex
	m    map[paneKey]*keptWatch
	next uint64
}

// keptWatch is one kept stream; users counts the waits reading it.
type keptWatch struct {
	key    paneKey
	w      *stream.Watch
	id     uint64
	users  int
	used   time.Time
	timer  *time.Timer
	orphan bool // replaced or evicted: released when its last user leaves
}

// acquire returns the kept stream of pane k, marked in use. With id != 0 (a cursor) it must be
// that very stream, else errCursorExpired. With id == 0 a live kept stream is shared, or a new
// one is opened.
func (wk *watchKeeper) acquire(ctx context.Context, ts *tmux.Server, k paneKey, id uint64) (*keptWatch, error) {
	wk.mu.Lock()
	e := wk.m[k]
	switch {
	case id != 0:
		if e == nil || e.id != id {
			wk.mu.Unlock()
			return nil, errCursorExpired
		}
		wk.useLocked(e)
		wk.mu.Unlock()
		return e, nil
	case e != nil && e.w.Err() == nil:
		wk.useLocked(e)
		wk.mu.Unlock()
		return e, nil
	}
	wk.mu.Unlock()

	w, err := ts.WatchPane(ctx, k.pane)
	if err != nil {
		return nil, err
	}
	wk.mu.Lock()
	defer wk.mu.Unlock()
	if cur := wk.m[k]; cur != nil && cur != e && cur.w.Err() == nil {
		// Another wait opened one meanwhile: share it.
		w.Release()
		wk.useLocked(cur)
		return cur, nil
	}
	if cur := wk.m[k]; cur != nil {
		wk.dropLocked(cur)
	}
	if wk.m == nil {
		wk.m = map[paneKey]*keptWatch{}
	}
	if len(wk.m) >= keepMax {
		wk.evictLocked()
	}
	wk.next++
	ne := &keptWatch{key: k, w: w, id: wk.next}
	wk.m[k] = ne
	wk.useLocked(ne)
	return ne, nil
}

func (wk *watchKeeper) useLocked(e *keptWatch) {
	e.users++
	if e.timer != nil {
		e.timer.Stop()
		e.timer = nil
	}
}

// release ends one use of e; the stream is kept for keepFor after its last use.
func (wk *watchKeeper) release(e *keptWatch) {
	wk.mu.Lock()
	defer wk.mu.Unlock()
	e.users--
	e.used = time.Now()
	if e.users > 0 {
		return
	}
	if e.orphan || e.w.Err() != nil {
		wk.dropLocked(e)
		return
	}
	e.timer = time.AfterFunc(keepFor, func() {
		wk.mu.Lock()
		defer wk.mu.Unlock()
		if e.users == 0 && time.Since(e.used) >= keepFor {
			wk.dropLocked(e)
		}
	})
}

// dropLocked forgets e and releases its stream once nobody reads it.
func (wk *watchKeeper) dropLocked(e *keptWatch) {
	if wk.m[e.key] == e {
		delete(wk.m, e.key)
	}
	e.orphan = true
	if e.timer != nil {
		e.timer.Stop()
		e.timer = nil
	}
	if e.users == 0 {
		e.w.Release()
	}
}

// evictLocked drops the least recently used idle stream, if any.
func (wk *watchKeeper) evictLocked() {
	var old *keptWatch
	for _, e := range wk.m {
		if e.users == 0 && (old == nil || e.used.Before(old.used)) {
			old = e
		}
	}
	if old != nil {
		wk.dropLocked(old)
	}
}
