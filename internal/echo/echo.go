// Package echo models what a terminal shows of the input typed into it, so that a reader of a
// pane's output can tell the pane's echo of our own keystrokes from what a program printed
// (send_keys "echo MARKER" then waiting for MARKER must wait for the command's output, not for
// the typed line).
package echo

import (
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// A Store records what was typed into each pane, for a few seconds. The record models the shell's line editor: literal text appends to the pending line; Enter
// (or LF/CR in text) submits it; C-c and C-u clear it; BSpace erases a character; any other key
// (arrows, Home, Tab completion, Escape ...) leaves the line unknown, so the pending text is
// dropped. Every string that was on the pane's input line — the pending line, each submitted or
// cleared line, and each fragment sent by one call — is remembered until ttl passes.

const (
	ttl      = 10 * time.Second
	maxStrs  = 8    // strings remembered per pane
	maxLen   = 4096 // bytes kept per string (the tail: the end of a line is what is matched)
	maxPanes = 256  // panes remembered at most
	ctrlC    = "^C" // how a terminal shows C-c (echoctl)
)

// Store holds the records of every pane, by the pane's key K. The zero value is ready to use.
type Store[K comparable] struct {
	mu    sync.Mutex
	panes map[K]*paneEcho
}

type paneEcho struct {
	pending   []rune
	pendingAt time.Time
	strs      []echoStr
	last      time.Time
}

type echoStr struct {
	s  string
	at time.Time
}

// Input is one piece of input: literal text, or one tmux key name.
type Input struct {
	Text string
	Key  string
}

// Typed records input sent to pane k at now.
func (e *Store[K]) Typed(k K, in []Input, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.panes == nil {
		e.panes = map[K]*paneEcho{}
	}
	p := e.panes[k]
	if p == nil {
		if len(e.panes) >= maxPanes {
			e.pruneLocked(now, true)
		}
		p = &paneEcho{}
		e.panes[k] = p
	}
	if now.Sub(p.pendingAt) > ttl {
		p.pending = nil // the line was long since edited by someone else, or run
	}
	p.last = now
	for _, x := range in {
		if x.Key != "" {
			p.key(x.Key, now)
			continue
		}
		p.text(x.Text, now)
	}
	p.pendingAt = now
}

// text feeds literal text through the line-editor model and remembers each typed fragment.
func (p *paneEcho) text(s string, now time.Time) {
	frag := 0 // start of the current fragment in s
	for i, r := range s {
		switch r {
		case '\r', '\n':
			p.remember(s[frag:i], now)
			frag = i + 1
			p.submit(now)
		case 0x03: // C-c
			p.remember(s[frag:i], now)
			frag = i + 1
			p.interrupt(now)
		case 0x15: // C-u
			p.remember(s[frag:i], now)
			frag = i + 1
			p.clear(now)
		case 0x7f, 0x08:
			if n := len(p.pending); n > 0 {
				p.pending = p.pending[:n-1]
			}
		default:
			if r < 0x20 {
				// Escape sequences, Tab completion and other controls: the line is unknown.
				p.remember(s[frag:i], now)
				frag = i + 1
				p.clear(now)
				continue
			}
			p.pending = append(p.pending, r)
		}
	}
	p.remember(s[frag:], now)
}

// key applies one tmux key name (as keys.Canonical spells it) to the model.
func (p *paneEcho) key(k string, now time.Time) {
	switch strings.ToLower(k) {
	case "enter", "kpenter", "c-m", "c-j", "^m", "^j":
		p.submit(now)
	case "c-c", "^c":
		p.interrupt(now)
	case "c-u", "^u":
		p.clear(now)
	case "bspace", "c-h", "^h", "c-?", "^?":
		if n := len(p.pending); n > 0 {
			p.pending = p.pending[:n-1]
		}
	case "space":
		p.pending = append(p.pending, ' ')
	default:
		if utf8.RuneCountInString(k) == 1 {
			r, _ := utf8.DecodeRuneInString(k)
			if r >= 0x20 {
				p.pending = append(p.pending, r)
				return
			}
		}
		p.clear(now) // navigation, completion, anything else: the line is unknown
	}
}

// submit ends the pending line: its echo stays on screen, and is remembered.
func (p *paneEcho) submit(now time.Time) {
	p.remember(string(p.pending), now)
	p.pending = nil
}

// interrupt is C-c: the terminal shows the line followed by ^C.
func (p *paneEcho) interrupt(now time.Time) {
	if len(p.pending) > 0 {
		p.remember(string(p.pending)+ctrlC, now)
	}
	p.submit(now)
}

// clear forgets the pending line (its echo, already printed, is remembered).
func (p *paneEcho) clear(now time.Time) { p.submit(now) }

func (p *paneEcho) remember(s string, now time.Time) {
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	if len(s) > maxLen {
		s = s[len(s)-maxLen:]
		for len(s) > 0 && !utf8.RuneStart(s[0]) {
			s = s[1:]
		}
	}
	for i, x := range p.strs {
		if x.s == s {
			p.strs = append(p.strs[:i], p.strs[i+1:]...)
			break
		}
	}
	p.strs = append(p.strs, echoStr{s: s, at: now})
	if len(p.strs) > maxStrs {
		p.strs = p.strs[len(p.strs)-maxStrs:]
	}
}

// pruneLocked drops expired panes; with force it drops the oldest pane when none expired.
func (e *Store[K]) pruneLocked(now time.Time, force bool) {
	var oldest K
	var oldestAt time.Time
	for k, p := range e.panes {
		if now.Sub(p.last) > ttl {
			delete(e.panes, k)
			continue
		}
		if oldestAt.IsZero() || p.last.Before(oldestAt) {
			oldest, oldestAt = k, p.last
		}
	}
	if force && len(e.panes) >= maxPanes {
		delete(e.panes, oldest)
	}
}

// Set is what was recently typed into one pane: every remembered string, longest first, and
// the line still pending in the line editor (not submitted yet).
type Set struct {
	All     []string
	Pending string
}

// Empty reports whether nothing was typed recently.
func (es Set) Empty() bool { return len(es.All) == 0 }

// Echoes returns what was recently typed into pane k.
func (e *Store[K]) Echoes(k K, now time.Time) Set {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.panes[k]
	if p == nil {
		return Set{}
	}
	if now.Sub(p.last) > ttl {
		delete(e.panes, k)
		return Set{}
	}
	var es Set
	for _, x := range p.strs {
		if now.Sub(x.at) <= ttl {
			es.All = append(es.All, x.s)
		}
	}
	if len(p.pending) > 0 && now.Sub(p.pendingAt) <= ttl {
		s := strings.TrimSpace(string(p.pending))
		if len(s) > maxLen {
			s = s[len(s)-maxLen:]
			for len(s) > 0 && !utf8.RuneStart(s[0]) {
				s = s[1:]
			}
		}
		if s != "" {
			es.Pending = s
			if !slices.Contains(es.All, s) {
				es.All = append(es.All, s)
			}
		}
	}
	// Longest first, so "echo MARKER" goes before its fragment "MARKER".
	sortByLenDesc(es.All)
	return es
}

func sortByLenDesc(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && len(s[j]) > len(s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// Strip removes our echo from one line of new output (trailing blanks ignored). Where a
// terminal shows typed input, at the end of a line, it removes:
//
//   - a whole typed string that starts the line or follows a character that is not a letter,
//     digit or underscore (the prompt): "$ echo MARKER" loses "echo MARKER", while the command's
//     output "MARKER", or "make: done" after typing "make", are left alone;
//   - a line that is the tail of a typed string cut inside a word: the last row of a long typed
//     line that the line editor wrapped (zsh) or scrolled (mksh);
//   - a line drawn away from the margin (it starts with blanks) that is the tail of a typed
//     string from a word on: a row of a long typed line the line editor redrew (fish);
//   - while a line is still pending (typed without Enter, so nothing has run it), any piece of
//     it: the rows of a long pending line, however the editor draws them (fish);
//   - in a partial line (still being typed), a trailing prefix of a typed string ("$ echo MAR"
//     while "echo MARKER" arrives).
func Strip(line string, es Set, partial bool) string {
	if es.Empty() || line == "" {
		return line
	}
	for range len(es.All) + 2 {
		t := strings.TrimRight(line, " \t")
		cut := suffixCut(t, es.All)
		if cut < 0 {
			cut = wrapCut(t, es.All)
		}
		if cut < 0 {
			cut = indentedCut(t, es.All)
		}
		if cut < 0 && es.Pending != "" {
			cut = pieceCut(t, es.Pending)
		}
		if cut < 0 && partial {
			cut = prefixCut(t, es.All)
		}
		if cut < 0 {
			return line
		}
		line = t[:cut]
	}
	return line
}

// suffixCut finds a whole echo ending t at a boundary: the position it starts at, or -1.
func suffixCut(t string, echoes []string) int {
	for _, e := range echoes {
		if e != "" && strings.HasSuffix(t, e) && boundary(t, len(t)-len(e)) {
			return len(t) - len(e)
		}
	}
	return -1
}

// wrapMin is the shortest wrapped or scrolled row taken for echo.
const wrapMin = 4

// wrapCut reports 0 when all of t is the tail of an echo cut inside a word (a wrapped or
// scrolled row), else -1. A tail cut at a word boundary may be the command's output ("MARKER"
// after "echo MARKER"), so it stays.
func wrapCut(t string, echoes []string) int {
	if len(t) < wrapMin || !isWordByte(t[0]) {
		return -1
	}
	for _, e := range echoes {
		if len(e) > len(t) && strings.HasSuffix(e, t) && isWordByte(e[len(e)-len(t)-1]) {
			return 0
		}
	}
	return -1
}

// indentedCut reports 0 when t starts with blanks (the filter's rendering of a cursor moved
// right at the start of a line) and the rest is the tail of an echo from a word on, else -1.
// Output drawn at the margin ("DONE" after typing "make && echo DONE") is not such a line.
func indentedCut(t string, echoes []string) int {
	rest := strings.TrimLeft(t, " ")
	if len(rest) < wrapMin || len(rest) == len(t) {
		return -1
	}
	for _, e := range echoes {
		if len(e) > len(rest) && strings.HasSuffix(e, rest) && e[len(e)-len(rest)-1] == ' ' {
			return 0
		}
	}
	return -1
}

// pieceCutMax bounds the start positions pieceCut tries.
const pieceCutMax = 64

// pieceCut finds the earliest start (the line start or a boundary) from which the rest of t is
// a piece of the pending line, or -1.
func pieceCut(t, pending string) int {
	from := max(len(t)-len(pending), 0)
	tries := 0
	for i := from; i < len(t) && tries < pieceCutMax; i++ {
		if i > 0 && (!boundary(t, i) || !utf8.RuneStart(t[i])) {
			continue
		}
		tries++
		if strings.Contains(pending, t[i:]) {
			return i
		}
	}
	return -1
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b >= 0x80
}

// prefixCut finds the earliest position from which the rest of t is a prefix of an echo,
// starting at a boundary, or -1.
func prefixCut(t string, echoes []string) int {
	best := -1
	for _, e := range echoes {
		if e == "" {
			continue
		}
		from := max(len(t)-len(e), 0)
		for i := from; i < len(t); i++ {
			if t[i] != e[0] || !boundary(t, i) {
				continue
			}
			if strings.HasPrefix(e, t[i:]) {
				if best < 0 || i < best {
					best = i
				}
				break
			}
		}
	}
	return best
}

// boundary reports whether position i of s starts a standalone word: the start of the line,
// or after a character that is not a letter, digit or underscore.
func boundary(s string, i int) bool {
	if i <= 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_')
}
