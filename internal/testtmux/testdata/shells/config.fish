# ~/.config/fish/config.fish: a realistic fish set-up.

set -g fish_greeting "Hello $USER, welcome back. Type `help` for help."

# Aliases and functions named like common commands (fish's alias defines a function).
alias ls 'command ls --color=auto -F'
alias ll 'ls -l'
function grep --wraps grep
	command grep --color=auto $argv
end
function cd --wraps cd
	builtin cd $argv; or return
	printf '\e]7;file://%s%s\a' (hostname) $PWD
end
abbr -a gs git status

# Hooks: the title shows the command about to run; OSC 133 marks its start and end.
function __rc_preexec --on-event fish_preexec
	printf '\e]2;%s\a\e]133;C\a' (string replace -ra '[^[:print:]]' '' -- $argv[1])
end
function __rc_postexec --on-event fish_postexec
	set -g __rc_status $status
	set -g __rc_duration $CMD_DURATION
end

# A starship-like prompt: a status line with the directory, the last command's duration and
# a failed status, then the input line.
function fish_prompt
	set -l s $status
	printf '\e]133;D;%s\a\e]133;A\a' $s
	set_color --bold cyan
	printf '%s' (prompt_pwd)
	set_color normal
	if set -q __rc_duration; and test "$__rc_duration" -gt 1000
		set_color yellow
		printf ' took %ss' (math --scale=1 $__rc_duration / 1000)
		set_color normal
	end
	if test $s -ne 0
		set_color red
		printf ' [exit %s]' $s
		set_color normal
	end
	printf '\e]133;B\a\n'
	set_color --bold green
	printf '❯ '
	set_color normal
end
function fish_right_prompt
	set_color brblack
	date +%H:%M:%S
	set_color normal
end
