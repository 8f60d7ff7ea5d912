package shellrun

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

func TestFamilyOf(t *testing.T) {
	tests := []struct {
		program string
		fam     Family
		ok      bool
	}{
		{"bash", POSIX, true}, {"-bash", POSIX, true}, {"/bin/bash", POSIX, true}, {"-/bin/bash", POSIX, true},
		{"sh", POSIX, true}, {"-sh", POSIX, true}, {"ash", POSIX, true}, {"dash", POSIX, true},
		{"ksh", POSIX, true}, {"ksh93", POSIX, true}, {"mksh", POSIX, true}, {"lksh", POSIX, true},
		{"zsh", POSIX, true}, {"-zsh", POSIX, true}, {"/usr/bin/zsh", POSIX, true}, {"zsh-5.9", POSIX, true},
		{"bash5.2", POSIX, true}, {"bash-5.2.15", POSIX, true}, {" zsh ", POSIX, true},
		{"fish", Fish, true}, {"-fish", Fish, true}, {"/usr/local/bin/fish", Fish, true}, {"fish-3.6", Fish, true},
		{"vim", 0, false}, {"cat", 0, false}, {"python3", 0, false}, {"csh", 0, false}, {"tcsh", 0, false},
		{"nu", 0, false}, {"pwsh", 0, false}, {"xonsh", 0, false}, {"elvish", 0, false}, {"ssh", 0, false},
		{"", 0, false}, {"-", 0, false}, {"/", 0, false}, {"bash.5", 0, false}, {"bashful", 0, false},
		{"5.2", 0, false}, {"zsh-", 0, false}, {"fishy", 0, false}, {"Bash", 0, false},
	}
	for _, tt := range tests {
		f, ok := FamilyOf(tt.program)
		if f != tt.fam || ok != tt.ok {
			t.Errorf("FamilyOf(%q) = %v, %v; want %v, %v", tt.program, f, ok, tt.fam, tt.ok)
		}
	}
}

func TestFamilyString(t *testing.T) {
	if POSIX.String() != "posix" || Fish.String() != "fish" || Family(9).String() != "Family(9)" {
		t.Fatal(POSIX.String(), Fish.String(), Family(9).String())
	}
}

