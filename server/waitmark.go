package server

import "sync"

// Where a wait_for_text without a cursor starts (its started_from).
const (
	fromCall      = "call"       // no earlier mark: the output from the call on
	fromCursor    = "cursor"     // the cursor it was given
	fromLastInput = "last_input" // the last input this server sent to the pane
	fromLastWait  = "last_wait"  // where the last wait on the pane ended
)

// waitMark is where the next wait_for_text without a cursor on a pane starts: before the last
// input this server sent there, or where the last wait ended, whichever came later. Output
// that arrived between send_keys and the wait is then seen, and a second wait does not match
// the same line again.
type waitMark struct {
	gen  uint64 // the kept stream's generation the offset belongs to
	off  int64
	from string
}

// waitMarks are the marks of every pane; the zero value is ready.
type waitMarks struct {
	mu sync.Mutex
	m  map[paneKey]waitMark
}

// input marks the offset taken before input into the pane.
func (w *waitMarks) input(k paneKey, gen uint64, off int64) {
	w.set(k, waitMark{gen: gen, off: off, from: fromLastInput}, false)
}

// waited marks where a wait ended, unless input came after it.
func (w *waitMarks) waited(k paneKey, gen uint64, off int64) {
	w.set(k, waitMark{gen: gen, off: off, from: fromLastWait}, true)
}

func (w *waitMarks) set(k paneKey, mk waitMark, onlyForward bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		w.m = map[paneKey]waitMark{}
	}
	if old, ok := w.m[k]; onlyForward && ok && old.gen == mk.gen && old.off > mk.off {
		return
	}
	if len(w.m) >= maxWaitMarks {
		clear(w.m) // panes come and go; a lost mark only starts a wait at its call
	}
	w.m[k] = mk
}

// start returns where a wait on the pane without a cursor starts in a stream of generation gen
// now at offset now: the mark when it belongs to that stream, else now.
func (w *waitMarks) start(k paneKey, gen uint64, now int64) (int64, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	mk, ok := w.m[k]
	if !ok || mk.gen != gen || mk.off > now {
		return now, fromCall
	}
	return mk.off, mk.from
}

// maxWaitMarks bounds the marks kept.
const maxWaitMarks = 4096
