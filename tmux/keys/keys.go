// Package keys reads tmux key names: whether a word is one (named keys, modifiers, ^C), how
// tmux documents it, which look-alikes tmux would type as text instead, and how send_keys
// turns its keys argument into keys or literal text.
package keys

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/internal/hint"
)

// How Parse reads a keys argument (without literal):
//
//  1. Split keys on whitespace. When every token is a tmux key name — a named key (Enter,
//     Escape, Up, F1 …, case-insensitive as in tmux) or a modified key (C-c, M-x, C-M-a, S-Up,
//     ^C) — the tokens are sent as keys, in order ("C-c", "Escape", "Up Up Enter"). A single
//     plain character is text, never a key, so "a b" is typed as "a b".
//  2. Else, when every token is a key name or looks like one without being one (Shift+Tab,
//     Ctrl-C, C-, <Enter>, Esc, S-Tab) and at least one only looks like one, the call is refused
//     with the valid forms: tmux would have typed the look-alike as text.
//  3. Else, when the first or the last token is a key name spelled as tmux documents it
//     (Escape, Enter, Tab, BSpace, Up, F1, C-c, M-x, ^C: case included), keys and text are
//     mixed, as tmux's own send-keys reads its arguments: every token so spelled is a key, and
//     the words between keys are typed as text, their inner spaces kept ("Escape :q! Enter" is
//     Escape, the text ":q!", Enter). A look-alike among them is refused as in 2.
//  4. Else the whole string, whitespace included, is literal text (send-keys -l), so
//     "echo enter" types those ten characters and "docker compose up" is text.
//
// literal=true types anything as text.

// namedKeys are tmux's key names (tmux 3.2+ key-string.c), matched case-insensitively like tmux.
// Mouse, focus and paste pseudo-keys are left out: they are not keyboard input.
var namedKeys = func() map[string]string {
	names := []string{
		"F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12",
		"IC", "Insert", "DC", "Delete", "Home", "End", "NPage", "PageDown", "PgDn", "PPage", "PageUp", "PgUp",
		"Tab", "BTab", "Space", "BSpace", "Enter", "Escape", "Up", "Down", "Left", "Right",
		"KP/", "KP*", "KP-", "KP7", "KP8", "KP9", "KP+", "KP4", "KP5", "KP6", "KP1", "KP2", "KP3",
		"KPEnter", "KP0", "KP.",
	}
	m := make(map[string]string, len(names))
	for _, n := range names {
		m[strings.ToLower(n)] = n
	}
	return m
}()

// keyAliases are names people use for keys that tmux does not know, with the tmux name.
var keyAliases = map[string]string{
	"esc": "Escape", "return": "Enter", "ret": "Enter", "backspace": "BSpace", "bs": "BSpace",
	"del": "Delete", "ins": "Insert", "pagedn": "PageDown", "page_down": "PageDown", "page_up": "PageUp",
	"pageupkey": "PageUp", "arrowup": "Up", "arrowdown": "Down", "arrowleft": "Left", "arrowright": "Right",
	"uparrow": "Up", "downarrow": "Down", "leftarrow": "Left", "rightarrow": "Right", "spacebar": "Space",
	"shift-tab": "BTab", "shifttab": "BTab", "backtab": "BTab", "ctrl": "C-<key>", "control": "C-<key>",
	"shift": "S-<key>", "alt": "M-<key>", "meta": "M-<key>", "option": "M-<key>", "cmd": "(no tmux equivalent)",
	"f13": "(tmux knows F1 to F12)", "f14": "(tmux knows F1 to F12)", "f15": "(tmux knows F1 to F12)",
	"f16": "(tmux knows F1 to F12)", "f17": "(tmux knows F1 to F12)", "f18": "(tmux knows F1 to F12)",
	"f19": "(tmux knows F1 to F12)", "f20": "(tmux knows F1 to F12)",
}

// ValidForms is the refusal hint for look-alikes.
const ValidForms = "Valid key names (tmux spelling, case-insensitive): Enter, Escape, Tab, BTab (Shift+Tab), Space, BSpace (Backspace), " +
	"Up, Down, Left, Right, Home, End, PageUp, PageDown, Insert (IC), Delete (DC), F1 to F12, KP0 to KP9, KPEnter; " +
	"modifiers C- (Ctrl), M- (Alt/Meta) and S- (Shift, with named keys only) before a key or one character, e.g. C-c, M-x, C-M-a, S-Up, ^C. " +
	"Separate several keys with spaces (\"Up Up Enter\"); send control keys alone with enter=false; " +
	"pass literal=true to type the text as it is."

