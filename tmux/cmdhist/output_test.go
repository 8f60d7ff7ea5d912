package cmdhist

import "testing"

func TestTrimPromptSP(t *testing.T) {
	pad := "                                       " // 39 spaces: a 40-column pane
	mark := "\x1b[1m\x1b[7m%\x1b[27m\x1b[1m\x1b[0m"
	for _, tc := range []struct{ in, want string }{
		{"no nl" + mark + pad + "\r \r", "no nl"},
		{"x\r\n" + mark + pad + "\r \r", "x\r\n"},
		{"x\r\n" + pad + "\r \r", "x\r\n"},   // PROMPT_EOL_MARK=''
		{"no nl⏎" + pad + "\r \r", "no nl⏎"}, // a mark without SGR stays
		{"a\r \r", "a\r \r"},                 // no pad: not zsh's
		{"out\r\n", "out\r\n"},
		{"\x1b[31mred" + mark + pad + "\r \r", "\x1b[31mred"},
	} {
		if got := string(trimPromptSP([]byte(tc.in))); got != tc.want {
			t.Errorf("trimPromptSP(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
