package server

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/termstate"
	"github.com/tmux-mcp/tmux-mcp/runner"
	"github.com/tmux-mcp/tmux-mcp/server/policy"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Secrets the person types: type_secret, and runs that ask by themselves when their
// command waits for hidden input. The person types on a one-time page (secretpage.go) that the
// client opens through URL-mode elicitation; the server types it into the pane. The secret is
// never in a result, a notification, the audit log, a recording or an error: what is reported
// is that it was typed, and how many bytes.
//
// On 2026-07-28 a handler runs again from the start for each question (Call.Elicit). The page
// is opened in the first round and the secret typed when the person submits it, between the
// rounds; the page's id rides in the request state (Call.keep), so the next round finds the
// page, reads its outcome, and never opens a second one or types twice.

// secretPages are the pages open or ended but not yet read, by id.
type secretPages struct {
	mu    sync.Mutex
	pages map[string]*secretPage
}

func (sp *secretPages) add(pg *secretPage) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.pages == nil {
		sp.pages = map[string]*secretPage{}
	}
	sp.pages[pg.id] = pg
	// Forget it a while after it ended, whether or not a later round read it.
	keep := secretTTL
	go func() {
		<-pg.done
		time.Sleep(keep)
		sp.mu.Lock()
		delete(sp.pages, pg.id)
		sp.mu.Unlock()
	}()
}

func (sp *secretPages) get(id string) *secretPage {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.pages[id]
}

// closeAll ends every open page (the server is closing).
func (sp *secretPages) closeAll() {
	sp.mu.Lock()
	all := make([]*secretPage, 0, len(sp.pages))
	for _, pg := range sp.pages {
		all = append(all, pg)
	}
	sp.mu.Unlock()
	for _, pg := range all {
		pg.end(errPageClosed)
	}
}

// ---- type_secret

// typeSecretIn takes a pane by its id only: a secret goes exactly where the agent saw it asked.
type typeSecretIn struct {
	PaneID  string  `json:"pane_id"`
	Message *string `json:"message,omitempty"`
	Enter   bool    `json:"enter,omitempty"`
	Socket
}

// TypeSecretOut is type_secret's result: never the secret.
type TypeSecretOut struct {
	PaneID string `json:"pane_id"`
	Typed  bool   `json:"typed"`
	Bytes  int    `json:"bytes" jsonschema:"length of what the person typed"`
}

// secretTools declares type_secret, in as few bytes of tools/list as will do: the handshake
// instructions say the rest (never ask for a secret in the chat).
func secretTools() []*Tool {
	return []*Tool{define(spec{Name: "type_secret", Title: "Type a Secret", Tier: policy.Mutating, Toolsets: []string{policy.Execute}, Ann: annSHELL, NoOutputSchema: true,
		Description: "The person types a pane's password (input_hidden) on a one-time page; you get its length only.",
		Input:       edits(def("enter", true))},
		typeSecret)}
}

func typeSecret(ctx context.Context, c *Call, in *typeSecretIn) (TypeSecretOut, error) {
	if err := checkIDs(&in.PaneID, nil, nil); err != nil {
		return TypeSecretOut{}, err
	}
	t, err := c.pane(ctx, PaneTarget{PaneID: &in.PaneID}, in.SocketName)
	if err != nil {
		return TypeSecretOut{}, err
	}
	p := t.pane
	if !c.canOpenPage() {
		return TypeSecretOut{}, fail(attachHint(t.ts, p),
			"type_secret needs the person to type the secret on a page, and this client cannot open one (it declared no URL-mode elicitation)")
	}
	var pg *secretPage
	if id := c.recall(noteSecretPage); id != "" {
		if pg = c.srv.secrets.get(id); pg == nil || pg.pane != p.PaneID {
			return TypeSecretOut{}, fail("Call type_secret again for a new page.", "the page of this request for a secret is gone (it expired)")
		}
	} else {
		if err := hiddenNow(ctx, t.ts, p); err != nil {
			return TypeSecretOut{}, err
		}
		if pg, err = c.openPage(ctx, t.ts, p, str(in.Message), in.Enter); err != nil {
			return TypeSecretOut{}, err
		}
		c.keep(noteSecretPage, pg.id)
	}
	n, err := c.askPage(ctx, "secret", pg)
	if err != nil {
		return TypeSecretOut{}, err
	}
	return TypeSecretOut{PaneID: p.PaneID, Typed: true, Bytes: n}, nil
}

