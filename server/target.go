package server

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Socket is the socket_name argument every targeted tool takes, and the host it is on. SocketName
// has no description: its name says it, and it is in 50 tools of tools/list, which every agent's
// context pays for (the handshake instructions say it picks the tmux server). Host is advertised
// (and taken) only when hosts are configured (see hostOnly); Call.tmuxFor reads it.
type Socket struct {
	SocketName *string `json:"socket_name,omitempty"`
	Host       *string `json:"host,omitempty" jsonschema:"A configured host (LIBTMUX_MCP_HOSTS) or local; null: LIBTMUX_MCP_DEFAULT_HOST"`
}

// PaneTarget selects a pane: pane_id wins, else window_id's active pane, else the session's.
// The arguments are undescribed: their names say what they are and the handshake instructions
// give the order once, instead of in 30 tools of tools/list.
type PaneTarget struct {
	PaneID *string `json:"pane_id,omitempty"`
	SessionTarget
	WindowID *string `json:"window_id,omitempty"`
}

// WindowTarget selects a window: window_id wins, else window_index in the session, else the
// session's active window (undescribed, as PaneTarget).
type WindowTarget struct {
	WindowID    *string `json:"window_id,omitempty"`
	WindowIndex *Index  `json:"window_index,omitempty"`
	SessionTarget
}

// SessionTarget selects a session: session_id wins, else the exact session_name, else the
// first session (undescribed, as PaneTarget). PaneTarget and WindowTarget hold it too.
type SessionTarget struct {
	SessionName *string `json:"session_name,omitempty"`
	SessionID   *string `json:"session_id,omitempty"`
}

// checkIDs refuses malformed ids before tmux is asked.
func checkIDs(pane, window, session *string) error {
	if p := str(pane); pane != nil && !tmux.ValidPaneID(p) {
		return notPaneID("pane_id", p)
	}
	if w := str(window); window != nil && !tmux.ValidWindowID(w) {
		return notWindowID(w)
	}
	if s := str(session); session != nil && !tmux.ValidSessionID(s) {
		hint := "Session ids look like $1; list_sessions shows them."
		if s != "" && !strings.ContainsAny(s, ":.$") && quotable(s) {
			hint = fmt.Sprintf("For a session's name, pass session_name=%q; session ids look like $1 (list_sessions shows them).", s)
		}
		return fail(hint, "session_id %q is not a session id", truncate(s, 80))
	}
	return nil
}

// quotable reports whether a name taken from a malformed id can be offered back in a hint as
// an argument's value: short, and without a quote to confuse its quoting.
func quotable(s string) bool { return len(s) <= 80 && !strings.Contains(s, `"`) }

// notWindowID is the error for a window_id that is not one: an index or a tmux target
// (work:1) is told how the tools take it, session_name and window_index.
func notWindowID(w string) error {
	hint := "Window ids look like @1; list_windows shows them."
	sess, idx, target := strings.Cut(w, ":")
	if !target {
		sess, idx = "", w
	}
	if _, err := strconv.Atoi(idx); err == nil && !strings.Contains(sess, ".") && quotable(sess) {
		hint = fmt.Sprintf("For a window by its index, pass window_index=%s", idx)
		if sess != "" {
			hint += fmt.Sprintf(" with session_name=%q", sess)
		}
		hint += " (where the tool takes them); window ids look like @1 (list_windows shows them)."
	}
	return fail(hint, "window_id %q is not a window id", truncate(w, 80))
}

// notPaneID is the error for argument name, which takes a pane id and got v: tmux's own
// targets (work:1.2, work:1, a pane's index) are said to be such, with the call that lists the
// ids of what they name.
func notPaneID(name, v string) error {
	msg := fmt.Sprintf("%s %q is not a pane id", name, truncate(v, 80))
	if kind := tmuxTarget(v); kind != "" {
		msg += " but " + kind
	}
	return fail(paneIDHint(v), "%s", msg)
}

