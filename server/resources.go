package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/server/seeds"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// readState is the live state of the read side: pane streams kept for cursors, resource
// subscriptions and the topology watches behind list_changed. Its zero value is ready.
type readState struct {
	live liveStreams
	subs subscriptions
	topo topology
}

// close releases the streams, subscriptions and watches (the server is closing).
func (rs *readState) close() {
	rs.subs.closeAll()
	rs.topo.closeAll()
	rs.live.CloseAll()
}

// The resource templates; get_pane_content is seed 001, verbatim (server/seeds).
var resourceTemplates = []*mcp.ResourceTemplate{
	{
		Name: "get_sessions", Title: "All Sessions", MIMEType: "application/json",
		URITemplate: "tmux://sessions{?socket_name}",
		Description: "List the sessions of a tmux server as a JSON array (ids, names, window counts, attached terminal clients, active window and pane).",
	},
	{
		Name: "get_session", Title: "Session Detail", MIMEType: "application/json",
		URITemplate: "tmux://sessions/{session_name}{?socket_name}",
		Description: "One tmux session (by exact name, percent-encoded in the URI) with its windows, as JSON.",
	},
	{
		Name: "get_session_windows", Title: "Session Windows", MIMEType: "application/json",
		URITemplate: "tmux://sessions/{session_name}/windows{?socket_name}",
		Description: "The windows of a tmux session as a JSON array.",
	},
	{
		Name: "get_window", Title: "Window Detail", MIMEType: "application/json",
		URITemplate: "tmux://sessions/{session_name}/windows/{window_index}{?socket_name}",
		Description: "One window of a tmux session (by index) with its panes, as JSON.",
	},
	{
		Name: "get_pane", Title: "Pane Detail", MIMEType: "application/json",
		URITemplate: "tmux://panes/{pane_id}{?socket_name}",
		Description: "One tmux pane (pane_id such as %1, raw or percent-encoded as %251) as JSON: geometry, command, path, flags, is_caller, is_watched.",
	},
	seeds.Template("get_pane_content"),
}

// addResources registers the resource templates, and a middleware that lets raw pane ids
// (tmux://panes/%1/content) reach them and starts the topology watch behind list_changed.
func (s *Server) addResources() {
	for _, t := range resourceTemplates {
		if len(s.hosts) > 0 && t.Name != "get_pane_content" {
			// With hosts, the templates take ?host= too; the seed's stays exact (a URI may
			// still add ?host=: see matchURI).
			c := *t
			c.URITemplate = strings.Replace(c.URITemplate, "{?socket_name}", "{?socket_name,host}", 1)
			t = &c
		}
		s.mcp.AddResourceTemplate(t, s.readResource)
	}
	s.addScreenshotResource()
	s.mcp.AddReceivingMiddleware(s.resourceMiddleware)
}

// resourceMiddleware rewrites a raw % that is not a percent-encoding (tmux://panes/%1) to %25
// before the SDK matches the URI against the templates, and puts the URI the client sent back
// into the result. Resource requests also start the topology watch of the default server.
func (s *Server) resourceMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "resources/list":
			s.ensureTopology(nil, nil)
			return s.listResources(ctx), nil
		case "resources/templates/list", "resources/subscribe":
			s.ensureTopology(nil, nil)
		case "resources/read":
			r, ok := req.(*mcp.ReadResourceRequest)
			if !ok || r.Params == nil {
				break
			}
			s.ensureTopology(nil, nil)
			orig := r.Params.URI
			fixed := canonicalURI(orig)
			match := matchURI(fixed)
			if match != fixed {
				ctx = context.WithValue(ctx, resourceURIKey{}, fixed)
			}
			r.Params.URI = match
			res, err := next(ctx, method, req)
			r.Params.URI = orig
			if err != nil {
				return nil, explainMiss(orig, err)
			}
			if rr, ok := res.(*mcp.ReadResourceResult); ok && match != orig {
				for _, c := range rr.Contents {
					if c.URI == fixed || c.URI == match {
						c.URI = orig
					}
				}
			}
			return withText(res), nil
		}
		return next(ctx, method, req)
	}
}

