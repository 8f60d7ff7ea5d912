package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"golang.org/x/sys/unix"
)

// Reading and checking the arguments that many tools share: optional values, names, lines,
// sizes, directories and text to type. A tool's own checks stay beside its handler.

// socketNameRe is what a tmux -L name may be: no path separators, nothing tmux would mangle.
var socketNameRe = lazyRegexp(`^[A-Za-z0-9_.@+=-]{1,100}$`)

// lazyRegexp compiles pattern on first use. Compiling the server's patterns at start-up cost
// about 3 ms of it: bounded repeats such as {1,128} compile to large programs.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

// Index is a window index argument, "2" or 2: results give indexes as numbers and libtmux's
// servers take them as strings, so an agent passes either. A string is checked where it is
// used (parseIndex, by the argument's name); a number must be an index already.
type Index string

// UnmarshalJSON takes a JSON string, or a JSON number that is a window index (0 to 999999999,
// plain digits): another number is refused here, by the argument's name, before any check of
// the tool's own could speak first.
func (x *Index) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var v string
		err := json.Unmarshal(b, &v)
		*x = Index(v)
		return err
	}
	if _, ok := parseIndex(string(b)); !ok {
		return &json.UnmarshalTypeError{Value: "number " + string(b), Type: reflect.TypeFor[Index]()}
	}
	*x = Index(b)
	return nil
}

// argTypeSchemas are the input schemas of argument types whose Go type does not say them.
var argTypeSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[Index](): {Types: []string{"string", "integer"}},
}

// index is an optional Index argument as a string, for parseIndex and messages.
func index(p *Index) string {
	if p == nil {
		return ""
	}
	return string(*p)
}

// str is an optional string argument's value, "" when absent.
func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// deref is an optional number argument's value, 0 when absent.
func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// checkName checks an optional name argument: non-empty, one line of at most 256 bytes.
func checkName(what string, p *string) error {
	if p == nil {
		return nil
	}
	if *p == "" {
		return fail("Give a non-empty name, or omit it to let tmux choose.", "%s is empty", what)
	}
	return checkLine(what, *p, 256)
}

// checkSessionName checks a name a session will get.
func checkSessionName(p *string) error {
	if err := checkName("session_name", p); err != nil {
		return err
	}
	if p != nil && strings.ContainsAny(*p, ":.") {
		return fail("tmux uses ':' and '.' in targets; choose a name without them.", "session_name %q contains ':' or '.'", truncate(*p, 80))
	}
	return checkStored("session_name", p)
}

// checkWindowName checks a name a window will get.
func checkWindowName(what string, p *string) error {
	if err := checkName(what, p); err != nil {
		return err
	}
	return checkStored(what, p)
}

// checkStored refuses a session or window name that tmux would not keep as it is given:
// session_check_name and window_set_name pass names through utf8_stravis, which writes a
// control character as \ooo (or \t), a backslash as \\ and a $ before a letter, _ or { as \$.
func checkStored(what string, p *string) error {
	if p == nil {
		return nil
	}
	s := *p
	for i := 0; i < len(s); i++ {
		var why string
		switch c := s[i]; {
		case c < ' ' || c == 0x7f:
			why = fmt.Sprintf("a control character (byte 0x%02x), which tmux stores as a \\ escape", c)
		case c == '\\':
			why = `a backslash, which tmux stores doubled (\\)`
		case c == '$' && i+1 < len(s) && (isLetter(s[i+1]) || s[i+1] == '_' || s[i+1] == '{'):
			why = fmt.Sprintf("%q, which tmux stores as \\%s (a $ before a letter, _ or {)", s[i:i+2], s[i:i+2])
		default:
			continue
		}
		return fail("Choose a name without it: tmux would store another name, and tools looking the name up would not find it.",
			"%s %q holds %s", what, truncate(s, 80), why)
	}
	return nil
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// checkDir refuses a start directory that tmux could not start a pane in: tmux falls back to
// another directory without a word when it cannot enter it.
func checkDir(p *string) error {
	if p == nil {
		return nil
	}
	d := *p
	switch {
	case d == "" || strings.ContainsAny(d, "\x00\n"):
		return fail("Give the absolute path of an existing directory.", "start_directory is empty or contains a NUL byte or line break")
	case !filepath.IsAbs(d):
		return fail("Give an absolute path, e.g. /home/me/project (~ is not expanded).", "start_directory %q is a relative path; tmux would resolve it against its own working directory", truncate(d, 200))
	}
	fi, err := os.Stat(d)
	switch {
	case err != nil && errors.Is(err, fs.ErrNotExist):
		return fail("Create the directory first, or give an existing one.", "start_directory %s does not exist", truncate(d, 200))
	case err != nil:
		return fail("Give a directory this server can reach.", "start_directory %s cannot be read: %v", truncate(d, 200), errors.Unwrap(err))
	case !fi.IsDir():
		return fail("Give the directory itself, e.g. "+truncate(filepath.Dir(d), 200)+".", "start_directory %s is a file, not a directory", truncate(d, 200))
	case unix.Access(d, unix.X_OK) != nil:
		return fail("Give a directory you may enter.", "start_directory %s cannot be entered (no search permission)", truncate(d, 200))
	}
	return nil
}

// checkLine refuses text with NUL bytes or line breaks, or longer than max bytes.
func checkLine(what, v string, max int) error {
	switch {
	case strings.ContainsAny(v, "\x00\n\r"):
		return fail("Use a single line without control characters.", "%s contains a NUL byte or a line break", what)
	case len(v) > max:
		return fail(fmt.Sprintf("Use at most %d bytes.", max), "%s is %d bytes long", what, len(v))
	}
	return nil
}

func checkSize(what string, v *int) error {
	if v != nil && (*v < 1 || *v > 10000) {
		return fail("Give a size from 1 to 10000 cells.", "%s must be between 1 and 10000, got %d", what, *v)
	}
	return nil
}

// checkText refuses what a terminal cannot receive or a call should not carry.
func checkInputText(arg, s string, limit int, hint string) error {
	if len(s) > limit {
		return fail(hint, "%s is %d bytes long; at most %d are allowed", arg, len(s), limit)
	}
	if i := strings.IndexByte(s, 0); i >= 0 {
		return fail("Remove the NUL bytes: tmux cannot deliver them as typed input.", "%s contains a NUL byte (at byte %d)", arg, i)
	}
	return nil
}
