package shellrun

import (
	"strconv"
	"strings"
)

// Family is a group of shells that share one framing.
type Family int

const (
	// POSIX covers sh, ash, dash, bash, ksh (ksh93), mksh (lksh) and zsh.
	POSIX Family = iota + 1
	// Fish is the fish shell.
	Fish
)

// String returns "posix", "fish" or "Family(N)".
func (f Family) String() string {
	switch f {
	case POSIX:
		return "posix"
	case Fish:
		return "fish"
	}
	return "Family(" + strconv.Itoa(int(f)) + ")"
}

// shells maps a program's base name to its family. Only shells whose framing
// is tested in real shells belong here.
var shells = map[string]Family{
	"sh":    POSIX,
	"ash":   POSIX,
	"dash":  POSIX,
	"bash":  POSIX,
	"ksh":   POSIX,
	"ksh93": POSIX,
	"mksh":  POSIX,
	"lksh":  POSIX,
	"zsh":   POSIX,
	"fish":  Fish,
}

// FamilyOf maps a pane's foreground program (tmux's #{pane_current_command})
// to a shell family. It accepts a login shell's leading "-" ("-bash"), a path
// ("/bin/zsh") and a version suffix ("zsh-5.9", "bash5.2"). ok is false for
// anything else (vim, cat, python, csh, tcsh, nu, ...).
func FamilyOf(program string) (f Family, ok bool) {
	name, ok := shellName(program)
	if !ok {
		return 0, false
	}
	return shells[name], true
}

// shellName reduces a pane's foreground program to its key in shells, as
// FamilyOf describes.
func shellName(program string) (string, bool) {
	p := strings.TrimSpace(program)
	p = strings.TrimLeft(p, "-")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		p = p[i+1:]
	}
	p = strings.TrimLeft(p, "-")
	if _, ok := shells[p]; ok {
		return p, true
	}
	// A version suffix: "-5.9", "5.2", "-5.2.15". The name must be a known
	// shell with nothing but digits and dots after it.
	base := strings.TrimRight(p, "0123456789.")
	if base == p || base == "" {
		return "", false
	}
	ver := p[len(base):]
	if ver[0] == '.' {
		return "", false
	}
	base = strings.TrimSuffix(base, "-")
	if _, ok := shells[base]; ok {
		return base, true
	}
	return "", false
}

// singleFrameShells are the POSIX shells whose subshell is a real fork
// with an EXIT trap that fires however it ends, so the one-subshell frame is
// safe in them. ksh93 is not among them: it runs "( )" as a virtual subshell
// (no fork), and an exit with a signal status (137 after a command killed by
// SIGKILL) from the EXIT trap of such a subshell ends the interactive shell
// itself; it keeps the nested frame, which costs it no fork either. Nor is
// "sh", which may be any of them (ksh93 is /bin/sh on some systems).
var singleFrameShells = map[string]bool{
	"ash": true, "dash": true, "bash": true, "mksh": true, "lksh": true, "zsh": true,
}

// singleFrame reports whether the one-subshell frame may be used for program.
func singleFrame(program string) bool {
	name, ok := shellName(program)
	return ok && singleFrameShells[name]
}
