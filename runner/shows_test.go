package runner

import "testing"

// TestShows: the typed line's end is found in what the shell drew, blanks aside (zsh writes a
// second space where a wrapped row ends in one; a line editor blanks a longer line's rest).
func TestShows(t *testing.T) {
	const line = "  { \\. '/tmp/tm274072701/mcptmp/tmux-mcp-337496540/r2'; fi; }"
	cases := []struct {
		partial string
		want    bool
	}{
		{"$ " + line[2:], true},
		{"mcp-337496540/r2'; fi;  }", true},       // zsh's wrap after a space
		{"mcp-337496540/r2'; fi; }      ", true},  // blanked rest
		{"mcp-337496540/r2'; fi;}", true},         // capture-pane dropped the row's last space
		{"mcp-337496540/r3'; fi; }", false},       // another run's line
		{"}", false},                              // too little of it
		{"mcp-337496540/r2'; fi; } extra", false}, // more after it
	}
	for _, c := range cases {
		if got := shows(c.partial, line); got != c.want {
			t.Errorf("shows(%q) = %v, want %v", c.partial, got, c.want)
		}
	}
}
