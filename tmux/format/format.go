// Package format reads tmux format strings the way tmux reads them, to tell whether expanding
// one could run a shell command or expand text that is not the format's own as a format, and
// escapes text so that tmux's format expansion prints it as it is.
//
// The reading follows format.c of tmux 3.3a (format_expand1, format_replace,
// format_build_modifiers, format_skip), with the modifiers later versions added (c, L, O, V,
// R, I, A, !, !!, and arguments to S, W and P) and the unescaping of modifier arguments they
// do: a format is judged by every version's reading of it. What tmux does with a format:
//
//   - #( … ) runs a shell job, wherever the text around it is expanded.
//   - #{…} is a replacement: a ;-separated modifier list ending in ':' (when there is one),
//     then a variable name, a conditional (?cond,a,b) or an inner format. The modifiers'
//     arguments, the branches, the loop bodies and inner formats are each expanded once;
//     a variable's value is never expanded again, except by E: and T: (which expand the
//     value as a format) and by s/…/…/ (whose arguments are expanded twice, so a variable
//     in them is expanded as a format).
//   - ##, #,, #} and #: print #, ',', '}' and ':'; a run of # before [ is a style and
//     printed as it is.
//   - display-message (and the status line) pass the whole format through strftime(3)
//     first; % sequences turn into text this package cannot foresee (the server's locale
//     decides, and %p is empty in many).
package format

import (
	"fmt"
	"strings"
)

// Options say how tmux will expand a format.
type Options struct {
	// Strftime: tmux passes the format through strftime(3) before expanding it (as
	// display-message does), so Check refuses every %.
	Strftime bool
}

// Limits of Check.
const (
	// MaxDepth bounds how deeply #{…} may nest (tmux itself gives up at 100).
	MaxDepth = 32
	// MaxLoops bounds how deeply the loops S:, W:, P: (and L:, O:, V:) may nest: each
	// multiplies the work tmux does, which blocks every other client meanwhile.
	MaxLoops = 3
)

// A Hazard is what Check found: a place where expanding the format could run a shell
// command, expand text that is not the format's own as a format, make tmux read past the end
// of its text, or cost tmux too much.
type Hazard struct {
	Offset  int    // byte offset in the format (where an argument is rewritten first, the argument's start)
	What    string // what is there, e.g. "#(" or "the E: modifier"
	Why     string // what tmux would do with it
	Context string // the #{…} it is in, shortened; "" at the top level
}

func (h *Hazard) Error() string {
	in := ""
	if h.Context != "" {
		in = " (in " + h.Context + ")"
	}
	return fmt.Sprintf("%s at byte %d%s: %s", h.What, h.Offset+1, in, h.Why)
}

// Check reports the first hazard in f, or nil when expanding f can run no shell command and
// expands nothing but f's own text as a format.
func Check(f string, o Options) error {
	if i := strings.IndexByte(f, 0); i >= 0 {
		return &Hazard{Offset: i, What: "a NUL byte", Why: "tmux reads the format only up to it"}
	}
	if i := strings.IndexByte(f, '%'); o.Strftime && i >= 0 {
		return &Hazard{Offset: i, What: "%", Why: "tmux first passes this format through strftime(3), which turns % sequences into text that depends on the server's locale (some make #( out of nothing)"}
	}
	c := &checker{src: f, passed: map[string]bool{}}
	return c.text(f, 0, true, 0, 0)
}

// checker walks one format. Every text it checks is expanded by tmux as a format.
type checker struct {
	src string
	// passed holds the texts found safe (keyed with their depths): each is checked once
	// however many readings of the format reach it.
	passed map[string]bool
}

// where describes a text being checked: its offset in the format (exact when the text is a
// piece of the format, else the offset of the piece it was made from), its depth of #{…}
// and of loops.
type where struct {
	base  int
	exact bool
	depth int
	loops int
}

func (w where) at(i int) int {
	if w.exact {
		return w.base + i
	}
	return w.base
}

// text checks s as format_expand1 reads it.
func (c *checker) text(s string, base int, exact bool, depth, loops int) error {
	memo := fmt.Sprint(depth, ",", loops, ",", s)
	if c.passed[memo] {
		return nil
	}
	w := where{base: base, exact: exact, depth: depth, loops: loops}
	for i := 0; i < len(s); {
		if s[i] != '#' {
			i++
			continue
		}
		if i+1 == len(s) {
			return &Hazard{Offset: w.at(i), What: "a lone # at the end of a text", Why: "tmux 3.3a reads past the end of the text there; write ## for a #", Context: c.context(w.at(i))}
		}
		switch s[i+1] {
		case '(':
			return &Hazard{Offset: w.at(i), What: "#(", Why: "tmux runs what follows as a shell command (a shell job)", Context: c.context(w.at(i))}
		case '{':
			end := skip(s, i, "}")
			if end < 0 {
				return &Hazard{Offset: w.at(i), What: "#{ without its closing }", Why: "tmux stops expanding the format there", Context: c.context(w.at(i))}
			}
			if err := c.replace(s[i+2:end], w, i+2); err != nil {
				return err
			}
			i = end + 1
		case '#':
			// A run of # before [ is a style, printed as it is; else ## is one #.
			j := i + 2
			for j < len(s) && s[j] == '#' {
				j++
			}
			if j < len(s) && s[j] == '[' {
				i = j + 1
			} else {
				i += 2
			}
		default:
			// #, #} and #: print the character; #X is a variable's alias (#T is pane_title),
			// whose value is not expanded again; anything else prints as it is.
			i += 2
		}
	}
	c.passed[memo] = true
	return nil
}