// tmuxTarget says what a value given for a pane id is when it is a tmux target or an index,
// and why tools take ids instead ("" when it looks like neither).
func tmuxTarget(v string) string {
	if v == "" || strings.HasPrefix(v, "%") || strings.ContainsAny(v, " \t\n") {
		return ""
	}
	if _, err := strconv.Atoi(v); err == nil {
		return "an index: tmux's indices change as panes and windows come and go, so tools take ids"
	}
	if strings.ContainsAny(v, ":.") {
		return "a tmux target (session:window.pane): tools take the pane's id, which stays the same while the pane lives"
	}
	return ""
}

// paneIDHint says where the pane ids are: those of a target's session when v is a tmux target
// that names one.
func paneIDHint(v string) string {
	if sess, _, ok := strings.Cut(v, ":"); ok && sess != "" && quotable(sess) {
		return fmt.Sprintf("Pane ids look like %%1: list_panes session_name=%q shows them, with each pane's window and index.", sess)
	}
	return "Pane ids look like %1; list_panes shows them, with each pane's window and index."
}

// target is a resolved call target with what was read of it.
type target struct {
	ts *tmux.Server
	// snap is what the resolution read: for a pane, its record (and what reads asked for:
	// its window, the clients), for a window its record, for a session every session; the
	// whole topology only where the resolution needed it (readAll, a target that does not
	// exist, a window linked more than once). What it holds answers for the target as the
	// whole snapshot would.
	snap    *tmux.Snapshot
	session tmux.Session
	window  tmux.Window
	pane    tmux.Pane
}

// reads say what a call reads of its target besides the target's own record.
type reads uint8

const (
	readClients  reads = 1 << iota // the clients: whether a pane is watched
	readWindow                     // a pane's window
	readPanes                      // a window's panes
	readWindows                    // a session's windows
	readSessions                   // every session, to resolve another one by name or id
	readAll                        // the whole topology (the caller guards: where this server's pane is)
	// idOnly: of a pane, only its id (t.pane holds PaneID alone), for a call that reads the
	// pane itself with tmux (then): its record costs tmux two /proc lookups.
	idOnly
)

// parts are the parts of tmux.SnapshotOf that r asks for.
func (r reads) parts() tmux.What {
	var w tmux.What
	if r&readClients != 0 {
		w |= tmux.WithClients
	}
	if r&(readWindow|readWindows) != 0 {
		w |= tmux.WithWindows
	}
	if r&readPanes != 0 {
		w |= tmux.WithPanes
	}
	return w
}

// paneParts are the parts of tmux.SnapshotOf that r asks for of a pane target: its record too,
// unless idOnly.
func (r reads) paneParts() tmux.What {
	if r&idOnly != 0 {
		return r.parts()
	}
	return r.parts() | tmux.WithPanes
}

// fastFailed reports whether a read of the target alone failed in a way the whole snapshot
// cannot answer better: tmux did not answer in time, or the call is over. Any other failure
// (no such object, a linked window, no server) is read again the old way, so that every
// error says what it always said (the candidates of a miss need the whole topology).
func fastFailed(ctx context.Context, err error) bool {
	var te *toolError // a session name or id missing from the list of sessions: said as always
	return ctx.Err() != nil || errors.Is(err, tmux.ErrTimeout) || errors.As(err, &te)
}

// snapshot reads the whole topology of the call's server.
func (c *Call) snapshot(ctx context.Context, sock *string) (*tmux.Server, *tmux.Snapshot, error) {
	ts, err := c.tmuxFor(sock)
	if err != nil {
		return nil, nil, err
	}
	snap, err := ts.Snapshot(ctx, tmux.WithAll)
	if err != nil {
		return nil, nil, err
	}
	return ts, snap, nil
}

