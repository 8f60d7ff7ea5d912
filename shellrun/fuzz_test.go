package shellrun

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// parseSeeds are pane outputs for FuzzParse (mk placeholders).
var parseSeeds = []string{
	"",
	"<S>\r\nhello\r\n<E:0>$ ",
	"abc<E:255>",
	"<S>\n<E:256>\n<E:1>",
	"<S>\n<E:0><E:0>\n",
	"\x1b[?2004l\r\r\n<S>\x1b[0m\r\nx\x1b]0;t\x07\r\n<E:7>\x1b[0m",
	"<S>\r\n\x1b]6973;<ID>;E;1",
	"<F:S><S>x<F:E;0><E:9>",
	"<X:function builtin>",
	"\x1b[",
	"\x1b]",
}

func FuzzParse(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add(mk(s), uint16(0))
	}
	f.Fuzz(func(t *testing.T, out []byte, cut uint16) {
		p := Parse(out, tid)
		if p.Body == nil && len(out) > 0 && p.Failed == "" {
			t.Fatalf("nil body")
		}
		if p.Done {
			if p.Status < 0 || p.Status > 255 || p.End > len(out) || p.End <= 0 {
				t.Fatalf("bad done parse %+v", p)
			}
		} else if p.Status != 0 {
			t.Fatalf("not done but Status=%d", p.Status)
		}
		// The body never holds a complete marker of our id.
		for from := 0; ; {
			m, ok := nextMarker(p.Body, from)
			if !ok {
				break
			}
			if m.ID == tid && m.Kind == EndMarker {
				t.Fatalf("body holds our end marker: %q", p.Body)
			}
			from = m.End
		}
		// A shorter input is never "more done", and its body is a prefix of the final one
		// as long as both found the same start.
		n := int(cut) % (len(out) + 1)
		q := Parse(out[:n], tid)
		if q.Done && !p.Done {
			t.Fatalf("prefix %d is done, the whole is not", n)
		}
		if !q.Done && p.Done && q.Started == p.Started && !bytes.HasPrefix(p.Body, q.Body) && bytes.Count(out[:n], []byte(oscPrefix+tid+";S")) == bytes.Count(out, []byte(oscPrefix+tid+";S")) {
			t.Fatalf("partial body %q is not a prefix of %q", q.Body, p.Body)
		}
		_ = Parse(out, NewID())
		_ = SourcingFailed(out, "/tmp/x")
	})
}

// scriptSeeds are commands for FuzzScript and for the round trip in sh.
var scriptSeeds = []string{
	"true",
	"echo 'it'\\''s' \"q\" `b` $(c)",
	"a\nb\r\nc\rd",
	"cat <<'EOF'\n$x\nEOF",
	"echo hi # ) } ' \"",
	"echo a\\",
	"'''",
	"\"",
	"\t\x01\x1b\x7f\xff é 日本",
	"!!",
	"%b %s \\0101 \\c",
	"printf '\\164\\155\\170'",
}

func FuzzScript(f *testing.F) {
	for _, s := range scriptSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		want := normalize(cmd)
		for _, sh := range []Shell{Sh, Bash, Zsh, Dash, Ksh, FishShell} {
			script, err := Script(sh, tid, cmd, "/tmp/tm1/script", Options{History: true, Redraw: &Redraw{Up: 1, Col: 2}})
			line, ierr := Inline(sh, tid, cmd)
			if (err == nil) != (ierr == nil) {
				t.Fatalf("Script err %v, Inline err %v", err, ierr)
			}
			if err != nil {
				if strings.IndexByte(cmd, 0) < 0 && strings.TrimSpace(want) != "" && !strings.Contains(want, tid) {
					t.Fatalf("unexpected error %v", err)
				}
				continue
			}
			for _, s := range []string{script, Line(sh, "/tmp/tm1/script"), line} {
				if strings.Contains(s, tid) {
					t.Fatalf("the id leaks into %q", s)
				}
			}
			for i := 0; i < len(line); i++ {
				if c := line[i]; c < 0x20 || c > 0x7e || c == '!' {
					t.Fatalf("inline line holds %#x", c)
				}
			}
			if got, ok := scriptCommand(sh, script); !ok || got != want {
				t.Fatalf("%v script carries %q, want %q", sh, got, want)
			}
			if got, ok := inlineCommand(sh, line); !ok || got != want {
				t.Fatalf("%v inline carries %q, want %q", sh, got, want)
			}
		}
	})
}