// noteSecretPage keeps type_secret's page id for its next round; noteRunPage a run's, as
// "round id".
const (
	noteSecretPage = "secret_page"
	noteRunPage    = "run_secret"
)

// attachHint says how the person types a secret into pane p of ts themselves.
func attachHint(ts *tmux.Server, p tmux.Pane) string {
	tm := "tmux"
	for _, a := range ts.SocketArgs() {
		tm += " " + shellQuote(a)
	}
	return fmt.Sprintf("Ask the person to type it into pane %s themselves: %s attach -t %s, then window %d pane %d (%s select-pane -t %s). Never ask for it in the chat. wait_for_run pane_id=%s goes on after they typed it; they then detach (prefix d), as runs are refused in a pane a person has on screen.",
		p.PaneID, tm, shellQuote(p.SessionName), p.WindowIndex, p.PaneIndex, tm, p.PaneID, p.PaneID)
}

// canOpenPage reports whether the client can open a page for its person (URL-mode elicitation).
func (c *Call) canOpenPage() bool {
	if c.req == nil || c.req.Session == nil {
		return false
	}
	caps := c.req.ClientCapabilities()
	return caps != nil && caps.Elicitation != nil && caps.Elicitation.URL != nil
}

// hiddenNow refuses a pane whose terminal shows what is typed: a secret typed there would be
// on screen. A pane whose terminal cannot be read (on another host) is not refused.
func hiddenNow(ctx context.Context, ts *tmux.Server, p tmux.Pane) error {
	if !ts.Local() {
		return nil
	}
	m, err := termstate.ReadMode(p.PaneTTY)
	if err != nil || secretMode(ctx, ts, m, p, nil) {
		return nil
	}
	return fail("Start the program that asks for it first (run_command), then call type_secret while it waits (input_hidden: true).",
		"pane %s does not wait for hidden input: its terminal shows what is typed, so a secret typed there would be on screen", p.PaneID)
}

// inputHidden reports whether pane p's program reads hidden input: its terminal in canonical
// mode with echo off, as getpass, sudo, ssh and read -s set it (a shell's line editor at its
// prompt has it raw), or see secretMode. screen is the pane's screen when the caller has it.
// Unknown (another host, an unreadable tty) is false.
func inputHidden(ctx context.Context, ts *tmux.Server, p tmux.Pane, screen []string) bool {
	if !ts.Local() || p.PaneDead {
		return false
	}
	m, err := termstate.ReadMode(p.PaneTTY)
	return err == nil && secretMode(ctx, ts, m, p, screen)
}

// secretMode reports whether pane p, its terminal in mode m, reads a secret it does not show:
// termstate's Table.SecretInput, from its command and its processes, or keys read one at a
// time with echo off after a prompt for a secret (Mode.SecretAsked: fish's read -s, the
// prompt libraries of command-line tools), its last line read from screen (the pane's
// screen, read now when nil).
func secretMode(ctx context.Context, ts *tmux.Server, m termstate.Mode, p tmux.Pane, screen []string) bool {
	if termstate.New().SecretInput(m, p.PanePID, p.PaneCurrentCommand) {
		return true
	}
	if !m.Raw() || m.Echo {
		return false
	}
	if screen == nil {
		cp := &tmux.Capture{Pane: p.PaneID}
		if ts.Do(ctx, cp) != nil {
			return false
		}
		screen = cp.Lines
	}
	return m.SecretAsked(lastLine(screen))
}

// lastLine is the last line of lines that is not blank, trimmed.
func lastLine(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}

// openPage opens a page that types into pane p, and lists it.
func (c *Call) openPage(ctx context.Context, ts *tmux.Server, p tmux.Pane, message string, enter bool) (*secretPage, error) {
	shows := ""
	if cp := (&tmux.Capture{Pane: p.PaneID}); ts.Do(ctx, cp) == nil {
		shows = truncate(lastLine(cp.Lines), 200)
	}
	if p.TypesIntoOthers() {
		return nil, syncedRefusal(p)
	}
	program := p.PaneCurrentCommand
	pg, err := openSecretPage(p.PaneID, program, shows, truncate(message, 500), func(secret string) (int, error) {
		return c.srv.typeSecretInto(ts, p, secret, enter)
	})
	if err != nil {
		return nil, err
	}
	c.srv.secrets.add(pg)
	if s := c.mcpSession(); s != nil && c.req.ProtocolVersion() < "2026-07-28" {
		// Tell the client the page is done with, where the session outlives the call.
		go func() {
			<-pg.done
			nctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			s.NotifyElicitationComplete(nctx, &mcp.ElicitationCompleteParams{ElicitationID: pg.id})
		}()
	}
	return pg, nil
}

