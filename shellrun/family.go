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
	p := strings.TrimSpace(program)
	p = strings.TrimLeft(p, "-")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		p = p[i+1:]
	}
	p = strings.TrimLeft(p, "-")
	if f, ok := shells[p]; ok {
		return f, true
	}
	// A version suffix: "-5.9", "5.2", "-5.2.15". The name must be a known
	// shell with nothing but digits and dots after it.
	base := strings.TrimRight(p, "0123456789.")
	if base == p || base == "" {
		return 0, false
	}
	ver := p[len(base):]
	if ver[0] == '.' {
		return 0, false
	}
	base = strings.TrimSuffix(base, "-")
	if f, ok := shells[base]; ok {
		return f, true
	}
	return 0, false
}