// listResources answers resources/list with the default server's live objects: the session
// list, each session and its windows, each window, and each pane with its content. The list
// follows tmux (notifications/resources/list_changed says when to read it again); a server not
// running has only the (empty) session list.
func (s *Server) listResources(ctx context.Context) *mcp.ListResourcesResult {
	res := &mcp.ListResourcesResult{Resources: []*mcp.Resource{{
		Name: "sessions", Title: "tmux sessions", URI: "tmux://sessions", MIMEType: "application/json",
		Description: "Every session of the tmux server.",
	}}, Cacheable: privateLive}
	ts, err := s.tmuxDefault()
	if err != nil {
		return res
	}
	snap, err := ts.Snapshot(ctx, tmux.WithSessions|tmux.WithWindows|tmux.WithPanes)
	if err != nil {
		return res
	}
	add := func(name, title, uri, mime string) {
		res.Resources = append(res.Resources, &mcp.Resource{Name: name, Title: title, URI: uri, MIMEType: mime})
	}
	seen := map[string]bool{}
	for _, sess := range snap.Sessions {
		base := "tmux://sessions/" + uriVar(sess.SessionName)
		add("session", "Session "+sess.SessionName, base, "application/json")
		add("session_windows", "Windows of session "+sess.SessionName, base+"/windows", "application/json")
		for _, w := range snap.SessionWindows(sess.SessionID) {
			idx := strconv.Itoa(w.WindowIndex)
			add("window", "Window "+sess.SessionName+":"+idx+" ("+w.WindowName+")", base+"/windows/"+idx, "application/json")
			for _, p := range snap.WindowPanes(w) {
				if seen[p.PaneID] {
					continue // a window linked into several sessions
				}
				seen[p.PaneID] = true
				pane := "tmux://panes/" + uriVar(p.PaneID)
				add("pane", "Pane "+p.PaneID+" in "+sess.SessionName+":"+idx, pane, "application/json")
				add("pane_content", "Content of pane "+p.PaneID+" ("+p.PaneCurrentCommand+")", pane+"/content", "text/plain")
			}
		}
	}
	return res
}

// uriVar expands a template variable as RFC 6570 does ({var}): each byte of the UTF-8 value
// that is not unreserved (A-Z a-z 0-9 - . _ ~) is percent-encoded. It is the form that the
// SDK's template matching takes and that clients build from a completion.
func uriVar(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if c := v[i]; isUnreserved(c) {
			b.WriteByte(c)
		} else {
			b.WriteString(pctEncode(c))
		}
	}
	return b.String()
}

func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func pctEncode(c byte) string { return fmt.Sprintf("%%%02X", c) }

// canonicalURI puts a tmux:// URI in the form the SDK's template matching takes: within a
// path segment or query value, each byte RFC 6570 would have encoded but the client sent
// raw is percent-encoded. So a % that starts no percent-encoding (tmux://panes/%1) becomes
// %25, and the characters JavaScript's encodeURIComponent leaves as they are (!'()*), or a
// URI built by hand ('$', ';', '+', a space), reach the template they were meant for; decoding
// then gives the same value. '/', '?', '&', '=' and ',' keep their meaning in the URI, and a
// '#' still starts a fragment.
func canonicalURI(u string) string {
	rest, ok := strings.CutPrefix(u, "tmux://")
	if !ok {
		return u
	}
	var b strings.Builder
	b.WriteString("tmux://")
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case c == '#':
			b.WriteString(rest[i:])
			return b.String()
		case c == '%' && i+2 < len(rest) && isHex(rest[i+1]) && isHex(rest[i+2]),
			isUnreserved(c), strings.IndexByte("/?&=,", c) >= 0:
			b.WriteByte(c)
		default:
			b.WriteString(pctEncode(c))
		}
	}
	return b.String()
}

// resourceURIKey carries, in a resources/read context, the URI the client asked for when the
// SDK was given another one to match (matchURI).
type resourceURIKey struct{}

// matchURI is the URI the SDK matches against the templates: u itself, or, when its query
// names a host, u without its query. The SDK matches a query only as far as a template
// declares it, and the seed's template declares socket_name alone; readResource parses the
// whole URI the client sent (resourceURIKey) and refuses what it does not take.
func matchURI(u string) string {
	base, query, ok := strings.Cut(u, "?")
	if !ok {
		return u
	}
	if q, err := parseQuery(query); err == nil && q["host"] != nil {
		return base
	}
	return u
}