// IsName reports whether tok is a tmux key name that tmux sends as a key (not as text).
// plainChar reports a lone unmodified character, which tmux also accepts.
func IsName(tok string) (ok, plainChar bool) {
	if tok == "" {
		return false, false
	}
	if utf8.RuneCountInString(tok) == 1 {
		return true, true
	}
	rest, mods, caret := splitModifiers(tok)
	if _, named := namedKeys[strings.ToLower(rest)]; named {
		if mods["S"] && strings.EqualFold(rest, "Tab") {
			return false, false // tmux 3.3 types "S-Tab" as text; BTab is the key
		}
		return true, false
	}
	if mods == nil && !caret {
		return false, false
	}
	if utf8.RuneCountInString(rest) != 1 {
		return false, false
	}
	r, _ := utf8.DecodeRuneInString(rest)
	switch {
	case r >= utf8.RuneSelf:
		return false, false // tmux types C-é as text
	case mods["S"]:
		return false, false // S- with a character: tmux types it as text
	case caret && (r < 0x20 || r > 0x7e):
		return false, false
	}
	return true, false
}

// splitModifiers strips tmux's modifier prefixes: an optional leading ^ (Ctrl), then any run
// of C-, M-, S- (either case). mods is nil when there was no C-/M-/S- prefix.
func splitModifiers(tok string) (rest string, mods map[string]bool, caret bool) {
	rest = tok
	if len(rest) >= 2 && rest[0] == '^' {
		rest, caret = rest[1:], true
	}
	for len(rest) >= 2 && rest[1] == '-' {
		m := strings.ToUpper(rest[:1])
		if m != "C" && m != "M" && m != "S" {
			break
		}
		if mods == nil {
			mods = map[string]bool{}
		}
		mods[m] = true
		rest = rest[2:]
	}
	return rest, mods, caret
}

// Compiled on first use, as the server's other patterns (a start-up compiles none).
var (
	// bracketedRe: "<Enter>", "<C-c>", "[Esc]", "{TAB}".
	bracketedRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[<\[{]\s*([^<>\[\]{}\s]+)\s*[>\]}]$`) })
	// chainSepRe separates the parts of "Ctrl+Shift+x", "Shift-Tab", "C+c".
	chainSepRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s*[+-]\s*`) })
)

// modifierWords are the spellings of modifiers in a look-alike chain.
var modifierWords = map[string]string{
	"ctrl": "C-", "control": "C-", "ctl": "C-", "c": "C-",
	"alt": "M-", "meta": "M-", "option": "M-", "opt": "M-", "m": "M-",
	"shift": "S-", "s": "S-",
	"cmd": "", "command": "", "super": "", "win": "", "hyper": "",
}

// Lookalike reports whether tok looks like a key name without being one, with the tmux
// spelling to suggest ("" when there is none to offer).
func Lookalike(tok string) (bool, string) {
	if ok, _ := IsName(tok); ok {
		return false, ""
	}
	if s, ok := keyAliases[strings.ToLower(tok)]; ok {
		return true, s
	}
	if m := bracketedRe().FindStringSubmatch(tok); m != nil {
		inner := m[1]
		if ok, _ := IsName(inner); ok && utf8.RuneCountInString(inner) > 1 {
			return true, Canonical(inner)
		}
		return Lookalike(inner)
	}
	// A chain of modifiers ending in nothing, a key, an alias or one character: "C-", "S-Tab",
	// "Ctrl-C", "Shift+Tab", "Alt+F4", "C+c". "c-style" or "opt-in" stay text.
	parts := chainSepRe().Split(tok, -1)
	if len(parts) < 2 {
		return false, ""
	}
	for _, p := range parts[:len(parts)-1] {
		if _, ok := modifierWords[strings.ToLower(p)]; !ok {
			return false, ""
		}
	}
	last := parts[len(parts)-1]
	_, named := namedKeys[strings.ToLower(last)]
	_, alias := keyAliases[strings.ToLower(last)]
	if last != "" && !named && !alias && utf8.RuneCountInString(last) != 1 {
		return false, ""
	}
	return true, suggestModified(parts)
}

