package tmux

import "regexp"

var (
	paneIDRe    = regexp.MustCompile(`^%\d+$`)
	windowIDRe  = regexp.MustCompile(`^@\d+$`)
	sessionIDRe = regexp.MustCompile(`^\$\d+$`)
)

// ValidPaneID reports whether s has the form of a pane id (%N).
func ValidPaneID(s string) bool { return paneIDRe.MatchString(s) }

// ValidWindowID reports whether s has the form of a window id (@N).
func ValidWindowID(s string) bool { return windowIDRe.MatchString(s) }

// ValidSessionID reports whether s has the form of a session id ($N).
func ValidSessionID(s string) bool { return sessionIDRe.MatchString(s) }
