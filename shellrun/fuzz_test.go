package shellrun

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// parseSeeds are pane outputs for FuzzParse.
var parseSeeds = []string{
	"",
	"<S>\r\nhello\r\n<E> 0 <D>\r\n$ ",
	"abc<E> 255 <D>",
	"<S>\n<E> 256 <D>\n<E> 1 <D>",
	"<S>\n<E> 0 <D><E> 0 <D>\n",
	"\x1b[?2004l\r\r\n<S>\x1b[0m\r\nx\x1b]0;t\x07\r\n<E> 7 <D>\x1b[0m",
	"<S>\r\n<ID>_E 1",
	"<ID>_S<ID>_E <ID>_D<ID>",
	"tmxffffffffffff_S\n<S>\ntmxffffffffffff_E 0 tmxffffffffffff_D\n<E> 9 <D>",
	"\x1b[",
	"\x1b]",
}

func FuzzParse(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add(mk(s), uint16(0))
	}
	files, _ := filepath.Glob("testdata/raw-*.out")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b, uint16(len(b)/2))
		}
	}
	f.Fuzz(func(t *testing.T, out []byte, cut uint16) {
		s := parse(out, tid)
		if s.Body == nil && len(out) > 0 {
			t.Fatalf("nil body")
		}
		if s.bodyStart < 0 || s.bodyStart > s.bodyEnd || s.bodyEnd > len(out) {
			t.Fatalf("bad span %d..%d of %d", s.bodyStart, s.bodyEnd, len(out))
		}
		if !bytes.Equal(s.Body, out[s.bodyStart:s.bodyEnd]) {
			t.Fatalf("Body is not out[%d:%d]", s.bodyStart, s.bodyEnd)
		}
		if s.Done {
			if s.Status < 0 || s.Status > 255 || s.End > len(out) || s.End <= s.endStart || s.endStart < s.bodyEnd {
				t.Fatalf("bad done parse %+v", s)
			}
			if st, end, ok := endMarkerAt(out, s.endStart, tid); !ok || st != s.Status || end != s.End {
				t.Fatalf("reported marker does not check out")
			}
		} else if s.End != 0 || s.Status != 0 {
			t.Fatalf("not done but End=%d Status=%d", s.End, s.Status)
		}
		// The body never holds a valid end marker (judged where it stands in
		// the output), and never our end marker followed by a line break.
		tok := []byte(tid + "_E ")
		for i := 0; ; {
			j := bytes.Index(s.Body[i:], tok)
			if j < 0 {
				break
			}
			if _, _, ok := endMarkerAt(out, s.bodyStart+i+j, tid); ok {
				t.Fatalf("body holds a valid end marker at %d: %q", i+j, s.Body)
			}
			i += j + 1
		}
		for st := 0; st < 256; st += 51 {
			m := tid + "_E " + strconv.Itoa(st) + " " + tid + "_D"
			if bytes.Contains(s.Body, []byte(m+"\n")) || bytes.Contains(s.Body, []byte(m+"\r")) {
				t.Fatalf("body holds %q", m)
			}
		}
		// A shorter input is never "more done", and its body is a prefix of
		// the final one as long as both found the same start line.
		n := int(cut) % (len(out) + 1)
		p := parse(out[:n], tid)
		if !p.Done && s.Done && p.Started == s.Started && p.bodyStart == s.bodyStart && !bytes.HasPrefix(s.Body, p.Body) {
			t.Fatalf("partial body %q is not a prefix of %q", p.Body, s.Body)
		}
		_ = Parse(out, NewID())
		_ = SourcingFailed(out, "/tmp/x")
		_, _ = ScrubForeign(strings.Split(string(out), "\n"), tid)
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
		for _, fp := range []struct {
			fam  Family
			prog string
		}{{POSIX, ""}, {POSIX, "bash"}, {Fish, ""}} {
			fam := fp.fam
			script, typed, err := ScriptFor(fam, fp.prog, tid, cmd, "/tmp/tm1/script")
			line, ierr := InlineFor(fam, fp.prog, tid, cmd)
			if (err == nil) != (ierr == nil) {
				t.Fatalf("Script err %v, Inline err %v", err, ierr)
			}
			if err != nil {
				if strings.IndexByte(cmd, 0) < 0 && strings.TrimSpace(want) != "" && !strings.Contains(want, tid) {
					t.Fatalf("unexpected error %v", err)
				}
				continue
			}
			for _, s := range []string{script, typed, line} {
				if strings.Contains(s, tid) {
					t.Fatalf("the id leaks into %q", s)
				}
			}
			for i := 0; i < len(line); i++ {
				if c := line[i]; c < 0x20 || c > 0x7e || c == '!' {
					t.Fatalf("inline line holds %#x", c)
				}
			}
			if got, ok := posixOrFishCommand(fam, script); !ok || got != want {
				t.Fatalf("%v script carries %q, want %q", fam, got, want)
			}
			if got, ok := inlineCommand(fam, line); !ok || got != want {
				t.Fatalf("%v inline carries %q, want %q", fam, got, want)
			}
		}
	})
}

// posixOrFishCommand recovers the command from a script by unquoting the
// word after "\neval " (POSIX) or after " -c " and then "builtin eval " (fish).
func posixOrFishCommand(f Family, script string) (string, bool) {
	if f == POSIX {
		i := strings.Index(script, "\neval ")
		if i < 0 {
			return "", false
		}
		w, ok := unquoteWord(script[i+len("\neval "):], false)
		return w, ok
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

// inlineCommand recovers the command from an inline line by decoding its
// printf %b argument.
func inlineCommand(f Family, line string) (string, bool) {
	i := strings.Index(line, `printf '%b' '`)
	if i < 0 {
		return "", false
	}
	rest := line[i+len(`printf '%b' '`):]
	j := strings.IndexByte(rest, '\'')
	if j < 0 {
		return "", false
	}
	dec, ok := decodePercentB(rest[:j])
	if !ok {
		return "", false
	}
	if f == Fish {
		if !strings.HasPrefix(dec, "builtin eval ") {
			return "", false
		}
		return unquoteWord(strings.TrimPrefix(dec, "builtin eval "), true)
	}
	return dec, true
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

// decodePercentB decodes the \0ooo escapes percentB writes.
func decodePercentB(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+4 >= len(s) {
			return "", false
		}
		if s[i+1] != '0' {
			return "", false
		}
		v := 0
		for _, c := range s[i+2 : i+5] {
			if c < '0' || c > '7' {
				return "", false
			}
			v = v*8 + int(c-'0')
		}
		b.WriteByte(byte(v))
		i += 4
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