// parseQuery reads a URI's query as RFC 6570 form-style expansion ({?socket_name,host}) writes
// it: name=value pairs joined by '&', percent-decoded and nothing else ('+' is a plus sign, not
// a space as in HTML forms). A name given twice keeps its first value.
func parseQuery(query string) (map[string]*string, error) {
	q := map[string]*string{}
	for _, pair := range strings.Split(query, "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		name, err := url.PathUnescape(k)
		if err != nil {
			return nil, fmt.Errorf("parameter name %q is not percent-encoded as URIs are", truncate(k, 40))
		}
		val, err := url.PathUnescape(v)
		if err != nil {
			return nil, fmt.Errorf("the value of %s, %q, is not percent-encoded as URIs are", name, truncate(v, 80))
		}
		if q[name] == nil {
			q[name] = &val
		}
	}
	return q, nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// resURI is a parsed resource URI.
type resURI struct {
	kind    string // sessions, session, windows, window, pane, content, screenshot
	session string
	window  int
	pane    string
	socket  *string
	host    *string
}

// parseResourceURI parses the URIs of resourceTemplates. Names and ids are percent-decoded;
// a pane id may also be raw (%1), which decoding cannot read.
func parseResourceURI(raw string) (resURI, error) {
	var u resURI
	rest, ok := strings.CutPrefix(raw, "tmux://")
	if !ok {
		return u, fmt.Errorf("not a tmux:// URI: %q", truncate(raw, 100))
	}
	rest, _, _ = strings.Cut(rest, "#")
	path, query, _ := strings.Cut(rest, "?")
	if err := u.readQuery(raw, query); err != nil {
		return u, err
	}
	segs := strings.Split(path, "/")
	switch {
	case segs[0] == "sessions" && len(segs) == 1:
		u.kind = "sessions"
	case segs[0] == "sessions" && len(segs) >= 2 && len(segs) <= 4:
		return u, u.parseSessionPath(path, segs)
	case segs[0] == "panes" && (len(segs) == 2 || len(segs) == 3 && (segs[2] == "content" || segs[2] == "screenshot")):
		return u, u.parsePanePath(segs)
	default:
		return u, fmt.Errorf("no resource has the path %q", truncate(path, 100))
	}
	return u, nil
}

// readQuery reads a resource URI's query: socket_name and host, nothing else.
func (u *resURI) readQuery(raw, query string) error {
	if query == "" {
		return nil
	}
	q, err := parseQuery(query)
	if err != nil {
		return fmt.Errorf("the query of %q: %w", truncate(raw, 100), err)
	}
	for k := range q {
		if k != "socket_name" && k != "host" {
			return fmt.Errorf("unknown query parameter %q (only socket_name and host are taken)", k)
		}
	}
	if v := q["socket_name"]; v != nil && *v != "" {
		u.socket = v
	}
	if v := q["host"]; v != nil && *v != "" {
		u.host = v
	}
	return nil
}

// parseSessionPath reads sessions/NAME, sessions/NAME/windows and sessions/NAME/windows/INDEX.
func (u *resURI) parseSessionPath(path string, segs []string) error {
	var err error
	if u.session, err = url.PathUnescape(segs[1]); err != nil || u.session == "" {
		return fmt.Errorf("session name %q is not a valid percent-encoded name", truncate(segs[1], 80))
	}
	switch {
	case len(segs) == 2:
		u.kind = "session"
	case segs[2] != "windows":
		return fmt.Errorf("no resource has the path %q", truncate(path, 100))
	case len(segs) == 3:
		u.kind = "windows"
	default:
		u.kind = "window"
		idx, err := url.PathUnescape(segs[3])
		ok := err == nil
		if ok {
			u.window, ok = parseIndex(idx)
		}
		if !ok {
			if err == nil { // as the client wrote it, not as canonicalURI encoded it
				segs[3] = idx
			}
			return fmt.Errorf("window index %q is not a window index (plain digits, e.g. 0)", truncate(segs[3], 40))
		}
	}
	return nil
}

// parsePanePath reads panes/ID, panes/ID/content and panes/ID/screenshot.
func (u *resURI) parsePanePath(segs []string) error {
	var ok bool
	if u.pane, ok = decodePaneID(segs[1]); !ok {
		if d, err := url.PathUnescape(segs[1]); err == nil {
			segs[1] = d // as the client wrote it, not as canonicalURI encoded it
		}
		return fmt.Errorf("pane id %q is not a pane id (%%1, or percent-encoded %%251)", truncate(segs[1], 80))
	}
	u.kind = "pane"
	if len(segs) == 3 {
		u.kind = segs[2] // content, or screenshot (screenshot.go serves it)
	}
	return nil
}

// decodePaneID reads a pane id segment: percent-encoded (%251) first, else raw (%1, %12).
func decodePaneID(seg string) (string, bool) {
	if d, err := url.PathUnescape(seg); err == nil && tmux.ValidPaneID(d) {
		return d, true
	}
	if tmux.ValidPaneID(seg) {
		return seg, true
	}
	return "", false
}

// uriForms says what to do about a URI that names no resource.
const uriForms = "resources/templates/list shows the URI forms (tmux://sessions/{session_name}, …/windows/{window_index}, tmux://panes/{pane_id}/content); resources/list shows what exists."

func invalidURI(uri string, err error) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid resource URI: " + err.Error() + ". " + uriForms, Data: uriData(uri)}
}