// Canonical spells a valid key name the way tmux documents it.
func Canonical(tok string) string {
	rest, mods, caret := splitModifiers(tok)
	if caret { // ^C is tmux's short form of C-c
		if mods == nil {
			mods = map[string]bool{}
		}
		mods["C"] = true
		if utf8.RuneCountInString(rest) == 1 {
			rest = strings.ToLower(rest)
		}
	}
	var b strings.Builder
	for _, m := range []string{"C", "M", "S"} {
		if mods[m] {
			b.WriteString(m + "-")
		}
	}
	if n, ok := namedKeys[strings.ToLower(rest)]; ok {
		b.WriteString(n)
	} else {
		b.WriteString(rest)
	}
	return b.String()
}

// suggestModified turns "Ctrl+Shift+x" style names into tmux's "C-S-x" when it can.
func suggestModified(parts []string) string {
	var mods []string
	for _, p := range parts[:len(parts)-1] {
		m := modifierWords[strings.ToLower(p)]
		if m == "" {
			return ""
		}
		if !slices.Contains(mods, m) {
			mods = append(mods, m)
		}
	}
	key := parts[len(parts)-1]
	if key == "" {
		return ""
	}
	if r, _ := utf8.DecodeRuneInString(key); utf8.RuneCountInString(key) == 1 && r >= utf8.RuneSelf {
		return ""
	}
	if n, ok := namedKeys[strings.ToLower(key)]; ok {
		key = n
	} else if a, ok := keyAliases[strings.ToLower(key)]; ok && !strings.ContainsAny(a, "<(") {
		key = a
	}
	slices.Sort(mods) // C-, M-, S-: tmux's documented order
	joined := strings.Join(mods, "")
	if joined == "S-" && strings.EqualFold(key, "Tab") {
		return "BTab"
	}
	if strings.Contains(joined, "S-") && utf8.RuneCountInString(key) == 1 {
		// Shift with a character is the character itself.
		joined = strings.ReplaceAll(joined, "S-", "")
		key = strings.ToUpper(key)
		if joined == "" {
			return key + " (as text)"
		}
	} else if utf8.RuneCountInString(key) == 1 && strings.Contains(joined, "C-") {
		key = strings.ToLower(key)
	}
	return joined + key
}

// Part is one step of a Plan: a key name (Key) or text typed literally (Text).
type Part struct {
	Key  string `json:"key,omitempty"`
	Text string `json:"text,omitempty"`
}

// Plan is how send_keys sends its keys argument: its parts, in order.
type Plan struct {
	Parts []Part
}

// IsKeys reports whether the plan sends only key names.
func (p Plan) IsKeys() bool {
	for _, pt := range p.Parts {
		if pt.Key == "" {
			return false
		}
	}
	return len(p.Parts) > 0
}

// Keys returns the key names of the plan, in order.
func (p Plan) Keys() []string {
	var out []string
	for _, pt := range p.Parts {
		if pt.Key != "" {
			out = append(out, pt.Key)
		}
	}
	return out
}

// Text returns the plan's text parts, joined.
func (p Plan) Text() string {
	var b strings.Builder
	for _, pt := range p.Parts {
		b.WriteString(pt.Text)
	}
	return b.String()
}

// EndsWithText reports whether the plan's last part is text (or the plan is empty): Enter
// follows text, never a key.
func (p Plan) EndsWithText() bool {
	return len(p.Parts) == 0 || p.Parts[len(p.Parts)-1].Key == ""
}

// textPlan types s as it is.
func textPlan(s string) Plan {
	if s == "" {
		return Plan{}
	}
	return Plan{Parts: []Part{{Text: s}}}
}

// Parse applies the rules above. literal forces text. A refusal is a *hint.Error.
func Parse(keys string, literal bool) (Plan, error) {
	if literal {
		return textPlan(keys), nil
	}
	toks := fields(keys)
	if len(toks) == 0 {
		return textPlan(keys), nil
	}
	allKeys, named := true, 0
	for _, t := range toks {
		ok, plain := IsName(t.s)
		if !ok {
			allKeys = false
			break
		}
		if !plain {
			named++
		}
	}
	// One plain character is text; several tokens must all be named keys.
	if allKeys && named == len(toks) {
		var p Plan
		for _, t := range toks {
			p.Parts = append(p.Parts, Part{Key: Canonical(t.s)})
		}
		return p, nil
	}
	if err := refuseLookalikes(toks, true); err != nil {
		return Plan{}, err
	}
	if Spelled(toks[0].s) || Spelled(toks[len(toks)-1].s) {
		return mixed(keys, toks)
	}
	return textPlan(keys), nil
}

