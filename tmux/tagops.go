package tmux

import "strings"

// Tags are user options that name the object holding them, one per level (a pane's options
// inherit its window's, a window's its session's, so one name would answer for all): a mark
// tmux keeps of what someone made, which a later process can read back.
type Tags struct{ Session, Window, Pane string }

// Tag marks Target, a new session ($N), window (@N) or pane (%N), and what it holds: a
// session's first window and pane, a window's first pane.
type Tag struct {
	Tags
	Target string
}

func (o *Tag) commands() ([][]string, error) {
	set := func(scope, t, name, value string) []string {
		return []string{"set-option", scope, "-F", "-t", t, name, value}
	}
	switch {
	case ValidSessionID(o.Target):
		return [][]string{{"set-option", "-t", o.Target, o.Session, o.Target},
			set("-w", o.Target+":", o.Window, "#{window_id}"), set("-p", o.Target+":", o.Pane, "#{pane_id}")}, nil
	case ValidWindowID(o.Target):
		return [][]string{set("-w", o.Target, o.Window, "#{window_id}"), set("-p", o.Target, o.Pane, "#{pane_id}")}, nil
	}
	if err := checkPanes(o.Target); err != nil {
		return nil, err
	}
	return [][]string{set("-p", o.Target, o.Pane, "#{pane_id}")}, nil
}

func (*Tag) read([][]string) error { return nil }
func (*Tag) mutates() bool         { return true }

// Tagged reads, for each pane of Target (a pane %N, a window @N, or a session $N: all its
// panes), which of the pane, its window and its session carry their tags.
type Tagged struct {
	Tags
	Target string

	Panes []TaggedPane
}

// TaggedPane is one pane of Tagged's result.
type TaggedPane struct {
	Pane                 string
	Own, Window, Session bool
}

func (o *Tagged) commands() ([][]string, error) {
	f := "#{pane_id} #{==:#{" + o.Pane + "},#{pane_id}} #{==:#{" + o.Window + "},#{window_id}} #{==:#{" + o.Session + "},#{session_id}}"
	switch {
	case ValidPaneID(o.Target):
		return [][]string{{"display-message", "-p", "-t", o.Target, f}}, nil
	case ValidSessionID(o.Target):
		return [][]string{{"list-panes", "-F", f, "-t", o.Target, "-s"}}, nil
	}
	return [][]string{{"list-panes", "-F", f, "-t", o.Target}}, nil
}

func (o *Tagged) read(out [][]string) error {
	for _, line := range out[0] {
		if f := strings.Fields(line); len(f) == 4 {
			o.Panes = append(o.Panes, TaggedPane{Pane: f[0], Own: f[1] == "1", Window: f[2] == "1", Session: f[3] == "1"})
		}
	}
	return nil
}

func (*Tagged) mutates() bool { return false }