// resourceNotFound is the SDK's resource-not-found error with a message naming what is missing
// and what to do instead.
func resourceNotFound(uri, what, hint string) error {
	msg := "Resource not found: " + what
	if hint != "" {
		msg += ". " + hint
	}
	return &jsonrpc.Error{Code: mcp.CodeResourceNotFound, Message: msg, Data: uriData(uri)}
}

// explainMiss replaces the SDK's bare "Resource not found", its answer to a URI that matches
// no template, with what is wrong with the URI.
func explainMiss(uri string, err error) error {
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Message != "Resource not found" {
		return err
	}
	if _, perr := parseResourceURI(uri); perr != nil {
		return invalidURI(uri, perr)
	}
	return resourceNotFound(uri, fmt.Sprintf("no resource has the URI %q", truncate(uri, 100)), uriForms)
}

func uriData(uri string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"uri": uri})
	return b
}

// readResource serves every template.
func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	if asked, ok := ctx.Value(resourceURIKey{}).(string); ok {
		uri = asked
	}
	u, err := parseResourceURI(uri)
	if err != nil {
		return nil, invalidURI(uri, err)
	}
	if u.socket != nil || u.host != nil {
		s.ensureTopology(u.host, u.socket)
	}
	c := &Call{srv: s, host: u.host}
	v, err := c.resourceValue(ctx, u)
	if err != nil {
		return nil, resourceErr(uri, err)
	}
	if text, ok := v.(string); ok {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: text}}}, nil
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
}

// resourceErr makes a refusal or a missing object a resource-not-found error naming it.
func resourceErr(uri string, err error) error {
	var te *toolError
	if errors.As(err, &te) || errors.Is(err, tmux.ErrNotFound) || errors.Is(err, tmux.ErrServerNotRunning) {
		te = describe(err)
		return resourceNotFound(uri, te.Msg, te.Hint)
	}
	return err
}

