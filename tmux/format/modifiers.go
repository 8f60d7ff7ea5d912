package format

import (
	"slices"
	"strings"
)

// The modifiers of format_build_modifiers, in every tmux version this package knows: single
// characters taking no argument, pairs taking none, and characters that may take arguments.
const (
	noArgs   = "labcdnwETSWPOVL!<>A"
	withArgs = "ImCLNPSOVst=pReqWcA"
)

var pairs = []string{"||", "&&", "!!", "!=", "==", "<=", ">="}

// The modifiers of tmux 3.2a, which every later version reads the same way. A list that uses
// another one is no modifier list at all to an older tmux.
const (
	coreNoArgs   = "labdnwETSWP<>"
	coreWithArgs = "mCNst=peq"
)

var corePairs = []string{"||", "&&", "!=", "==", "<=", ">="}

// modifier is one entry of a modifier list.
type modifier struct {
	name string // "E", "s", "==", …
	at   int    // its offset in the key
	args []arg
}

// arg is one argument of a modifier, as written (tmux expands it as a format).
type arg struct {
	s  string
	at int // offset in the key
}

func (m modifier) core() bool {
	if len(m.name) == 2 {
		return slices.Contains(corePairs, m.name)
	}
	if len(m.args) == 0 {
		return strings.Contains(coreNoArgs, m.name) || strings.Contains(coreWithArgs, m.name)
	}
	return strings.Contains(coreWithArgs, m.name)
}

// isLoop reports whether the modifier expands its body once per session, window, pane,
// client, option or environment variable.
func isLoop(name string) bool {
	return len(name) == 1 && strings.Contains("SWPLOV", name)
}

// parseModifiers reads the modifier list at the start of key as format_build_modifiers does.
// ok is false when key has none (tmux then reads the whole key as a name, a conditional or an
// inner format); rest is the offset after the list's ':'. The *Hazard is a list that would make
// tmux 3.3a read past the end of the key.
func parseModifiers(key string) (mods []modifier, rest int, ok bool, err *Hazard) {
	cp := 0
	for cp < len(key) && key[cp] != ':' {
		if key[cp] == ';' {
			cp++
			if cp == len(key) {
				return nil, 0, false, &Hazard{Offset: cp - 1, What: "a modifier list ending in ;", Why: "tmux 3.3a reads on past the end of the format there"}
			}
		}
		c, next := key[cp], at(key, cp+1)
		if strings.IndexByte(noArgs, c) >= 0 && isEnd(next) {
			mods = append(mods, modifier{name: key[cp : cp+1], at: cp})
			cp++
			continue
		}
		if cp+2 <= len(key) && slices.Contains(pairs, key[cp:cp+2]) && isEnd(at(key, cp+2)) {
			mods = append(mods, modifier{name: key[cp : cp+2], at: cp})
			cp += 2
			continue
		}
		if strings.IndexByte(withArgs, c) < 0 {
			break
		}
		m := modifier{name: key[cp : cp+1], at: cp}
		switch {
		case isEnd(next):
			cp++
		case !isPunct(next) || next == '-':
			// One argument, up to the next ':' or ';'.
			end := skip(key, cp+1, ":;")
			if end == readsPast {
				return nil, 0, false, pastEnd(len(key) - 1)
			}
			if end < 0 {
				return nil, 0, false, nil
			}
			m.args = append(m.args, arg{key[cp+1 : end], cp + 1})
			cp = end
		default:
			// Arguments separated by the punctuation that follows the modifier: s/a/b/.
			if cp = wrappedArgs(key, cp+1, &m); cp == readsPast {
				return nil, 0, false, pastEnd(len(key) - 1)
			}
		}
		mods = append(mods, m)
	}
	if cp >= len(key) || key[cp] != ':' {
		return nil, 0, false, nil
	}
	return mods, cp + 1, true, nil
}

// wrappedArgs reads the arguments of m delimited by key[cp] (the do-while loop of
// format_build_modifiers) and returns where the list goes on (or readsPast).
func wrappedArgs(key string, cp int, m *modifier) int {
	delim := key[cp]
	ends := string([]byte{delim, ';', ':'})
	for {
		if at(key, cp) == delim && isEnd(at(key, cp+1)) {
			return cp + 1
		}
		end := skip(key, cp+1, ends)
		if end == readsPast {
			return readsPast
		}
		if end < 0 {
			return cp
		}
		m.args = append(m.args, arg{key[cp+1 : end], cp + 1})
		cp = end
		if isEnd(key[cp]) {
			return cp
		}
	}
}

func pastEnd(off int) *Hazard {
	return &Hazard{Offset: off, What: "a # that ends a modifier's argument", Why: "tmux 3.3a takes it for an escape and reads on past the end of the format, expanding whatever memory holds there"}
}

// at is key[i], or 0 past its end (where tmux's copy of the key has its NUL).
func at(key string, i int) byte {
	if i < len(key) {
		return key[i]
	}
	return 0
}

func isEnd(c byte) bool { return c == ';' || c == ':' }

// isPunct is ispunct(3) in the C and UTF-8 locales: printable ASCII that is neither a letter,
// a digit nor a space.
func isPunct(c byte) bool {
	return c > ' ' && c < 0x7f && !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9')
}
