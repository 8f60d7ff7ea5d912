package shellrun

import "strings"

// posixQuote single-quotes s for a POSIX shell; each quote in s is written as
// close-quote, backslash, quote, open-quote. The closing
// quote of each run is always followed by a backslash or by the end of the
// word, never by another quote, so zsh's RC_QUOTES cannot merge two quotes.
func posixQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// fishQuote single-quotes s for fish, where \\ and \' are the only escapes
// inside single quotes.
func fishQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`)
	return "'" + r.Replace(s) + "'"
}

// octalFormat renders every byte of s as a three-digit octal escape (\ooo),
// for use inside a printf FORMAT string: printf decodes it at run time, so
// the text of s never appears literally in what the shell reads or echoes.
func octalFormat(s string) string {
	var b strings.Builder
	b.Grow(4 * len(s))
	for i := 0; i < len(s); i++ {
		writeOctal(&b, '\\', s[i])
	}
	return b.String()
}

// percentB encodes s as the argument of printf '%b' inside single quotes,
// leaving only printable ASCII: bytes outside 0x20..0x7e, the backslash, the
// single quote and "!" (bash and zsh history expansion sees through nested
// quotes) become \0ooo, which %b decodes in every shell we frame for.
func percentB(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c <= 0x7e && c != '\\' && c != '\'' && c != '!' {
			b.WriteByte(c)
			continue
		}
		b.WriteString(`\0`)
		writeOctal(&b, 0, c)
	}
	return b.String()
}

// writeOctal writes c as three octal digits, preceded by lead unless it is 0.
func writeOctal(b *strings.Builder, lead byte, c byte) {
	if lead != 0 {
		b.WriteByte(lead)
	}
	b.WriteByte('0' + c>>6)
	b.WriteByte('0' + c>>3&7)
	b.WriteByte('0' + c&7)
}

// dollarQuote writes s as a $'...' word of printable ASCII: other bytes, the backslash, the
// single quote and "!" become \ooo octal escapes.
func dollarQuote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/4 + 3)
	b.WriteString("$'")
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c <= 0x7e && c != '\\' && c != '\'' && c != '!' {
			b.WriteByte(c)
			continue
		}
		writeOctal(&b, '\\', c)
	}
	b.WriteByte('\'')
	return b.String()
}
