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

// Shell is one interactive shell the framing knows: the rules for reaching its real builtins
// differ from shell to shell (see doc.go), so the wrapper and the typed line are written for
// each.
type Shell int

// The shells. Sh is a POSIX shell whose kind is unknown (a program named "sh" when its
// executable cannot be read): it gets the framing every POSIX shell accepts.
const (
	Sh Shell = iota + 1
	Bash
	Zsh
	Dash
	Ash // busybox ash and busybox sh
	Ksh // ksh93
	Mksh
	FishShell
)

var shellNames = [...]string{Sh: "sh", Bash: "bash", Zsh: "zsh", Dash: "dash", Ash: "ash", Ksh: "ksh93", Mksh: "mksh", FishShell: "fish"}

// String returns the shell's name ("bash", "ksh93", ...).
func (s Shell) String() string {
	if s > 0 && int(s) < len(shellNames) {
		return shellNames[s]
	}
	return "Shell(" + strconv.Itoa(int(s)) + ")"
}

// Family returns the shell's family.
func (s Shell) Family() Family {
	if s == FishShell {
		return Fish
	}
	return POSIX
}

// programs maps a program's base name to its shell. Only shells whose framing is tested in
// real shells belong here. busybox is its ash (a pane whose process is busybox runs busybox
// sh or ash: busybox applets that are not shells do not take a terminal's foreground).
var programs = map[string]Shell{
	"sh": Sh, "ash": Ash, "busybox": Ash, "dash": Dash, "bash": Bash,
	"ksh": Ksh, "ksh93": Ksh, "mksh": Mksh, "lksh": Mksh, "zsh": Zsh, "fish": FishShell,
}

// ShellOf maps a program (an executable's base name from /proc, or tmux's
// #{pane_current_command}) to its shell. It accepts a login shell's leading "-" ("-bash"),
// a path ("/bin/zsh") and a version suffix ("zsh-5.9", "bash5.2"). ok is false for anything
// else (vim, cat, python, csh, tcsh, nu, ...).
func ShellOf(program string) (s Shell, ok bool) {
	name, ok := shellName(program)
	if !ok {
		return 0, false
	}
	return programs[name], true
}

// FamilyOf maps a program, as ShellOf takes it, to its shell family.
func FamilyOf(program string) (f Family, ok bool) {
	s, ok := ShellOf(program)
	if !ok {
		return 0, false
	}
	return s.Family(), true
}

// shellName reduces a program to its key in programs, as ShellOf describes.
func shellName(program string) (string, bool) {
	p := strings.TrimSpace(program)
	p = strings.TrimLeft(p, "-")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		p = p[i+1:]
	}
	p = strings.TrimLeft(p, "-")
	if _, ok := programs[p]; ok {
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
	if _, ok := programs[base]; ok {
		return base, true
	}
	return "", false
}