// resourceValue reads what u names: a string for text/plain, else a value for JSON.
func (c *Call) resourceValue(ctx context.Context, u resURI) (any, error) {
	ts, err := c.tmuxFor(u.socket)
	if err != nil {
		return nil, err
	}
	if u.kind == "content" {
		lines, err := screenLines(ctx, ts, u.pane)
		if err != nil {
			if errors.Is(err, tmux.ErrNotFound) {
				return nil, fail("resources/list or list_panes shows the panes there are.", "no pane %s on this tmux server", u.pane)
			}
			return nil, err
		}
		return strings.Join(lines, "\n"), nil
	}
	snap, err := ts.Snapshot(ctx, tmux.WithAll)
	if err != nil {
		if u.kind == "sessions" && u.socket == nil && errors.Is(err, tmux.ErrServerNotRunning) {
			return []tmux.Session{}, nil // the default server simply has no sessions yet
		}
		return nil, err
	}
	var sess tmux.Session
	if u.session != "" {
		if sess, err = resolveSession(snap, nil, &u.session); err != nil {
			return nil, err
		}
	}
	switch u.kind {
	case "sessions":
		if snap.Sessions == nil {
			return []tmux.Session{}, nil
		}
		return snap.Sessions, nil
	case "session":
		return sessionInfoOut{Session: sess, Windows: snap.SessionWindows(sess.SessionID)}, nil
	case "windows":
		return snap.SessionWindows(sess.SessionID), nil
	case "window":
		for _, w := range snap.SessionWindows(sess.SessionID) {
			if w.WindowIndex == u.window {
				return windowInfoOut{Window: w, Panes: c.paneInfos(ctx, ts, snap, snap.WindowPanes(w))}, nil
			}
		}
		return nil, fail("Windows of "+sess.SessionName+": "+windowCandidates(snap, sess.SessionID)+".", "session %s has no window at index %d", sess.SessionName, u.window)
	case "pane":
		p, ok := snap.Pane(u.pane)
		if !ok {
			return nil, fail("Panes: "+paneCandidates(snap)+".", "no pane %s on this tmux server", u.pane)
		}
		return c.paneInfo(ctx, ts, snap, p), nil
	}
	return nil, fmt.Errorf("unknown resource kind %q", u.kind)
}

// ---- completions

// maxCompletions caps completion/complete's values.
const maxCompletions = 100

// complete answers completion/complete for the templates' pane_id, session_name and
// window_index and for pane ids (and session names) in prompt arguments, from the live server.
func (s *Server) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	p := req.Params
	if p == nil || p.Ref == nil {
		return res, nil
	}
	var args map[string]string
	if p.Context != nil {
		args = p.Context.Arguments
	}
	name := p.Argument.Name
	if p.Ref.Type == "ref/prompt" && name != "pane_id" && name != "session_name" {
		return res, nil
	}
	var sock, host *string
	if v := args["socket_name"]; v != "" {
		sock = &v
	}
	if v := args["host"]; v != "" {
		host = &v
	}
	ts, err := s.tmuxOn(host, sock)
	if err != nil {
		return res, nil
	}
	snap, err := ts.Snapshot(ctx, tmux.WithSessions|tmux.WithWindows|tmux.WithPanes)
	if err != nil {
		return res, nil // no server: nothing to offer
	}
	all := completions(snap, name, p.Argument.Value, args)
	res.Completion.Total = len(all)
	if len(all) > maxCompletions {
		all = all[:maxCompletions]
		res.Completion.HasMore = true
	}
	if all != nil {
		res.Completion.Values = all
	}
	return res, nil
}

// completions lists the values of argument name that start with prefix, in snap: pane ids (raw
// or percent-encoded prefixes), session names, or window indexes (of args' session_name, when
// given), each once, in order.
func completions(snap *tmux.Snapshot, name, prefix string, args map[string]string) []string {
	var all []string
	seen := map[string]bool{}
	add := func(v string) {
		if !seen[v] {
			seen[v] = true
			all = append(all, v)
		}
	}
	switch name {
	case "pane_id":
		raw := prefix
		if !strings.HasPrefix(raw, "%") {
			if d, err := url.PathUnescape(raw); err == nil && strings.HasPrefix(d, "%") {
				raw = d
			} else {
				raw = "%" + raw
			}
		}
		for _, pn := range snap.Panes {
			if strings.HasPrefix(pn.PaneID, raw) {
				add(pn.PaneID)
			}
		}
		sort.Slice(all, func(i, j int) bool { return idNum(all[i]) < idNum(all[j]) })
	case "session_name":
		for _, ss := range snap.Sessions {
			if strings.HasPrefix(ss.SessionName, prefix) {
				add(ss.SessionName)
			}
		}
		sort.Strings(all)
	case "window_index":
		sessName, hasSess := args["session_name"]
		var idx []int
		for _, w := range snap.Windows {
			v := strconv.Itoa(w.WindowIndex)
			if (!hasSess || w.SessionName == sessName) && strings.HasPrefix(v, prefix) && !seen[v] {
				seen[v] = true
				idx = append(idx, w.WindowIndex)
			}
		}
		sort.Ints(idx)
		for _, i := range idx {
			all = append(all, strconv.Itoa(i))
		}
	}
	return all
}
