package testtmux

import "os/exec"

// UserConf is a tmux configuration as users write theirs (tmux-sensible, dotfiles): a name
// and the lines NewWithConf appends to the minimal config.
type UserConf struct {
	Name  string
	Lines []string
}

// UserConfs are the tmux configurations the product is tested under, each a few lines users
// really write. Settings that matter only to an attached terminal client are left out.
//   - indexed: windows and panes numbered from 1, renumbered on close, a large history, mouse.
//   - hooks: hooks that re-lay out a split and rename a new window, pane border titles, a
//     status line running a job every second, activity monitoring.
//   - keep: dead panes stay (remain-on-exit), names stay as set, vi keys, prefix C-a.
//   - plugins: tpm's lines with the plugins not installed (a `run` of a missing script, whose
//     error tmux keeps for the next client) and an option of a newer tmux (extended-keys-format
//     is 3.5's: an error on older ones), as a dotfiles repository meets a new machine.
//   - session: what changes sessions' and windows' lives: no detach on destroy, sessions
//     kept unattached, window sizes that follow the latest client, aggressive-resize, the
//     user's own $SHELL (with its system-wide rc file) as the default command.
func UserConfs() []UserConf {
	return []UserConf{
		{"indexed", []string{
			"set -g base-index 1",
			"setw -g pane-base-index 1",
			"set -g renumber-windows on",
			"set -g default-terminal " + term256(),
			"set -g mouse on",
			"set -g history-limit 50000",
			"set -sg escape-time 0",
			"set -g focus-events on",
		}},
		{"hooks", []string{
			"set-hook -g after-split-window 'select-layout tiled'",
			"set-hook -g after-new-window 'rename-window work'",
			"set-hook -g after-new-session 'rename-window main'",
			"set -g pane-border-status top",
			"set -g pane-border-format ' #{pane_index}: #{pane_current_command} '",
			"set -g status on",
			"set -g status-interval 1",
			"set -g status-right '#(date +%s)'",
			"setw -g monitor-activity on",
			"set -g visual-activity on",
		}},
		{"keep", []string{
			"set -g remain-on-exit on",
			"setw -g automatic-rename off",
			"set -g allow-rename off",
			"set -g set-titles on",
			"setw -g mode-keys vi",
			"set -g status-keys vi",
			"unbind C-b",
			"set -g prefix C-a",
			"bind C-a send-prefix",
		}},
		{"plugins", []string{
			"set -g @plugin 'tmux-plugins/tpm'",
			"set -g @plugin 'tmux-plugins/tmux-sensible'",
			"set -g extended-keys-format csi-u",
			"if-shell 'test -d ~/.tmux/plugins/tpm' 'run ~/.tmux/plugins/tpm/tpm'",
			"run '~/.tmux/plugins/tmux-resurrect/resurrect.tmux'",
			"set -g base-index 1",
		}},
		{"session", []string{
			"set -g detach-on-destroy off",
			"set -g destroy-unattached off",
			"setw -g window-size latest",
			"setw -g aggressive-resize on",
			`set -g default-command "${SHELL}"`,
			"set -g base-index 1",
			"set -g remain-on-exit on",
		}},
	}
}

// term256 is tmux-256color when its terminfo entry is installed, else screen-256color, as
// users fall back on systems without it.
func term256() string {
	if exec.Command("infocmp", "tmux-256color").Run() == nil {
		return "tmux-256color"
	}
	return "screen-256color"
}
