package tmux

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrLinked means a window is linked more than once (into several sessions, or twice into
// one): the records of it and of its panes name one of its sessions, and which one tmux picks
// for an id is not the one Snapshot lists first. Read the whole Snapshot instead.
var ErrLinked = errors.New("the window is linked more than once")

// linkField is appended to the records SnapshotOf reads of a pane or window: 1 when its
// window has one winlink, more when it has several. No one variable says so on every version:
// up to 3.6 window_linked_sessions is the window's reference count (its winlinks) while
// window_linked compares it with the session's group size (0 for a window shared only through a
// session group); from 3.7 window_linked_sessions counts sessions, a group once and a window
// linked twice into one session once, while window_linked says whether the window has more
// than one winlink anywhere. Either one saying "several" is right on every version.
var linkField = field{name: "window_links", expr: "#{?window_linked,2,#{window_linked_sessions}}"}

// SnapshotOf is Snapshot narrowed to one object and read from that object alone: tmux formats
// it and what it holds, never the rest of the server, so the read costs the same on a server
// of one pane and of a thousand. target is an id: a pane (%N), a window (@N) or a session
// ($N); never a name, which tmux would match loosely. The parts hold what the whole Snapshot
// holds of the target:
//
//   - WithPanes: the pane, a window's panes, or a session's panes (without it, a pane target
//     is only checked to exist: Panes is nil);
//   - WithWindows: a pane's window, the window, or a session's windows;
//   - WithSessions: the session (of a session target only);
//   - WithClients: every client (there are few), so that Watched answers for those panes.
//
// Pane and Watched, WindowPanes and SessionWindows answer for them as on the whole snapshot.
// then, when given, are read-only ops run in the same command list after the read (one
// instant, one round trip), holding their results; an op may name target's id (a window's
// stands for its active pane). A target that does not exist fails with a *CommandError that
// is ErrNotFound, a pane or window whose window is linked more than once with ErrLinked; snap
// is nil then. A failure of one of then returns the snapshot with the error.
func (s *Server) SnapshotOf(ctx context.Context, target string, what What, then ...Op) (*Snapshot, error) {
	for _, op := range then {
		if op.mutates() {
			return nil, errors.New("tmux: SnapshotOf runs reads only after its read")
		}
	}
	of := &snapshotOf{target: target, what: what}
	err := s.Batch(ctx, append([]Op{of}, then...)...)
	return of.snap, err
}

// snapshotOf is SnapshotOf's read as an op.
type snapshotOf struct {
	target string
	what   What

	snap *Snapshot
}

func (o *snapshotOf) commands() ([][]string, error) { return ofArgs(o.target, o.what) }

func (o *snapshotOf) read(out [][]string) (err error) {
	o.snap, err = parseOf(o.target, o.what, out)
	return err
}

func (*snapshotOf) mutates() bool { return false }

// ofArgs builds the commands of SnapshotOf, in the order of parseSnapshot's parts.
// display-message prints the client's own pane when its target does not exist, so a record
// it prints is checked against the target (parseOf).
func ofArgs(target string, what What) ([][]string, error) {
	one := func(fields []field) []string {
		return []string{"display-message", "-p", "-t", target, format(ofFields(target, fields))}
	}
	list := func(cmd string, fields []field, flags ...string) []string {
		return append(append([]string{cmd}, flags...), "-t", target, "-F", format(ofFields(target, fields)))
	}
	var cmds [][]string
	switch {
	case ValidSessionID(target):
		cmds = appendIf(cmds, what&WithSessions, []string{"list-sessions", "-f", "#{==:#{session_id}," + target + "}", "-F", sessionFormat})
		cmds = appendIf(cmds, what&WithWindows, list("list-windows", windowFields))
		cmds = appendIf(cmds, what&WithPanes, list("list-panes", paneFields, "-s"))
	case what&WithSessions != 0:
		return nil, fmt.Errorf("tmux: SnapshotOf(%s) reads no session: read the session by its id", target)
	case ValidPaneID(target):
		cmds = appendIf(cmds, what&WithWindows, one(paneWindowFields))
		// The pane's record, or its id alone: either says whether it exists.
		if what&WithPanes != 0 {
			cmds = append(cmds, one(paneFields))
		} else {
			cmds = append(cmds, []string{"display-message", "-p", "-t", target, "#{pane_id}" + sep})
		}
	case ValidWindowID(target):
		cmds = appendIf(cmds, what&WithWindows, one(windowFields))
		cmds = appendIf(cmds, what&WithPanes, list("list-panes", paneFields))
	default:
		return nil, fmt.Errorf("tmux: %q is not a pane, window or session id", target)
	}
	cmds = appendIf(cmds, what&WithClients, []string{"list-clients", "-F", clientFormat})
	if len(cmds) == 0 {
		return nil, errors.New("tmux: SnapshotOf reads nothing")
	}
	return cmds, nil
}

// paneWindowFields read a pane's window with display-message -t %N, where #{pane_id} is the
// pane itself: the window's active pane is found by a loop over its panes.
var paneWindowFields = func() []field {
	f := slices.Clone(windowFields)
	for i := range f {
		if f[i].name == "pane_id" {
			f[i].expr = "#{P:#{?pane_active,#{pane_id},}}"
		}
	}
	return f
}()

func appendIf(cmds [][]string, part What, cmd []string) [][]string {
	if part == 0 {
		return cmds
	}
	return append(cmds, cmd)
}

// ofFields are the fields SnapshotOf reads of target: every text field length-prefixed (one
// object costs little), and for a pane or a window the count of its window's links.
func ofFields(target string, fields []field) []field {
	if ValidSessionID(target) {
		return fields // a session's own windows and panes: the rows Snapshot holds for it
	}
	return append(fields[:len(fields):len(fields)], linkField)
}

// parseOf parses the replies of ofArgs: a record display-message printed must be the target's
// (else it does not exist), and a pane's or window's window must be linked once (ErrLinked).
func parseOf(target string, what What, out [][]string) (*Snapshot, error) {
	if err := ofExists(target, what, out); err != nil {
		return nil, err
	}
	if ValidPaneID(target) && what&WithPanes == 0 {
		i := 0
		if what&WithWindows != 0 {
			i = 1
		}
		out = slices.Delete(slices.Clone(out), i, i+1) // the pane's id alone (ofArgs)
	}
	fields := func(f []field) []field { return ofFields(target, f) }
	windows := windowFields
	if ValidPaneID(target) {
		windows = paneWindowFields
	}
	return parseParts(what, out, fields(sessionFields), fields(windows), fields(paneFields), func(r row) error {
		if n, err := strconv.Atoi(r.str(linkField.name)); err == nil && n > 1 {
			return fmt.Errorf("%s: %w", target, ErrLinked)
		}
		return nil
	})
}

// ofExists checks that the records ofArgs read are the target's: its id is the first field of
// the pane's (or the window's) record, and a session's filtered list holds one.
func ofExists(target string, what What, out [][]string) error {
	first := func(i int, kind string) error {
		if len(out[i]) != 1 || !strings.HasPrefix(out[i][0], target+sep) {
			return notFound(kind, target)
		}
		return nil
	}
	switch {
	case ValidPaneID(target) && what&WithWindows != 0:
		return first(1, "pane") // after the window's record
	case ValidPaneID(target):
		return first(0, "pane")
	case ValidWindowID(target) && what&WithWindows != 0:
		return first(0, "window")
	case ValidSessionID(target) && what&WithSessions != 0 && len(out[0]) != 1:
		return &CommandError{Command: []string{"list-sessions"}, Message: "can't find session: " + target}
	}
	return nil
}