// scriptCommand recovers the command from a script by unquoting the eval argument and
// dropping the prelude (POSIX), or the word after " -c " and then "builtin eval " (fish).
func scriptCommand(sh Shell, script string) (string, bool) {
	if sh != FishShell {
		d := dialectOf(sh)
		tok := "\n" + d.sp("eval") + " "
		i := strings.Index(script, tok)
		if i < 0 {
			return "", false
		}
		w, ok := unquoteWord(script[i+len(tok):], false)
		// The prelude also removes the redraw's row count where the wrapper keeps one.
		for _, up := range []int{0, 1} {
			pre := posixFrame{d: d, up: up}.evalPrefix()
			if ok && strings.HasPrefix(w, pre) {
				return strings.TrimPrefix(w, pre), true
			}
		}
		return "", false
	}
	i := strings.Index(script, "' -c ")
	if i < 0 {
		return "", false
	}
	w, ok := unquoteWord(script[i+len("' -c "):], true)
	if !ok || !strings.HasPrefix(w, "builtin eval ") {
		return "", false
	}
	return unquoteWord(strings.TrimPrefix(w, "builtin eval "), true)
}

// inlineCommand recovers the command from an inline line by decoding its $'...' eval
// argument, or its printf %b argument (POSIX: and dropping the prelude).
func inlineCommand(sh Shell, line string) (string, bool) {
	var dec string
	if d := dialectOf(sh); sh != FishShell && d.dollarQuote {
		tok := d.sp("eval") + " $'"
		i := strings.Index(line, tok)
		if i < 0 {
			return "", false
		}
		rest := line[i+len(tok):]
		j := strings.IndexByte(rest, '\'')
		if j < 0 {
			return "", false
		}
		var ok bool
		if dec, ok = decodeOctal(rest[:j], `\`); !ok {
			return "", false
		}
	} else {
		i := strings.Index(line, `printf '%b' '`)
		if i < 0 {
			return "", false
		}
		rest := line[i+len(`printf '%b' '`):]
		j := strings.IndexByte(rest, '\'')
		if j < 0 {
			return "", false
		}
		var ok bool
		if dec, ok = decodeOctal(rest[:j], `\0`); !ok {
			return "", false
		}
	}
	if sh == FishShell {
		if !strings.HasPrefix(dec, "builtin eval ") {
			return "", false
		}
		return unquoteWord(strings.TrimPrefix(dec, "builtin eval "), true)
	}
	pre := posixFrame{d: dialectOf(sh)}.evalPrefix()
	if !strings.HasPrefix(dec, pre) {
		return "", false
	}
	return strings.TrimPrefix(dec, pre), true
}

// unquoteWord reads one shell word made of single-quoted runs and backslash
// escapes (as posixQuote and fishQuote write them) and returns its value.
func unquoteWord(s string, fish bool) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch s[i] {
		case '\'':
			i++
			for {
				if i >= len(s) {
					return "", false
				}
				c := s[i]
				if c == '\'' {
					i++
					break
				}
				if fish && c == '\\' && i+1 < len(s) && (s[i+1] == '\\' || s[i+1] == '\'') {
					b.WriteByte(s[i+1])
					i += 2
					continue
				}
				b.WriteByte(c)
				i++
			}
		case '\\':
			if i+1 >= len(s) {
				return "", false
			}
			b.WriteByte(s[i+1])
			i += 2
		case '\n', ' ', ';', ')':
			return b.String(), true
		default:
			return "", false
		}
	}
	return b.String(), true
}

// decodeOctal decodes the escapes percentB (lead "\\0") and dollarQuote (lead "\\") write:
// lead then three octal digits.
func decodeOctal(s, lead string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if !strings.HasPrefix(s[i:], lead) || i+len(lead)+3 > len(s) {
			return "", false
		}
		v := 0
		for _, c := range s[i+len(lead) : i+len(lead)+3] {
			if c < '0' || c > '7' {
				return "", false
			}
			v = v*8 + int(c-'0')
		}
		b.WriteByte(byte(v))
		i += len(lead) + 2
	}
	return b.String(), true
}

// TestScriptSeedsInSh runs the fuzz seeds (made to end in a known status)
// through sh in both forms: the status round-trips and the body is the
// command's output.
func TestScriptSeedsInSh(t *testing.T) {
	sh := posixShells[0]
	need(t, sh)
	for i, seed := range scriptSeeds {
		if strings.Count(seed, "'")%2 == 1 || strings.Count(seed, "\"")%2 == 1 || strings.HasSuffix(seed, "\\") {
			continue // would not parse: the status is the shell's syntax error
		}
		status := 17 + i
		cmd := seed + " >/dev/null 2>&1\nexit " + strconv.Itoa(status)
		if strings.Contains(seed, "<<") {
			cmd = seed + "\nexit " + strconv.Itoa(status) // the here-document body follows the redirect
		}
		for _, mode := range []runMode{viaScript, viaInline} {
			r := frame(t, sh, mode, "", cmd, false)
			if !r.parsed.Done || r.parsed.Status != status {
				t.Errorf("seed %q (%s): Done=%v Status=%d, want %d; output:\n%s", seed, mode, r.parsed.Done, r.parsed.Status, status, r.out)
			}
		}
	}
}
