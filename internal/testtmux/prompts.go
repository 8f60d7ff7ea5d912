package testtmux

import "regexp"

// Prompt frameworks from Debian's packages, sourced as their documentation says, over the
// realistic start-up files: liquidprompt (bash and zsh) and powerlevel9k (zsh). They redraw the
// prompt from hooks on every prompt (and liquidprompt times every command from bash's DEBUG
// trap or zsh's preexec), show HOME's git branch, the load, the status of the last command and
// how long it ran, and set the terminal title.
const (
	liquidprompt = "/usr/share/liquidprompt/liquidprompt"
	powerlevel9k = "/usr/share/powerlevel9k/powerlevel9k.zsh-theme"
)

// gitHome makes HOME an empty git repository, whose branch the prompts show.
var gitHome = map[string]string{
	".git/HEAD":             "git_HEAD",
	".git/objects/.keep":    "",
	".git/refs/heads/.keep": "",
}

var (
	// liquidprompt's last mark: $ (bash), % (zsh), # (root), ± (in a git repository), then a blank.
	liquidMark = regexp.MustCompile(`[$%#±] $`)
	// powerlevel9k's last left segment's separator, or the start of its two-line prompt's
	// second row, then a blank.
	p9kMark = regexp.MustCompile(`(\x{e0b0}|╰─) $`)
)

// Liquidprompt is shell's (bash or zsh) rc set-up with liquidprompt's default theme, sourced
// as its documentation says, with the terminal title on in ~/.config/liquidpromptrc: named
// "liquidprompt". Require skips it where the package is not installed.
func Liquidprompt(shell string) Setup {
	rc := Config(shell, "rc")
	rc.files = mergeFiles(mergeFiles(rc.files, gitHome), map[string]string{".config/liquidpromptrc": "liquidpromptrc"})
	s := rc.With("liquidprompt", "[[ $- = *i* ]] && source "+liquidprompt)
	s.needs, s.Prompt = []string{liquidprompt, "git"}, liquidMark
	return s
}

// Powerlevel9k lists zsh's rc set-up with powerlevel9k, sourced as Debian's package says
// (its variables set before), with the directory and git on the left and the last status and
// the time on the right: "p9k" on one row, "p9k-2-line" with POWERLEVEL9K_PROMPT_ON_NEWLINE.
func Powerlevel9k() []Setup {
	rc := Config("zsh", "rc")
	rc.files = mergeFiles(rc.files, gitHome)
	lines := func(extra ...string) []string {
		return append(append([]string{
			"POWERLEVEL9K_LEFT_PROMPT_ELEMENTS=(dir vcs)",
			"POWERLEVEL9K_RIGHT_PROMPT_ELEMENTS=(status time)",
		}, extra...), "source "+powerlevel9k)
	}
	one := rc.With("p9k", lines()...)
	two := rc.With("p9k-2-line", lines("POWERLEVEL9K_PROMPT_ON_NEWLINE=true")...)
	for _, s := range []*Setup{&one, &two} {
		s.needs, s.Prompt = []string{powerlevel9k, "git"}, p9kMark
	}
	return []Setup{one, two}
}
