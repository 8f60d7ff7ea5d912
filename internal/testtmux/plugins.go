package testtmux

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// Tools from Debian's packages that hook into the shell as their documentation says to
// install them: bash-completion, fzf's key bindings and completion, direnv's prompt hook,
// powerline's prompt. Each runs on every prompt or key press, prints, or takes keys.
const (
	bashCompletion = "/usr/share/bash-completion/bash_completion"
	fzfBash        = "/usr/share/doc/fzf/examples/key-bindings.bash"
	fzfBashCompl   = "/usr/share/bash-completion/completions/fzf"
	fzfFish        = "/usr/share/fish/vendor_functions.d/fzf_key_bindings.fish"
	powerlineBash  = "/usr/share/powerline/bindings/bash/powerline.sh"
)

// ProjectDir is the directory (relative to HOME) of the plugins set-ups whose .envrc direnv
// loads on entering it, printing as it does; it has a Makefile that prints PROJECT_ENV.
const ProjectDir = "proj"

// pluginFiles are the files of every plugins set-up: a project direnv trusts (direnv.toml's
// whitelist, as users set it instead of `direnv allow` in each), a history to search and to
// suggest from, and HOME as a git repository (an empty one), which prompts show.
var pluginFiles = map[string]string{
	".config/direnv/direnv.toml": "direnv.toml",
	ProjectDir + "/.envrc":       "envrc",
	ProjectDir + "/Makefile":     "Makefile.proj",
	".git/HEAD":                  "git_HEAD",
	".git/objects/.keep":         "",
	".git/refs/heads/.keep":      "",
}

// bashPluginLines are what a bash user appends to ~/.bashrc for the tools: history shared
// between terminals, bash-completion, fzf's bindings and completion, direnv's hook.
var bashPluginLines = []string{
	"HISTCONTROL=ignoreboth",
	"shopt -s histappend",
	`PROMPT_COMMAND="history -a; history -n${PROMPT_COMMAND:+; $PROMPT_COMMAND}"`,
	". " + bashCompletion,
	". " + fzfBash,
	". " + fzfBashCompl,
	`eval "$(direnv hook bash)"`,
}

// fishPluginLines are what a fish user adds to config.fish: direnv's hook, and a prompt that
// shows the git branch (fish_vcs_prompt runs git on every prompt) and a failed status; the
// right prompt (the time) stays. fzf's bindings come with fish_user_key_bindings.
var fishPluginLines = []string{
	"direnv hook fish | source",
	`function fish_prompt; set -l s $status; printf '%s%s' (prompt_pwd) (fish_vcs_prompt); test $s -ne 0; and printf ' [%s]' $s; printf ' ❯ '; end`,
}

// Plugins lists a shell's set-ups with those tools (none for a shell they are not set up for
// here): plugins (rc with the tools), plugins-vi (and vi mode: bash's with its mode in the
// prompt), powerline (bash's rc with powerline's prompt, without its daemon, so that every
// prompt runs powerline's renderer, and direnv's hook). Require skips one whose tools are not installed.
func Plugins(shell string) []Setup {
	rc := Config(shell, "rc")
	rc.files = mergeFiles(rc.files, pluginFiles)
	switch shell {
	case "bash":
		rc.files = mergeFiles(rc.files, map[string]string{".bash_history": "bash_history"})
		p := rc.With("plugins", bashPluginLines...)
		p.needs = []string{bashCompletion, fzfBash, fzfBashCompl, "direnv", "fzf", "git"}
		vi := p.With("plugins-vi", viLines["bash"].lines...)
		vi.Vi, vi.ViIndicator = true, viLines["bash"].indicator
		pl := rc.With("powerline", "POWERLINE_BASH_CONTINUATION=1", "POWERLINE_BASH_SELECT=1", ". "+powerlineBash, `eval "$(direnv hook bash)"`)
		pl.needs = []string{powerlineBash, "powerline", "direnv"}
		// powerline's last segment: its separator, then blanks.
		pl.Prompt = regexp.MustCompile("\ue0b0[\u00a0 ]*$")
		return []Setup{p, vi, pl}
	case "fish":
		rc.files = mergeFiles(rc.files, map[string]string{
			".local/share/fish/fish_history":                     "fish_history",
			".config/fish/functions/fish_user_key_bindings.fish": "fish_user_key_bindings.fish",
		})
		p := rc.With("plugins", fishPluginLines...)
		p.needs = []string{fzfFish, "direnv", "fzf", "git"}
		// As the vi set-up: TERM as a tmux.conf sets it (see viLines).
		vi := p.With("plugins-vi", viLines["fish"].lines...)
		vi.Vi, vi.ViIndicator = true, viLines["fish"].indicator
		vi.env = append(append([]string{}, vi.env...), viLines["fish"].env...)
		return []Setup{p, vi}
	}
	return nil
}

// mergeFiles returns a copy of a with b's entries added.
func mergeFiles(a, b map[string]string) map[string]string {
	out := make(map[string]string, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// requireNeeds skips t when a file or command the set-up needs is missing.
func requireNeeds(t testing.TB, needs []string) {
	t.Helper()
	for _, n := range needs {
		if strings.HasPrefix(n, "/") {
			if _, err := os.Stat(n); err != nil {
				t.Skipf("%s is not installed", n)
			}
		} else if _, err := exec.LookPath(n); err != nil {
			t.Skipf("%s is not installed", n)
		}
	}
}
