package shellrun

import "time"

// Line returns the line to type into sh (followed by Enter) to run the wrapper at path.
//
// It starts with a space (kept out of history by fish, mksh, and bash and zsh when configured
// so) and is a brace group (begin…end in fish): should text the caller failed to clear
// still sit on the command line before it, the combined line is a syntax error rather than
// a command. It reaches the shell's real "." (source) whatever the user defined: bash's POSIX
// mode makes special builtins win over functions, zsh picks "builtin ." only when "." is a
// function (so that a function named builtin alone cannot catch it), fish reserves builtin.
func Line(sh Shell, path string) string {
	p := posixQuote(path)
	switch sh {
	case Bash:
		return " { { " + varPosix + "=$SHELLOPTS POSIXLY_CORRECT=y; " + xtraceSave + " } 2>/dev/null; \\. " + p + "; }"
	case Dash, Ash:
		return " { { " + xtraceSave + " } 2>/dev/null; \\. " + p + "; }"
	case Zsh:
		return " " + zshLineHead + "${functions[.]+builtin} \\. " + p + "; }"
	case FishShell:
		return " begin; builtin source " + fishQuote(path) + "; end"
	case Ksh, Mksh:
		return " { " + caseLineSave + " \\. " + p + "; }"
	}
	return " { \\. " + p + "; }"
}

// xtraceSave (bash, dash, ash) notes the shell's options in $__tmx_o and turns tracing,
// errexit and verbose off, on the typed line, in a group whose stderr (where these shells write their trace) is
// /dev/null: the "." that follows and the whole wrapper then run untraced, and no line of the
// frame is traced to the screen, however the shell had set -x on. The wrapper gives tracing
// back to the command and, at its end, to the shell (see posixFrame.finish); should the
// script not be read (SourcingFailed), Inline gives it back (see xtraceBack). In bash the
// assignment before it turned POSIX mode on, where set (special) wins over functions.
// errexit goes off too, so that a "." that cannot read the file does not end a shell with
// set -e (bash), and verbose, so that the shell does not echo the script as it reads it (only
// the typed line, which the redraw erases: Redraw.Echo).
const xtraceSave = varOpts + "=$-; \\set +exv;"

// caseLineSave (ksh93, mksh) notes the shell's options in $__tmx_e and turns errexit and
// verbose off, for the same reasons, when either is on: in a case, which these shells do not
// trace (with tracing on, its two statements are: the script counts their rows, liftRows).
const caseLineSave = "case $- in *[ev]*) " + varLineOpts + "=$-; \\set +ev;; esac;"

// zshLineHead is how zsh's typed line begins, after its leading space (see zshHistHook). It
// notes the options in $__tmx_zo ($-) and turns xtrace off, traced to /dev/null, before the
// "." (a "." run with xtrace on writes the trace of the whole file to the stderr it had,
// whatever the file redirects), and errexit and verbose (see xtraceSave), unless builtin is a
// function (then the script refuses to run). The "." that follows is "builtin ." only when "."
// is a function: an empty expansion is no word.
const zshLineHead = `{ { ` + zshLineOpts + `=$-; (( ${+functions[builtin]} )) || \builtin \set +evx; } 2>/dev/null; `

// zshLineOpts (zsh) holds $- as the typed line found it.
const zshLineOpts = "__tmx_zo"

// ClearKeys returns the keys (for send-keys, before the typed line, in the same command: tmux
// key names, or text tmux types as it is) that empty sh's command line, so that text left on
// it (typed by send_keys without Enter, or by a person) is never run with the line. They are
// chosen per shell to work in its emacs and vi insert modes wherever the cursor is (bash's,
// ash's, fish's and zsh's in vi command mode too), without ringing the bell on an empty line; where
// they cannot (vi command mode), the typed line is not echoed as typed, which the caller
// checks before it presses Enter.
//
// Again is for the second attempt, after C-c: for ksh93 and mksh the keys then also leave vi
// command mode (Escape, then "S" substitutes the whole line there). They ring the bell in
// emacs mode, so the first attempt does without them: in vi command mode the start of its
// typed line is taken as commands (which only move or edit the line), and the caller
// notices. Escape is then a group of its own, to be sent EscapeGap before the rest: ksh93
// reads an Escape followed at once by a key as one escape sequence.
func ClearKeys(sh Shell, again bool) [][]string {
	switch sh {
	case Ksh, Mksh:
		if again {
			return [][]string{{"Escape"}, {"S", "C-u"}}
		}
		if sh == Mksh {
			// "A" appends in vi command mode, where mksh's kill (C-u) then empties the whole
			// line, as it does in emacs and insert mode with the "A" typed. Not ksh93: there
			// it kills only what was typed since insert mode began.
			return [][]string{{"A", "C-u"}}
		}
	case Bash, Ash:
		// readline and busybox: to the end, then kill to the start; "A" appends in vi
		// command mode and is itself killed in emacs and insert mode.
		return [][]string{{"End", "A", "C-u"}}
	case FishShell:
		// As for bash, with fishEnd for End; "A" also leaves vi normal mode (where fish's
		// C-c would leave the cancelled line drawn above a new prompt).
		return [][]string{{fishEnd, "A", "C-u"}}
	case Zsh:
		// C-u alone is kill-whole-line in emacs mode, but in vi insert mode it kills only
		// what was typed since insert mode began: after Escape and "A" the text before stays,
		// and a line ending in "&&" would run with the typed line. In vi insert mode ESC 0 is
		// unbound, so zsh takes the Escape alone (to command mode, also when the keys come one
		// by one after KEYTIMEOUT), "0" goes to the line's start and "S" empties the whole line
		// into insert mode; in emacs mode ESC 0 is a digit argument, "S" is then inserted zero
		// times and C-u kills the line. One group: zsh reads a key sequence no keymap binds as
		// its bound prefix, then the rest (unlike ksh93). No bell but the Escape's in vi
		// command mode, where the line is not empty.
		return [][]string{{"Escape", "0", "S", "C-u"}}
	}
	// ksh93 and mksh (kill line), dash (the terminal's kill character in canonical mode).
	return [][]string{{"C-u"}}
}

// fishEnd moves fish's cursor to the end of the line in every mode, emacs and vi, whatever the
// terminal: fish binds it itself (ESC [ F), whereas it knows the End key tmux types (ESC [ 4 ~)
// only from TERM's terminfo, and with TERM=xterm-256color (ESC O F there) its vi insert mode
// takes that ESC alone for Escape, leaving for normal mode. tmux types a word that names no
// key as its characters, in one write. Not C-e: fish's vi insert mode does not bind it.
const fishEnd = "\x1b[F"

// EscapeGap is how long to wait between the groups of ClearKeys.
const EscapeGap = 100 * time.Millisecond
