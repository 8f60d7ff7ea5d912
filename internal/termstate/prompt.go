package termstate

import (
	"regexp"
	"strings"
)

// secretWord is a word that names a secret in a prompt.
var secretWord = regexp.MustCompile(`(?i)\b(password|passphrase|passcode|pin|otp|secret|token|api[ _-]?key|access key)\b`)

// inputNote is what a prompt library shows after its question for masked input: "[hidden]",
// "(input is masked)".
var inputNote = regexp.MustCompile(`\s*[\[(][^\[\]()]*[\])]$`)

// SecretPrompt reports whether line, the last one a program printed before it waited for
// keys, asks for a secret: "Password: ", "Enter passphrase for key 'x':", "? API token
// [input is masked]". A program that reads keys one at a time with echo off (fish's read -s,
// the prompt libraries of Node and Go command-line tools, which mask what is typed with
// stars or show nothing) says no more than that of whether what is typed is shown; the
// terminal's mode is the same as a line editor's.
func SecretPrompt(line string) bool {
	line = strings.TrimRight(strings.TrimSpace(line), "*•●·")
	if len(line) > 160 || !secretWord.MatchString(line) {
		return false
	}
	line = strings.TrimSpace(inputNote.ReplaceAllString(line, ""))
	return strings.HasSuffix(line, ":") || strings.HasSuffix(line, "?") || strings.HasPrefix(line, "? ")
}

// SecretAsked reports whether a program whose terminal is in mode m, its last line prompt,
// reads a secret it does not show: keys read one at a time with echo off after a prompt
// that asks for one (SecretPrompt). Hidden input in canonical mode is Hidden's.
func (m Mode) SecretAsked(prompt string) bool {
	return m.Raw() && !m.Echo && SecretPrompt(prompt)
}
