// Package marks follows the shell-integration marks in a pane's output stream and keeps the
// pane's recent commands: OSC 133 (and VS Code's 633) A prompt start, B command start, C output
// start, D end with its exit status; OSC 7 the working directory; and this server's own run
// markers (OSC 6973, see shellrun). It is pure: bytes and offsets in, commands out.
package marks

import (
	"bytes"
	"net/url"
	"strconv"
	"strings"
)

// Kind says what a mark means.
type Kind byte

// The kinds of marks.
const (
	Prompt   Kind = 'A' // a prompt starts
	Input    Kind = 'B' // the prompt ended: what follows is the command line as typed
	Output   Kind = 'C' // the command runs: what follows is its output
	Done     Kind = 'D' // the command ended (Status when the shell gave one)
	Cwd      Kind = '7' // the shell's working directory (Path)
	RunStart Kind = 'S' // a run of this server starts (RunID)
	RunEnd   Kind = 'E' // a run of this server ended (Status)
	RunFail  Kind = 'X' // a run of this server was refused by its wrapper
	Line     Kind = 'L' // the command line about to run (VS Code's 633;E), before its C
)

// maxOSC bounds the bytes of one OSC string kept for parsing; the rest is skipped (a mark is
// short; a C mark's command line is cut, and then not used).
const maxOSC = 16 << 10

// Event is one mark found in the stream.
type Event struct {
	Kind Kind
	// At is the offset of the mark's ESC, End the offset just after its terminator.
	At, End int64
	// Status is D's or a run's exit status; HasStatus says whether one was given.
	Status    int
	HasStatus bool
	// Cmdline is the command line a C mark carries (cmdline_url=, cmdline=, or 633;E).
	Cmdline string
	// Path is OSC 7's directory.
	Path string
	// RunID names a run of this server.
	RunID string
}

// parser states
const (
	psGround = iota
	psEsc
	psOSC
	psOSCEsc // ESC inside an OSC: ST (ESC \) ends it
)

// Parser finds marks in a byte stream fed in pieces; sequences may be split anywhere. The
// zero value is ready to use. It is not safe for concurrent use.
type Parser struct {
	state uint8
	at    int64 // offset of the current sequence's ESC
	buf   []byte
	over  bool // the OSC was longer than maxOSC
}

// pending returns the offset of a sequence still in progress, if any.
func (p *Parser) pending() (int64, bool) { return p.at, p.state != psGround }

// Reset forgets a sequence in progress (after output was lost).
func (p *Parser) Reset() { p.state, p.buf, p.over = psGround, p.buf[:0], false }

// Feed parses b, whose first byte is at stream offset off, calling emit for each mark with the
// index in b just after it.
func (p *Parser) Feed(b []byte, off int64, emit func(ev Event, next int)) {
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch p.state {
		case psGround:
			j := bytes.IndexByte(b[i:], 0x1b)
			if j < 0 {
				return
			}
			i += j
			p.state, p.at = psEsc, off+int64(i)
		case psEsc:
			switch c {
			case ']':
				p.state, p.buf, p.over = psOSC, p.buf[:0], false
			case 0x1b:
				p.at = off + int64(i)
			default:
				p.state = psGround
			}
		case psOSC, psOSCEsc:
			p.oscByte(c, b, i, off, emit)
		}
	}
}

func (p *Parser) oscByte(c byte, b []byte, i int, off int64, emit func(Event, int)) {
	if p.state == psOSCEsc {
		if c == '\\' {
			p.finish(off+int64(i)+1, i+1, emit)
			return
		}
		// Another sequence begins: this OSC was never terminated.
		p.state, p.at = psEsc, off+int64(i)-1
		if c == ']' {
			p.state, p.buf, p.over = psOSC, p.buf[:0], false
		} else if c == 0x1b {
			p.at = off + int64(i)
		} else {
			p.state = psGround
		}
		return
	}
	switch {
	case c == 0x07:
		p.finish(off+int64(i)+1, i+1, emit)
	case c == 0x1b:
		p.state = psOSCEsc
	case c == 0x18 || c == 0x1a: // CAN, SUB abort
		p.state = psGround
	case len(p.buf) < maxOSC:
		p.buf = append(p.buf, c)
	default:
		p.over = true
	}
}