// mcpSession is the call's MCP session; nil in-process.
func (c *Call) mcpSession() *mcp.ServerSession {
	if c.req == nil {
		return nil
	}
	return c.req.Session
}

// askPage asks the client to open pg (URL-mode elicitation, under key) and waits until the
// person submitted it; it returns how many bytes were typed. A declined or cancelled question
// ends the page.
func (c *Call) askPage(ctx context.Context, key string, pg *secretPage) (int, error) {
	msg := fmt.Sprintf("A program in tmux pane %s (%s) waits for a password or another secret. Open this page to type it there; the agent will not see it.", pg.pane, pg.program)
	res, err := c.Elicit(ctx, key, &mcp.ElicitParams{Mode: "url", Message: msg, URL: pg.url, ElicitationID: pg.id})
	var in *inputRequired
	if errors.As(err, &in) {
		return 0, err // the page stays open for the next round
	}
	if err != nil {
		pg.end(errPageClosed)
		return 0, err
	}
	if res.Action != "accept" {
		pg.end(errPageClosed)
		n, err := pg.result()
		if err == nil {
			return n, nil // the person had typed it before they dismissed the question
		}
		return 0, fail(fmt.Sprintf("Nothing was typed into pane %s. Ask the person in your reply what to do; never ask for the secret in the chat.", pg.pane),
			"the person did not open the page for the secret (%s)", res.Action)
	}
	select {
	case <-pg.done:
	case <-ctx.Done():
		pg.end(errPageClosed)
		return 0, ctx.Err()
	}
	n, err := pg.result()
	switch {
	case errors.Is(err, errPageExpired):
		return 0, fail("Call again to open a new page.", "the page expired after %s without a secret typed into pane %s", secretTTL, pg.pane)
	case err != nil:
		return 0, fail("Look at the pane (snapshot_pane), then call again if it still waits.", "nothing was typed into pane %s: %v", pg.pane, err)
	}
	return n, nil
}

// typeSecretInto types secret into pane p literally, then Enter when enter, and records that
// it did (audit, recordings) without the secret. It refuses a terminal that echoes.
func (s *Server) typeSecretInto(ts *tmux.Server, p tmux.Pane, secret string, enter bool) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := hiddenNow(ctx, ts, p); err != nil {
		return 0, fmt.Errorf("pane %s no longer waits for hidden input (its terminal shows what is typed)", p.PaneID)
	}
	// Read again: synchronize-panes may have been turned on since the page opened.
	now := &tmux.PaneRecord{Pane: p.PaneID}
	if err := ts.Do(ctx, now); err != nil {
		return 0, fmt.Errorf("pane %s could not be read before typing: %w", p.PaneID, err)
	}
	if now.Record.TypesIntoOthers() {
		return 0, syncedRefusal(now.Record)
	}
	ops := []tmux.Op{&tmux.SendText{Pane: p.PaneID, Text: secret}}
	if enter {
		ops = append(ops, &tmux.SendKeys{Pane: p.PaneID, Keys: []string{"Enter"}})
	}
	s.rec.mark(ts, p.PaneID, fmt.Sprintf("hidden input: a secret of %d bytes typed by the person", len(secret)))
	if err := ts.Batch(ctx, ops...); err != nil {
		// tmux's words could quote the command: they are not passed on.
		return 0, fmt.Errorf("tmux could not type into pane %s", p.PaneID)
	}
	if s.audit != nil {
		s.audit.Secret(p.PaneID, len(secret))
	}
	return len(secret), nil
}

// syncedRefusal refuses to type a secret into pane p whose keys go to other panes too
// (synchronize-panes): there, a shell's command line would show it.
func syncedRefusal(p tmux.Pane) error {
	return fail(fmt.Sprintf("Ask the person to turn synchronize-panes off for window %s (or, if they agree, set_option option=synchronize-panes value=off scope=window target=%s), then call again.", p.WindowID, p.WindowID),
		"pane %s is in a window with synchronize-panes on: a secret typed into it would also be typed into the other panes of its window, where it would show; nothing was typed", p.PaneID)
}

