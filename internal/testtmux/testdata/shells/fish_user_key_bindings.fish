# As /usr/share/doc/fzf/README.Debian says: fzf's key bindings for fish (C-r, C-t, M-c).
function fish_user_key_bindings
	fzf_key_bindings
end