func TestNewID(t *testing.T) {
	re := regexp.MustCompile(`^tmx[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		id := NewID()
		if !re.MatchString(id) || !ValidID(id) {
			t.Fatalf("bad id %q", id)
		}
		if seen[id] {
			t.Fatalf("duplicate id %q", id)
		}
		seen[id] = true
	}
}

func TestScriptErrors(t *testing.T) {
	tests := []struct {
		name string
		sh   Shell
		id   string
		cmd  string
		path string
		want error
	}{
		{"nul", Bash, tid, "echo a\x00b", "/tmp/s", ErrNUL},
		{"empty", Dash, tid, "", "/tmp/s", ErrEmpty},
		{"blank", FishShell, tid, " \t\r\n \n", "/tmp/s", ErrEmpty},
		{"bad id", Zsh, "tmxZZ", "true", "/tmp/s", ErrBadID},
		{"bad shell", Shell(0), tid, "true", "/tmp/s", ErrBadShell},
		{"relative path", Bash, tid, "true", "s.sh", ErrBadPath},
		{"newline in path", Bash, tid, "true", "/tmp/a\nb", ErrBadPath},
		{"id in path", Bash, tid, "true", "/tmp/" + tid + ".sh", ErrBadPath},
		{"id in command", FishShell, tid, "echo " + tid, "/tmp/s", ErrIDInCommand},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Script(tt.sh, tt.id, tt.cmd, tt.path, Options{}); !errors.Is(err, tt.want) {
				t.Errorf("Script: err = %v, want %v", err, tt.want)
			}
			if tt.want == ErrBadPath {
				return
			}
			if _, err := Inline(tt.sh, tt.id, tt.cmd); !errors.Is(err, tt.want) {
				t.Errorf("Inline: err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestLine(t *testing.T) {
	for sh, want := range map[Shell]string{
		Dash:      ` { { __tmx_o=$-; \set +exv; } 2>/dev/null; \. '/tmp/it'\''s here/s'; }`,
		Mksh:      ` { case $- in *[ev]*) __tmx_e=$-; \set +ev;; esac; \. '/tmp/it'\''s here/s'; }`,
		Sh:        ` { \. '/tmp/it'\''s here/s'; }`,
		Bash:      ` { { __tmx_p=$SHELLOPTS POSIXLY_CORRECT=y; __tmx_o=$-; \set +exv; } 2>/dev/null; \. '/tmp/it'\''s here/s'; }`,
		FishShell: ` begin; builtin source '/tmp/it\'s here/s'; end`,
	} {
		if got := Line(sh, "/tmp/it's here/s"); got != want {
			t.Errorf("Line(%v) = %q, want %q", sh, got, want)
		}
	}
}

func TestShellOf(t *testing.T) {
	for prog, want := range map[string]Shell{"busybox": Ash, "ash": Ash, "-bash": Bash, "ksh93": Ksh, "sh": Sh, "fish": FishShell, "lksh": Mksh} {
		if got, ok := ShellOf(prog); !ok || got != want {
			t.Errorf("ShellOf(%q) = %v, %v; want %v", prog, got, ok, want)
		}
	}
	if Ksh.String() != "ksh93" || FishShell.Family() != Fish || Zsh.Family() != POSIX {
		t.Error("names or families")
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"a\r\nb\rc\n\n": "a\nb\nc",
		"a\\\n":         "a\\",
		"a\n\r\n":       "a",
		" x ":           " x ",
	} {
		if got := normalize(in); got != want {
			t.Errorf("normalize(%q) = %q, want %q", in, got, want)
		}
	}
	if strings.Contains(normalize("\r\r"), "\r") {
		t.Error("CR left")
	}
}

// TestZshSubshellSavesNoHistory: zsh's wrapper sets SAVEHIST=0 in its subshell, before the
// command runs and before anything could exit it, and never in the interactive shell (whose
// saving stays the user's); no other shell needs it.
func TestZshSubshellSavesNoHistory(t *testing.T) {
	const guard = "[[ ${parameters[SAVEHIST]-} = *readonly* ]] || SAVEHIST=0"
	id := NewID()
	for _, cmd := range []string{"echo single", "trap 'echo nested' EXIT"} {
		script, err := Script(Zsh, id, cmd, "/tmp/s", Options{History: true})
		if err != nil {
			t.Fatal(err)
		}
		// The script's subshell opens on a line of its own; the inline line is all in one
		// subshell, whose first statements only save and set options (the frame's own
		// subshell inside it sets SAVEHIST again).
		if strings.Count(script, "SAVEHIST") != 2 || !strings.Contains(script, "\n(\n"+guard+"\n") {
			t.Errorf("Script(zsh, %q): the subshell does not begin with %s:\n%s", cmd, guard, script)
		}
		inline, err := Inline(Zsh, id, cmd)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(inline, " "+xtraceBack(dialectOf(Zsh))+"( ") || strings.Count(inline, "SAVEHIST") < 2 || !strings.Contains(inline, "; else "+guard+"; ") {
			t.Errorf("Inline(zsh, %q): %s is not where the subshell's work begins:\n%s", cmd, guard, inline)
		}
	}
	for _, sh := range []Shell{Sh, Bash, Dash, Ash, Ksh, Mksh, FishShell} {
		script, _ := Script(sh, id, "true", "/tmp/s", Options{})
		inline, _ := Inline(sh, id, "true")
		if strings.Contains(script+inline, "SAVEHIST") {
			t.Errorf("%v: the wrapper sets SAVEHIST", sh)
		}
	}
}