func (p *Parser) finish(end int64, next int, emit func(Event, int)) {
	p.state = psGround
	if ev, ok := parseOSC(p.buf, p.over); ok {
		ev.At, ev.End = p.at, end
		emit(ev, next)
	}
	if cap(p.buf) > 4096 {
		p.buf = nil
	}
}

// parseOSC reads an OSC string's payload; ok is false for what is not a mark.
func parseOSC(b []byte, cut bool) (ev Event, ok bool) {
	code, rest, _ := bytes.Cut(b, []byte{';'})
	switch string(code) {
	case "133", "633":
		return parse133(string(rest), string(code) == "633", cut)
	case "7":
		if cut {
			return ev, false
		}
		return parse7(string(rest))
	case "6973":
		return parseRun(string(rest))
	}
	return ev, false
}

func parse133(s string, vscode, cut bool) (ev Event, ok bool) {
	if s == "" {
		return ev, false
	}
	letter, params, _ := strings.Cut(s, ";")
	switch letter {
	case "A", "B", "C", "D":
		ev.Kind = Kind(letter[0])
	case "E":
		// VS Code's command line: 633;E;<escaped line>[;nonce].
		if !vscode || cut {
			return ev, false
		}
		line, _, _ := strings.Cut(params, ";")
		return Event{Kind: Line, Cmdline: unescape633(line)}, true
	default:
		return ev, false
	}
	for i, f := range splitParams(params) {
		if ev.Kind == Done && i == 0 {
			if n, err := strconv.Atoi(f); err == nil && n >= -1<<20 && n <= 1<<20 {
				ev.Status, ev.HasStatus = n, true
				continue
			}
		}
		if cut {
			continue
		}
		k, v, _ := strings.Cut(f, "=")
		switch {
		case ev.Kind == Output && k == "cmdline_url":
			if u, err := url.PathUnescape(v); err == nil {
				ev.Cmdline = u
			}
		case ev.Kind == Output && k == "cmdline":
			ev.Cmdline = v
		}
	}
	return ev, true
}

func splitParams(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ";")
}

// unescape633 decodes VS Code's escaping: \\ and \xAB.
func unescape633(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			if s[i+1] == '\\' {
				b.WriteByte('\\')
				i++
				continue
			}
			if s[i+1] == 'x' && i+3 < len(s) {
				if n, err := strconv.ParseUint(s[i+2:i+4], 16, 8); err == nil {
					b.WriteByte(byte(n))
					i += 3
					continue
				}
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// parse7 reads OSC 7's file://host/path (the host is not checked: tmux may run on another
// machine than the shell, over ssh, and the path is still the shell's).
func parse7(s string) (ev Event, ok bool) {
	rest, found := strings.CutPrefix(s, "file://")
	if !found {
		rest, found = strings.CutPrefix(s, "kitty-shell-cwd://")
	}
	if !found {
		return ev, false
	}
	slash := strings.IndexByte(rest, '/')
	if slash < 0 {
		return ev, false
	}
	path, err := url.PathUnescape(rest[slash:])
	if err != nil || strings.ContainsRune(path, 0) {
		return ev, false
	}
	return Event{Kind: Cwd, Path: path}, true
}

// parseRun reads this server's run markers: <id>;S, <id>;E;<status>, <id>;X;<reason>.
func parseRun(s string) (ev Event, ok bool) {
	f := strings.Split(s, ";")
	if len(f) < 2 || f[0] == "" || len(f[0]) > 64 {
		return ev, false
	}
	ev.RunID = f[0]
	switch {
	case f[1] == "S" && len(f) == 2:
		ev.Kind = RunStart
	case f[1] == "E" && len(f) == 3:
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return ev, false
		}
		ev.Kind, ev.Status, ev.HasStatus = RunEnd, n, true
	case f[1] == "X":
		ev.Kind = RunFail
	default:
		return ev, false
	}
	return ev, true
}