// replace checks the key of a #{…}: key is s[at:] of the text w describes, up to the }.
func (c *checker) replace(key string, w where, at int) error {
	pos := w.at(at)
	if w.depth+1 > MaxDepth {
		return &Hazard{Offset: pos, What: "#{", Why: fmt.Sprintf("formats nest more than %d deep here", MaxDepth), Context: c.context(pos)}
	}
	in := where{base: w.base + at, exact: w.exact, depth: w.depth + 1, loops: w.loops}
	if !w.exact {
		in.base = w.base
	}
	mods, rest, ok, err := parseModifiers(key)
	if err != nil {
		err.Offset = in.at(err.Offset)
		err.Context = c.context(in.at(0))
		return err
	}
	if !ok {
		// No modifier list: a variable name, a conditional or an inner format, each
		// expanded (at most) once as the text it is.
		return c.text(key, in.base, in.exact, in.depth, in.loops)
	}
	for _, m := range mods {
		if m.name == "E" || m.name == "T" {
			return &Hazard{Offset: in.at(m.at), What: "the " + m.name + ": modifier", Why: "it expands the value as a format, and a value is not the format's own (a pane sets its own title, for one), so it can run a shell job", Context: c.context(in.at(0))}
		}
	}
	literal, loop, newer := false, false, false
	for _, m := range mods {
		if err := c.args(m, in); err != nil {
			return err
		}
		literal = literal || m.name == "l"
		loop = loop || isLoop(m.name)
		newer = newer || !m.core()
	}
	if newer {
		// A tmux without these modifiers finds no modifier list and reads the key whole.
		if err := c.text(key, in.base, in.exact, in.depth, in.loops); err != nil {
			return err
		}
	}
	if literal {
		return nil // l: prints the rest as it is
	}
	if loop {
		in.loops++
		if in.loops > MaxLoops {
			return &Hazard{Offset: pos, What: "a loop (S:, W:, P:, L:, O: or V:)", Why: fmt.Sprintf("loops nest more than %d deep here, and each multiplies the work tmux does while every client waits", MaxLoops), Context: c.context(pos)}
		}
	}
	return c.text(key[rest:], in.base+rest, in.exact, in.depth, in.loops)
}

// args checks the arguments of a modifier.
func (c *checker) args(m modifier, in where) error {
	for _, a := range m.args {
		if m.name == "s" {
			if i := strings.IndexByte(a.s, '#'); i >= 0 {
				return &Hazard{Offset: in.at(a.at + i), What: "# in an argument of s/…/…/", Why: "tmux expands these arguments twice, so what the first expansion yields (a variable's value, or the #( that ##( becomes) is expanded as a format", Context: c.context(in.at(0))}
			}
			continue
		}
		if err := c.text(a.s, in.base+a.at, in.exact, in.depth, in.loops); err != nil {
			return err
		}
		// tmux 3.4 and later unescape an argument (##( becomes #() before expanding it.
		if u := unescape(a.s); u != a.s {
			if err := c.text(u, in.at(a.at), false, in.depth, in.loops); err != nil {
				return err
			}
		}
	}
	return nil
}

// context quotes the #{…} that holds offset off of the format, shortened.
func (c *checker) context(off int) string {
	for before := min(off+1, len(c.src)); ; {
		start := strings.LastIndex(c.src[:before], "#{")
		if start < 0 {
			return ""
		}
		end := skip(c.src, start, "}")
		if end < 0 {
			end = len(c.src) - 1
		}
		if end < off {
			before = start // closed before off: an outer #{ may hold it
			continue
		}
		q := c.src[start : end+1]
		if len(q) > 60 {
			q = q[:57] + "…"
		}
		return q
	}
}

// skip is format_skip: the index of the first byte of s from from on that is in ends and not
// inside a #{…} or escaped by #; -1 when there is none, and readsPast when s ends in a # that
// tmux 3.3a takes for an escape, reading on past the end of s (into memory that may hold any
// text, which it then expands).
func skip(s string, from int, ends string) int {
	brackets := 0
	for i := from; i < len(s); i++ {
		if s[i] == '#' && i+1 < len(s) && s[i+1] == '{' {
			brackets++
		}
		if s[i] == '#' {
			if i+1 == len(s) {
				return readsPast
			}
			if strings.IndexByte(",#{}:", s[i+1]) >= 0 {
				i++
				continue
			}
		}
		if s[i] == '}' {
			brackets--
		}
		if strings.IndexByte(ends, s[i]) >= 0 && brackets == 0 {
			return i
		}
	}
	return -1
}

// readsPast is what skip returns for a text whose last # makes tmux 3.3a read past its end.
const readsPast = -2

// unescape is format_unescape of tmux 3.4 and later: outside #{…}, #, ##, #{ (no), #} and #:
// become the character they escape.
func unescape(s string) string {
	var b strings.Builder
	brackets := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '#' && i+1 < len(s) && s[i+1] == '{' {
			brackets++
		}
		if brackets == 0 && s[i] == '#' && i+1 < len(s) && strings.IndexByte(",#{}:", s[i+1]) >= 0 {
			i++
			b.WriteByte(s[i])
			continue
		}
		if s[i] == '}' {
			brackets--
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