// mixed reads keys and text mixed (rule 3): tokens spelled as key names are keys, the text
// between them is typed as it is, inner whitespace included.
func mixed(keys string, toks []token) (Plan, error) {
	if err := refuseLookalikes(toks, false); err != nil {
		return Plan{}, err
	}
	var p Plan
	from := -1 // start of the text run, -1 when none
	flush := func(end int) {
		if from >= 0 {
			p.Parts = append(p.Parts, Part{Text: keys[from:end]})
			from = -1
		}
	}
	lastEnd := 0
	for _, t := range toks {
		if Spelled(t.s) {
			flush(lastEnd)
			p.Parts = append(p.Parts, Part{Key: Canonical(t.s)})
		} else if from < 0 {
			from = t.at
		}
		lastEnd = t.at + len(t.s)
	}
	flush(lastEnd)
	return p, nil
}

// Spelled reports whether tok is a key name written as tmux documents it, case included
// (Escape, Enter, BSpace, F1, C-c, M-x, C-M-a, S-Up, ^C): what marks a string as keys and text
// mixed. "up" or "enter" in a sentence stays a word.
func Spelled(tok string) bool {
	ok, plain := IsName(tok)
	if !ok || plain {
		return false
	}
	if tok == Canonical(tok) {
		return true
	}
	// ^C: tmux's short form, with the letter in upper case.
	return len(tok) == 2 && tok[0] == '^' && tok[1] >= 'A' && tok[1] <= '_'
}

// token is a whitespace-separated word of keys and where it starts.
type token struct {
	s  string
	at int
}

// fields splits s on whitespace like strings.Fields, keeping where each word starts.
func fields(s string) []token {
	var out []token
	at := -1
	for i, r := range s {
		if unicode.IsSpace(r) {
			if at >= 0 {
				out = append(out, token{s[at:i], at})
				at = -1
			}
		} else if at < 0 {
			at = i
		}
	}
	if at >= 0 {
		out = append(out, token{s[at:], at})
	}
	return out
}

// isLowerWord reports whether s is only lower-case letters.
func isLowerWord(s string) bool {
	for _, r := range s {
		if !unicode.IsLower(r) {
			return false
		}
	}
	return true
}

// refuseLookalikes refuses the tokens that look like key names without being ones (rule 2):
// when only keys and look-alikes are there (only), or, for a mixed string, whenever one is.
func refuseLookalikes(toks []token, only bool) error {
	var bad []string
	for _, t := range toks {
		if ok, plain := IsName(t.s); ok && !plain {
			continue
		}
		look, sugg := Lookalike(t.s)
		if !look || (!only && isLowerWord(t.s)) {
			if only {
				return nil
			}
			continue // in a sentence, "return" or "alt" is a word
		}
		if sugg != "" {
			bad = append(bad, fmt.Sprintf("%q (use %s)", t.s, sugg))
		} else {
			bad = append(bad, fmt.Sprintf("%q", t.s))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	n := len(bad)
	if len(bad) > 5 {
		bad = append(bad[:5], fmt.Sprintf("and %d more", n-5))
	}
	for i, b := range bad {
		bad[i] = hint.Truncate(b, 80)
	}
	return hint.New(ValidForms, "%s %s not a tmux key name, and tmux would type it as text", strings.Join(bad, ", "), isAre(n))
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// Literal is the send-keys commands that type text into pane literally. LF and CR travel as the keys C-j and C-m (the same
// bytes), so the whole list stays one control-mode line.
func Literal(pane, text string) [][]string {
	var cmds [][]string
	for text != "" {
		i := strings.IndexAny(text, "\r\n")
		if i < 0 {
			i = len(text)
		}
		if i > 0 {
			cmds = append(cmds, []string{"send-keys", "-t", pane, "-l", "--", text[:i]})
		}
		if i == len(text) {
			break
		}
		key := "C-j"
		if text[i] == '\r' {
			key = "C-m"
		}
		cmds = append(cmds, []string{"send-keys", "-t", pane, key})
		text = text[i+1:]
	}
	return cmds
}
