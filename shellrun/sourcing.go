package shellrun

import (
	"bytes"
	"strings"
)

// sourcingPhrases are the (lowercased) words shells use when "." or source
// cannot read a file: dash/ash "cannot open"/"can't open", bash/mksh "No
// such file or directory", zsh "no such file or directory: <path>", ksh93
// "cannot open [...]", fish "Error encountered while sourcing file", plus
// permission and file-type failures.
var sourcingPhrases = []string{
	"no such file",
	"cannot open",
	"can't open",
	"not found",
	"permission denied",
	"error encountered",
	"is a directory",
	"is not a file",
	"cannot access",
	"can't access",
}

// SourcingFailed reports whether out shows the pane's shell failing to read
// scriptPath: a line naming the path together with an error phrase. That
// means the shell runs elsewhere (ssh, a container, another user) and the
// wrapper should be typed with Inline instead.
//
// The occurrences of the path are removed before the phrases are looked for,
// so the echo of the typed line and a path that itself contains such words
// do not count. The phrases are the shells' English messages; under another
// message locale only the absence of the start marker tells.
func SourcingFailed(out []byte, scriptPath string) bool {
	if scriptPath == "" {
		return false
	}
	path := []byte(scriptPath)
	for len(out) > 0 {
		line := out
		if i := bytes.IndexByte(out, '\n'); i >= 0 {
			line, out = out[:i], out[i+1:]
		} else {
			out = nil
		}
		if !bytes.Contains(line, path) {
			continue
		}
		rest := strings.ToLower(string(bytes.ReplaceAll(stripEscapes(line), path, nil)))
		for _, p := range sourcingPhrases {
			if strings.Contains(rest, p) {
				return true
			}
		}
	}
	return false
}

// stripEscapes returns b without terminal escape sequences.
func stripEscapes(b []byte) []byte {
	if bytes.IndexByte(b, 0x1b) < 0 {
		return b
	}
	r := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		if b[i] == 0x1b {
			i += escapeLen(b[i:])
			continue
		}
		r = append(r, b[i])
		i++
	}
	return r
}
