package shellrun

import (
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrNUL means the command contains a NUL byte, which no shell can carry.
	ErrNUL = errors.New("shellrun: command contains a NUL byte")
	// ErrEmpty means the command is empty or only white space.
	ErrEmpty = errors.New("shellrun: command is empty")
	// ErrBadID means the run id does not have the shape NewID mints.
	ErrBadID = errors.New("shellrun: malformed run id")
	// ErrBadShell means the shell is not one of the Shell constants.
	ErrBadShell = errors.New("shellrun: unknown shell")
	// ErrBadPath means the script path is unusable: not absolute, holding a
	// control character, or holding the run id.
	ErrBadPath = errors.New("shellrun: unusable script path")
	// ErrIDInCommand means the command text contains the run id, so the
	// framing could not keep the literal id out of what is typed or written.
	ErrIDInCommand = errors.New("shellrun: command contains the run id")
)

// Options are the choices a caller makes about one run.
type Options struct {
	// History records the command itself in the shell's history, as if a person had typed
	// it (bash, zsh, ksh93, mksh); without it the command is kept out. Either way the typed
	// line is removed from the history where the shell allows (see doc.go).
	History bool
	// Redraw, when set, puts the command where the typed line was on the screen.
	Redraw *Redraw
}

// Script returns the wrapper script for command, to be written to scriptPath (mode 0600, in
// a directory of mode 0700) and run by typing Line(sh, scriptPath) and Enter. The script does
// not remove its file: the caller removes it once the start marker shows the shell has it
// open. The bash wrapper writes over its file before that, once bash has read it.
//
// scriptPath must be absolute (a relative name would make "." search PATH), must not contain
// control characters, and must not contain the run id.
func Script(sh Shell, id, command, scriptPath string, o Options) (string, error) {
	cmd, err := prepare(sh, id, command)
	if err != nil {
		return "", err
	}
	if err := checkPath(scriptPath, id); err != nil {
		return "", err
	}
	if sh == FishShell {
		return render(fishFrame(id, fishStart(o.Redraw, cmd, scriptPath, id), fishQuote(fishChild(cmd)), true), false), nil
	}
	f := posixFrame{d: dialectOf(sh), id: id, cmd: cmd, history: o.History,
		path: scriptPath, typed: Line(sh, scriptPath)}
	if o.Redraw != nil {
		f.redraw, f.up, f.echo = o.Redraw.liftFormat(cmd), o.Redraw.Up, o.Redraw.Echo
	}
	f.nested = !f.d.single || needsNested(cmd)
	return render(f.statements(), false), nil
}

// Inline returns the whole wrapper as one physical line to type into the pane (send-keys -l,
// then Enter), for when the pane's shell cannot read a script file (it runs as another user,
// or in a container). It starts with a space.
//
// The command travels octal-encoded in a printf %b argument, so the line holds only
// printable ASCII: no line break, no tab (which would trigger completion), no control
// character, no "!" (history expansion) and no literal run id. Its length grows with the
// command (up to 5 bytes per byte that needs encoding, 1 otherwise, plus about 1,500 bytes of
// framing). A shell without a line editor (dash) reads a terminal line in canonical mode,
// which holds at most 4095 bytes, so keep inline commands well below ~2 KiB for those shells.
// History and Redraw are not applied inline.
func Inline(sh Shell, id, command string) (string, error) {
	cmd, err := prepare(sh, id, command)
	if err != nil {
		return "", err
	}
	if sh == FishShell {
		arg := "(builtin printf '%b' '" + percentB(fishChild(cmd)) + "' | builtin string collect -N)"
		return " " + render(fishFrame(id, fishStart(nil, "", "", id), arg, false), true), nil
	}
	f := posixFrame{d: dialectOf(sh), id: id, cmd: cmd, inline: true}
	f.nested = !f.d.single || needsNested(cmd) || f.d.xtraceBound // mksh: see posixFrame.statements
	return " " + xtraceBack(f.d) + render(f.statements(), true), nil
}

// xtraceBack is what Inline types before its subshell where the typed line turned tracing,
// errexit or verbose off (Line) and the shell then failed to read the script: they go back on
// as the line noted (the inline line was read whole, so verbose echoes nothing of it), and the
// variables that noted them are removed (only when the line ran; in bash, when it did, POSIX
// mode makes set and unset win over functions, and goes off last).
func xtraceBack(d dialect) string {
	set, unset := d.sp("set"), d.sp("unset")
	back := func(v string) string {
		return "case $" + v + " in *e*) " + set + " -e;; esac; case $" + v + " in *v*) " + set + " -v;; esac; "
	}
	switch {
	case d.zsh:
		on := func(letter, set string) string {
			return "case $" + zshLineOpts + " in *" + letter + "*) " + set + ";; esac; "
		}
		return "{ case ${" + zshLineOpts + "+s} in s) " + on("e", "options[errexit]=on") + on("v", "options[verbose]=on") +
			on("x", `\builtin \set -x`) + `\builtin \unset ` + zshLineOpts + ";; esac; } 2>/dev/null; "
	case d.bash:
		return "{ case ${" + varOpts + "+s} in s) " + back(varOpts) + "case $" + varOpts + " in *x*) " + set + " -x;; esac; " +
			(posixFrame{d: d}).posixOff(varOpts) + ";; esac; } 2>/dev/null; "
	case d.typedSave:
		return "{ case ${" + varOpts + "+s} in s) " + back(varOpts) + "case $" + varOpts + " in *x*) " + set + " -x;; esac; " +
			unset + " " + varOpts + ";; esac; } 2>/dev/null; "
	case d.caseSave:
		// Not in a group: mksh would trace the shell to its /dev/null from then on.
		return "case ${" + varLineOpts + "+s} in s) " + back(varLineOpts) + unset + " " + varLineOpts + ";; esac; "
	}
	return ""
}

// prepare validates the arguments and normalises the command: CRLF and lone CR become LF and
// trailing line breaks are dropped (they mean nothing to eval, and dropping them makes Script
// and Inline agree on a trailing backslash).
func prepare(sh Shell, id, command string) (string, error) {
	if sh < Sh || sh > FishShell {
		return "", fmt.Errorf("%w: %d", ErrBadShell, int(sh))
	}
	if !ValidID(id) {
		return "", fmt.Errorf("%w: %q", ErrBadID, id)
	}
	if strings.IndexByte(command, 0) >= 0 {
		return "", ErrNUL
	}
	cmd := normalize(command)
	if strings.TrimSpace(cmd) == "" {
		return "", ErrEmpty
	}
	if strings.Contains(cmd, id) {
		return "", ErrIDInCommand
	}
	return cmd, nil
}

// normalize turns CRLF and lone CR into LF and trims trailing LFs.
func normalize(s string) string {
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	return strings.TrimRight(s, "\n")
}

func checkPath(p, id string) error {
	if !strings.HasPrefix(p, "/") {
		return fmt.Errorf("%w: %q is not absolute", ErrBadPath, p)
	}
	for i := 0; i < len(p); i++ {
		if p[i] < 0x20 || p[i] == 0x7f {
			return fmt.Errorf("%w: %q holds a control character", ErrBadPath, p)
		}
	}
	if strings.Contains(p, id) {
		return fmt.Errorf("%w: %q holds the run id", ErrBadPath, p)
	}
	return nil
}