// mark places a marker in every recording of pane.
func (rs *recordings) mark(ts *tmux.Server, pane, label string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, e := range rs.running {
		if e.ts == ts && e.pane == pane && e.rec != nil {
			e.rec.Mark(label)
		}
	}
}

// ---- runs that ask by themselves

// maxRunAsks bounds the secrets one call asks for (a program asking again and again).
const maxRunAsks = 3

// autoSecrets reports whether a run of this call asks the person for a secret itself: not
// turned off (LIBTMUX_MCP_SECRETS=off), type_secret offered (the tier, toolsets and exclusions
// allow typing), and a client that can open a page.
func (c *Call) autoSecrets() bool {
	return c.srv.opts.Secrets != "off" && c.srv.tools["type_secret"] != nil && c.canOpenPage()
}

// withSecrets runs first (a run, or a wait for one, in pane of ts), and while its result says
// the command waits for hidden input and autoSecrets, has the person type the secret and waits
// for the run again (for timeout each time). On 2026-07-28, a round after the one that asked
// does not call first: it reads the page's outcome and waits for the run.
func (c *Call) withSecrets(ctx context.Context, ts *tmux.Server, p tmux.Pane, timeout time.Duration, first func() (runner.Result, error)) (runner.Result, error) {
	pane := p.PaneID
	round := 0
	var res runner.Result
	var err error
	// typed: the person typed the last secret asked for. One they declined, cancelled or let
	// expire is not asked for again in this call: the agent gets the run as it stands.
	typed := true
	if note := c.recall(noteRunPage); note != "" {
		r, id, _ := strings.Cut(note, " ")
		round, _ = strconv.Atoi(r)
		pg := c.srv.secrets.get(id)
		if pg != nil && pg.pane != pane {
			pg = nil
		}
		res, typed, err = c.runPageRound(ctx, ts, pane, round, pg, timeout)
		round++
	} else {
		res, err = first()
	}
	for ; err == nil && typed && round < maxRunAsks && res.WaitingForInput && res.InputHidden && c.autoSecrets(); round++ {
		pg, e := c.openPage(ctx, ts, p, "", true)
		if e != nil {
			return res, nil // no page: the result as it stands
		}
		c.keep(noteRunPage, strconv.Itoa(round)+" "+pg.id)
		res, typed, err = c.runPageRound(ctx, ts, pane, round, pg, timeout)
	}
	return res, err
}

// runPageRound asks the client to open pg and, once the secret is typed, waits for the run in
// pane again; typed says the secret was typed. Declined, cancelled or expired: the run's result
// as it stands (waiting for input), not typed.
func (c *Call) runPageRound(ctx context.Context, ts *tmux.Server, pane string, round int, pg *secretPage, timeout time.Duration) (res runner.Result, typed bool, err error) {
	rec, err := c.lastRun(ctx, ts, pane)
	if err != nil {
		return runner.Result{}, false, err
	}
	if rec == nil {
		return runner.Result{}, false, fmt.Errorf("pane %s has no run of this server any more", pane)
	}
	if pg == nil {
		return rec.Result(), false, nil // its page expired and was forgotten
	}
	if _, err := c.askPage(ctx, "secret"+strconv.Itoa(round), pg); err != nil {
		var in *inputRequired
		if errors.As(err, &in) || ctx.Err() != nil {
			return runner.Result{}, false, err
		}
		return rec.Result(), false, nil
	}
	afterTyping(ts, pane, pg)
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res = c.srv.state.runs.Await(wctx, rec, c.runProgress(ctx, pane, timeout))
	if ctx.Err() != nil {
		return res, true, ctx.Err()
	}
	return res, true, nil
}

// afterTyping waits, briefly, for the program to read what was typed: its terminal leaves the
// hidden mode (else a wait for the run would find it still waiting for the same secret).
func afterTyping(ts *tmux.Server, pane string, pg *secretPage) {
	if !ts.Local() {
		time.Sleep(300 * time.Millisecond)
		return
	}
	st := &tmux.Screen{Pane: pane}
	if err := ts.Do(context.Background(), st); err != nil || st.TTY == "" {
		return
	}
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if m, err := termstate.ReadMode(st.TTY); err != nil || !m.Secret(st.Command) {
			return
		}
	}
}
