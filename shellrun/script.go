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
	// ErrBadFamily means the family is neither POSIX nor Fish.
	ErrBadFamily = errors.New("shellrun: unknown shell family")
	// ErrBadPath means the script path is unusable: not absolute, holding a
	// control character, or holding the run id.
	ErrBadPath = errors.New("shellrun: unusable script path")
	// ErrIDInCommand means the command text contains the run id, so the
	// framing could not keep the literal id out of what is typed or written.
	ErrIDInCommand = errors.New("shellrun: command contains the run id")
)

// Script returns the wrapper script for command and the short line to type
// into the pane to run it.
//
// The caller writes script to scriptPath (mode 0600, in a directory of mode
// 0700) and types typed followed by Enter: " . '<scriptPath>'" for POSIX
// shells, " source '<scriptPath>'" for fish. The leading space keeps the line
// out of history in shells configured for it (bash HISTCONTROL=ignorespace,
// zsh HIST_IGNORE_SPACE, fish always). The script deletes its own file as
// its first action, before the command starts, so an interrupted run leaves
// nothing behind; the shell keeps reading the already open file.
//
// scriptPath must be absolute (a relative name would make "." search PATH),
// must not contain control characters, and must not contain the run id: the
// typed line echoes it.
//
// Script frames for a POSIX shell whose program is not known, with the nested
// (two-subshell) frame; ScriptFor picks the cheaper one-subshell frame when
// the program allows it.
func Script(f Family, id, command, scriptPath string) (script, typed string, err error) {
	return ScriptFor(f, "", id, command, scriptPath)
}

// ScriptFor is Script for a pane whose foreground program (tmux's
// #{pane_current_command}, as FamilyOf takes it) is program. For the POSIX
// shells that allow it (ash, dash, bash, mksh, zsh), the wrapper forks once
// instead of twice, unless the command might defeat the one-subshell frame
// (see doc.go); "" or any other program gets the nested frame.
func ScriptFor(f Family, program, id, command, scriptPath string) (script, typed string, err error) {
	return scriptFor(f, program, id, command, scriptPath, true)
}

// ScriptKeepFile is ScriptFor for a caller that removes the script file itself once the start
// marker shows the shell has opened it. The wrapper then runs no rm of its own: that saves a
// fork and exec in the pane, and leaves no statement outside the frame that a Ctrl-C could
// abort (which would lose the end marker).
func ScriptKeepFile(f Family, program, id, command, scriptPath string) (script, typed string, err error) {
	return scriptFor(f, program, id, command, scriptPath, false)
}

func scriptFor(f Family, program, id, command, scriptPath string, selfRemove bool) (script, typed string, err error) {
	cmd, err := prepare(f, id, command)
	if err != nil {
		return "", "", err
	}
	if err := checkPath(scriptPath, id); err != nil {
		return "", "", err
	}
	switch f {
	case POSIX:
		return posixScript(id, cmd, scriptPath, nested(program, cmd), selfRemove), " . " + posixQuote(scriptPath), nil
	default:
		return fishScript(id, cmd, scriptPath, selfRemove), " source " + fishQuote(scriptPath), nil
	}
}

// Inline returns the whole wrapper as one physical line to type into the pane
// (send-keys -l, then Enter), for when the pane's shell cannot read a script
// file (ssh, a container). It starts with a space for history suppression.
//
// The command travels octal-encoded in a printf %b argument, so the line holds
// only printable ASCII: no line break, no tab (which would trigger
// completion), no control character, no "!" (history expansion) and no
// literal run id. Its length grows with the command (up to 5 bytes per byte
// that needs encoding, 1 otherwise, plus about 600 bytes of framing). A shell
// without a line editor (dash, sh) reads a terminal line in canonical mode,
// which holds at most 4095 bytes, so keep inline commands well below ~3 KiB
// for those shells.
func Inline(f Family, id, command string) (string, error) {
	return InlineFor(f, "", id, command)
}

// InlineFor is Inline for a pane whose foreground program is program; the
// frame is chosen as in ScriptFor.
func InlineFor(f Family, program, id, command string) (string, error) {
	cmd, err := prepare(f, id, command)
	if err != nil {
		return "", err
	}
	if f == POSIX {
		return posixInline(id, cmd, nested(program, cmd)), nil
	}
	return fishInline(id, cmd), nil
}

// prepare validates the arguments and normalises the command: CRLF and lone CR
// become LF and trailing line breaks are dropped (they mean nothing to eval,
// and dropping them makes Script and Inline agree on a trailing backslash).
func prepare(f Family, id, command string) (string, error) {
	if f != POSIX && f != Fish {
		return "", fmt.Errorf("%w: %d", ErrBadFamily, int(f))
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