// resolveSession finds the session: session_id wins, then the exact session_name, then the
// first session in id order.
func resolveSession(snap *tmux.Snapshot, sessionID, sessionName *string) (tmux.Session, error) {
	if err := checkIDs(nil, nil, sessionID); err != nil {
		return tmux.Session{}, err
	}
	if len(snap.Sessions) == 0 {
		return tmux.Session{}, fail("Create one with create_session.", "the tmux server has no sessions")
	}
	names := func() string {
		var c []string
		for _, s := range snap.Sessions {
			c = append(c, fmt.Sprintf("%s (%s)", s.SessionName, s.SessionID))
		}
		return candidates(c)
	}
	switch {
	case sessionID != nil:
		for _, s := range snap.Sessions {
			if s.SessionID == *sessionID {
				return s, nil
			}
		}
		return tmux.Session{}, fail("Sessions: "+names()+".", "no session has id %s", *sessionID)
	case sessionName != nil:
		for _, s := range snap.Sessions {
			if s.SessionName == *sessionName {
				return s, nil
			}
		}
		return tmux.Session{}, fail("Sessions: "+names()+" (names match exactly).", "no session is named %q", truncate(*sessionName, 80))
	}
	first := snap.Sessions[0]
	for _, s := range snap.Sessions[1:] {
		if idNum(s.SessionID) < idNum(first.SessionID) {
			first = s
		}
	}
	return first, nil
}

// parseIndex reads a window index in its one form: decimal digits with no sign, space or
// leading zero ("0", "12"), below a billion.
func parseIndex(s string) (int, bool) {
	if s == "" || len(s) > 9 || s[0] == '0' && len(s) > 1 || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// notAnIndex is the error for a window_index that is not a number: most often a window's name,
// which tmux's own targets take but an index cannot be (a window may be named "2").
func notAnIndex(snap *tmux.Snapshot, sess tmux.Session, arg string) error {
	for _, w := range snap.Windows {
		if w.SessionID == sess.SessionID && w.WindowName == arg {
			return fail(fmt.Sprintf("Pass window_index %d or window_id %q for the window named %q.", w.WindowIndex, w.WindowID, arg),
				"window_index %q is a window's name, not its index", truncate(arg, 40))
		}
	}
	return fail("Pass the window's number as plain digits, e.g. 0 or \"12\" (list_windows shows them), or its window_id.", "window_index %q is not a window index", truncate(arg, 40))
}

func idNum(id string) int {
	n, err := strconv.Atoi(strings.TrimLeft(id, "%@$"))
	if err != nil {
		return 1 << 30
	}
	return n
}

func candidates(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	more := ""
	if len(list) > 12 {
		more = fmt.Sprintf(" and %d more", len(list)-12)
		list = list[:12]
	}
	return strings.Join(list, ", ") + more
}

// agreesPane refuses a target whose other arguments name another place than pane_id's pane.
// The most specific argument wins, but acting there when the caller said otherwise would
// act on a pane it did not mean: an id kept from before a restart of tmux, a session renamed.
func agreesPane(snap *tmux.Snapshot, p tmux.Pane, t PaneTarget) error {
	if t.PaneID == nil {
		return nil
	}
	what := "pane " + p.PaneID
	if t.WindowID != nil && *t.WindowID != p.WindowID {
		return fail("Pass pane_id alone, or the window_id it is in (list_panes shows where each pane is).", "%s is in window %s, not in window_id %s", what, p.WindowID, *t.WindowID)
	}
	return agreesSession(links(snap, p.WindowID, p.SessionID, p.SessionName, -1), t.SessionTarget, nil, what)
}

// agreesWindow is agreesPane for window_id's window: session_id, session_name and
// window_index must name one of its places (a window linked into several sessions has one
// index in each).
func agreesWindow(snap *tmux.Snapshot, w tmux.Window, t WindowTarget) error {
	if t.WindowID == nil {
		return nil
	}
	return agreesSession(links(snap, w.WindowID, w.SessionID, w.SessionName, w.WindowIndex), t.SessionTarget, t.WindowIndex, "window "+w.WindowID)
}

// links lists where a window is (session and index), from the snapshot's windows when it
// holds them, else from the one record read.
func links(snap *tmux.Snapshot, windowID, sessionID, sessionName string, index int) []tmux.Window {
	var out []tmux.Window
	for _, w := range snap.Windows {
		if w.WindowID == windowID {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		out = append(out, tmux.Window{WindowID: windowID, SessionID: sessionID, SessionName: sessionName, WindowIndex: index})
	}
	return out
}

// agreesSession checks the session arguments (and a window index) against a window's places.
func agreesSession(places []tmux.Window, t SessionTarget, idx *Index, what string) error {
	for _, w := range places {
		if (t.SessionID == nil || *t.SessionID == w.SessionID) && (t.SessionName == nil || *t.SessionName == w.SessionName) &&
			(idx == nil || w.WindowIndex < 0 || string(*idx) == strconv.Itoa(w.WindowIndex)) {
			return nil
		}
	}
	if t.SessionID == nil && t.SessionName == nil && idx == nil {
		return nil
	}
	w := places[0]
	where := fmt.Sprintf("session %s (%s)", w.SessionName, w.SessionID)
	if idx != nil && w.WindowIndex >= 0 {
		where += fmt.Sprintf(" at index %d", w.WindowIndex)
	}
	return fail("Pass the id alone (it names one place), or arguments that agree with it (list_panes shows where each pane is).",
		"%s is in %s, not where session_id, session_name or window_index say", what, where)
}

func findWindow(snap *tmux.Snapshot, id string) (tmux.Window, bool) {
	for _, w := range snap.Windows {
		if w.WindowID == id {
			return w, true
		}
	}
	return tmux.Window{}, false
}

func windowCandidates(snap *tmux.Snapshot, sessionID string) string {
	var c []string
	for _, w := range snap.Windows {
		if sessionID == "" || w.SessionID == sessionID {
			c = append(c, fmt.Sprintf("%s (%s:%d %s)", w.WindowID, w.SessionName, w.WindowIndex, w.WindowName))
		}
	}
	return candidates(c)
}

func paneCandidates(snap *tmux.Snapshot) string {
	var c []string
	seen := map[string]bool{}
	for _, p := range snap.Panes {
		if !seen[p.PaneID] {
			seen[p.PaneID] = true
			c = append(c, fmt.Sprintf("%s (%s:%d.%d)", p.PaneID, p.SessionName, p.WindowIndex, p.PaneIndex))
		}
	}
	sort.SliceStable(c, func(i, j int) bool {
		return idNum(c[i][:strings.IndexByte(c[i], ' ')]) < idNum(c[j][:strings.IndexByte(c[j], ' ')])
	})
	return candidates(c)
}

// resolveWindowIn finds a window: window_id wins, else window_index within the session, else
// the session's active window.
func resolveWindowIn(snap *tmux.Snapshot, t WindowTarget) (tmux.Window, error) {
	if err := checkIDs(nil, t.WindowID, t.SessionID); err != nil {
		return tmux.Window{}, err
	}
	if t.WindowID != nil {
		if w, ok := findWindow(snap, *t.WindowID); ok {
			return w, agreesWindow(snap, w, t)
		}
		return tmux.Window{}, fail("Windows: "+windowCandidates(snap, "")+".", "no window has id %s", *t.WindowID)
	}
	sess, err := resolveSession(snap, t.SessionID, t.SessionName)
	if err != nil {
		return tmux.Window{}, err
	}
	if t.WindowIndex != nil {
		idx, ok := parseIndex(index(t.WindowIndex))
		if !ok {
			return tmux.Window{}, notAnIndex(snap, sess, index(t.WindowIndex))
		}
		for _, w := range snap.Windows {
			if w.SessionID == sess.SessionID && w.WindowIndex == idx {
				return w, nil
			}
		}
		return tmux.Window{}, fail("Windows of "+sess.SessionName+": "+windowCandidates(snap, sess.SessionID)+".", "session %s has no window at index %d", sess.SessionName, idx)
	}
	for _, w := range snap.Windows {
		if w.SessionID == sess.SessionID && w.WindowID == sess.ActiveWindowID {
			return w, nil
		}
	}
	return tmux.Window{}, fmt.Errorf("session %s has no active window: %w", sess.SessionName, tmux.ErrNotFound)
}

// resolvePaneIn finds a pane: pane_id wins, else the window's active pane, else the session's.
func resolvePaneIn(snap *tmux.Snapshot, t PaneTarget) (tmux.Pane, error) {
	if err := checkIDs(t.PaneID, t.WindowID, t.SessionID); err != nil {
		return tmux.Pane{}, err
	}
	id := ""
	switch {
	case t.PaneID != nil:
		id = *t.PaneID
		if p, ok := snap.Pane(id); ok {
			return p, agreesPane(snap, p, t)
		}
		return tmux.Pane{}, fail("Panes: "+paneCandidates(snap)+".", "no pane has id %s", id)
	case t.WindowID != nil:
		w, err := resolveWindowIn(snap, WindowTarget{WindowID: t.WindowID})
		if err != nil {
			return tmux.Pane{}, err
		}
		id = w.ActivePaneID
	default:
		sess, err := resolveSession(snap, t.SessionID, t.SessionName)
		if err != nil {
			return tmux.Pane{}, err
		}
		id = sess.ActivePaneID
	}
	if p, ok := snap.Pane(id); ok {
		return p, nil
	}
	return tmux.Pane{}, fmt.Errorf("active pane %s: %w", id, tmux.ErrNotFound)
}

// pane resolves a pane target, reading the pane alone (see paneWith).
func (c *Call) pane(ctx context.Context, t PaneTarget, sock *string) (*target, error) {
	tg, err := c.paneWith(ctx, t, sock, 0, nil)
	return tg, err
}

// paneWith resolves a pane target from a read of that pane alone (tmux.SnapshotOf): its record
// and what r asks for, in t.snap. then, when set, gives read-only ops on the pane; they run in
// the same command list as the read when the pane's id was given (one round trip, one
// instant), else right after it, and hold their results. A session by name (or none: the
// first) is found in the list of sessions, which is what names match against exactly.
func (c *Call) paneWith(ctx context.Context, t PaneTarget, sock *string, r reads, then func(pane string) []tmux.Op) (*target, error) {
	if err := checkIDs(t.PaneID, t.WindowID, t.SessionID); err != nil {
		return nil, err
	}
	ts, err := c.tmuxFor(sock)
	if err != nil {
		return nil, err
	}
	if r&readAll == 0 {
		tg, err := c.paneAlone(ctx, ts, t, r, then)
		if tg != nil || fastFailed(ctx, err) {
			return tg, err
		}
	}
	ts, snap, err := c.snapshot(ctx, sock)
	if err != nil {
		return nil, err
	}
	p, err := resolvePaneIn(snap, t)
	if err != nil {
		return nil, err
	}
	tg := &target{ts: ts, snap: snap, pane: p}
	if then == nil {
		return tg, nil
	}
	return tg, ts.Batch(ctx, then(p.PaneID)...)
}

// paneAlone is paneWith's read of the pane alone. A nil target with a nil error means the
// answer needs the whole topology.
func (c *Call) paneAlone(ctx context.Context, ts *tmux.Server, t PaneTarget, r reads, then func(pane string) []tmux.Op) (*target, error) {
	var id string
	switch {
	case t.PaneID != nil:
		id = *t.PaneID
	case t.WindowID != nil:
		id = *t.WindowID // its record names its active pane
	default:
		sessions, err := ts.Snapshot(ctx, tmux.WithSessions)
		if err != nil {
			return nil, err
		}
		sess, err := resolveSession(sessions, t.SessionID, t.SessionName)
		if err != nil {
			return nil, err
		}
		id = sess.ActivePaneID
	}
	// then's commands target id too: for a window, tmux takes its active pane, the one its
	// record names in the same instant.
	var ops []tmux.Op
	if then != nil {
		ops = then(id)
	}
	if t.PaneID != nil && (t.WindowID != nil || t.SessionID != nil || t.SessionName != nil) {
		r &^= idOnly // the pane's record: where it is, to check the other arguments against
	}
	parts := r.paneParts()
	if tmux.ValidWindowID(id) {
		parts |= tmux.WithWindows // it names its active pane
	}
	snap, err := ts.SnapshotOf(ctx, id, parts, ops...)
	if snap == nil {
		return nil, err
	}
	if tmux.ValidWindowID(id) {
		id = snap.Windows[0].ActivePaneID
	}
	p, ok := snap.Pane(id)
	if ok {
		if err := agreesPane(snap, p, t); err != nil {
			return nil, err
		}
	}
	if r&idOnly != 0 {
		p, ok = tmux.Pane{PaneID: id}, true
	}
	if !ok {
		return nil, nil // the window's active pane is not among its panes: changing
	}
	return &target{ts: ts, snap: snap, pane: p}, err
}

// window resolves a window target, reading the window alone (see windowWith).
func (c *Call) window(ctx context.Context, t WindowTarget, sock *string) (*target, error) {
	return c.windowWith(ctx, t, sock, 0)
}

// windowWith resolves a window target from a read of that window alone (tmux.SnapshotOf): its
// record and what r asks for (its panes, the clients, every session), in t.snap.
func (c *Call) windowWith(ctx context.Context, t WindowTarget, sock *string, r reads) (*target, error) {
	if err := checkIDs(nil, t.WindowID, t.SessionID); err != nil {
		return nil, err
	}
	ts, err := c.tmuxFor(sock)
	if err != nil {
		return nil, err
	}
	if r&readAll == 0 {
		tg, err := c.windowAlone(ctx, ts, t, r)
		if tg != nil || fastFailed(ctx, err) {
			return tg, err
		}
	}
	ts, snap, err := c.snapshot(ctx, sock)
	if err != nil {
		return nil, err
	}
	w, err := resolveWindowIn(snap, t)
	if err != nil {
		return nil, err
	}
	return &target{ts: ts, snap: snap, window: w}, nil
}

// windowAlone is windowWith's read of the window alone. A nil target with a nil error means
// the answer needs the whole topology.
func (c *Call) windowAlone(ctx context.Context, ts *tmux.Server, t WindowTarget, r reads) (*target, error) {
	var sessions *tmux.Snapshot
	if t.WindowID == nil || r&readSessions != 0 {
		var err error
		if sessions, err = ts.Snapshot(ctx, tmux.WithSessions); err != nil {
			return nil, err
		}
	}
	id := str(t.WindowID)
	if t.WindowID == nil {
		sess, err := resolveSession(sessions, t.SessionID, t.SessionName)
		if err != nil {
			return nil, err
		}
		id = sess.ActiveWindowID
		if t.WindowIndex != nil {
			id = sess.SessionID // its windows, to find the index among
		}
	}
	snap, err := ts.SnapshotOf(ctx, id, r.parts()|tmux.WithWindows)
	if snap == nil {
		return nil, err
	}
	w, ok := snap.Windows[0], true
	if t.WindowIndex != nil && t.WindowID == nil {
		idx, valid := parseIndex(index(t.WindowIndex))
		w, ok = tmux.Window{}, false
		for _, sw := range snap.Windows {
			if valid && sw.WindowIndex == idx {
				w, ok = sw, true
			}
		}
	}
	if !ok {
		return nil, nil // no such window: the whole topology names the candidates
	}
	if err := agreesWindow(snap, w, t); err != nil {
		return nil, err
	}
	if sessions != nil {
		snap.Sessions, snap.Parts = sessions.Sessions, snap.Parts|tmux.WithSessions
	}
	return &target{ts: ts, snap: snap, window: w}, nil
}

// session resolves a session target from the list of sessions (see sessionWith).
func (c *Call) session(ctx context.Context, sessionID, sessionName, sock *string) (*target, error) {
	return c.sessionWith(ctx, sessionID, sessionName, sock, 0)
}

// sessionWith resolves a session target from the list of sessions (what names match against
// exactly, and what its errors name), with the clients (a session counts its attached ones)
// and what r asks for (its windows) in t.snap.
func (c *Call) sessionWith(ctx context.Context, sessionID, sessionName, sock *string, r reads) (*target, error) {
	if err := checkIDs(nil, nil, sessionID); err != nil {
		return nil, err
	}
	ts, err := c.tmuxFor(sock)
	if err != nil {
		return nil, err
	}
	what := tmux.WithSessions | tmux.WithClients
	if r&readAll != 0 {
		what = tmux.WithAll
	}
	snap, err := ts.Snapshot(ctx, what)
	if err != nil {
		return nil, err
	}
	sess, err := resolveSession(snap, sessionID, sessionName)
	if err != nil {
		return nil, err
	}
	if r&readWindows != 0 && r&readAll == 0 {
		of, err := ts.SnapshotOf(ctx, sess.SessionID, tmux.WithWindows)
		if err != nil {
			return nil, err
		}
		snap.Windows, snap.Parts = of.Windows, snap.Parts|tmux.WithWindows
	}
	return &target{ts: ts, snap: snap, session: sess}, nil
}
