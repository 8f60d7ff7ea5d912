package server

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// optionTools: options, environment and hooks (hooks are readable, never writable).
func optionTools() []*Tool {
	scopeEnum := enum("scope", "server", "session", "window", "pane")
	return []*Tool{
		define(spec{Name: "show_option", Title: "Show tmux Option", Tier: policy.ReadOnly, Ann: annRO,
			Description: "Read a tmux option's effective value (inherited included) for a target, or the global one; null for an unset @option.",
			Input:       edits(scopeEnum, def("global_", false))},
			showOption),
		define(spec{Name: "set_option", Title: "Set tmux Option", Tier: policy.Mutating, Toolsets: []string{policy.Manage}, Ann: annMUT,
			Description: "Set a tmux option: global, or of a target of the scope's kind (session, @window, %pane). Hooks cannot be set; #(...) only in @options.",
			Input:       edits(scopeEnum, def("global_", false))},
			setOption),
		define(spec{Name: "show_environment", Title: "Show tmux Environment", Tier: policy.ReadOnly, Ann: annRO,
			Description: "Read the environment tmux gives new processes: a session's, else global. A removed variable reads true."},
			showEnvironment),
		define(spec{Name: "set_environment", Title: "Set tmux Environment", Tier: policy.Mutating, Toolsets: []string{policy.Manage}, Ann: annMUT,
			Description: "Set a variable tmux gives new processes: a session's, else global. Running processes keep theirs."},
			setEnvironment),
		define(spec{Name: "show_hooks", Title: "Show tmux Hooks", Tier: policy.ReadOnly, Ann: annRO,
			Description: "List the hooks set: global, or of one session, window or pane.",
			Input:       edits(scopeEnum, def("global_", false))},
			showHooks),
		define(spec{Name: "show_hook", Title: "Show tmux Hook", Tier: policy.ReadOnly, Ann: annRO,
			Description: "Read one hook's commands (e.g. pane-died): global, or of a target; empty when unset.",
			Input:       edits(scopeEnum, def("global_", false))},
			showHook),
	}
}

// ScopeArgs are the scope arguments of the option and hook tools.
type ScopeArgs struct {
	Scope  *string `json:"scope,omitempty" jsonschema:"Default: inferred"`
	Target *string `json:"target,omitempty" jsonschema:"Session, @window or %pane; default: the first session"`
	Global bool    `json:"global_,omitempty"`
}

var (
	optionNameRe = lazyRegexp(`^(@[A-Za-z0-9_.-]{1,128}|[a-z][a-z0-9-]{0,63})(\[[0-9]{1,5}\])?$`)
	hookNameRe   = lazyRegexp(`^[a-z][a-z0-9-]{0,63}$`)
)

func checkOptionName(name string) error {
	if !optionNameRe().MatchString(name) {
		return fail("Option names look like status-left, mode-keys, @my-option or status-format[0] (no spaces, #, ; or quotes); tmux's manual lists them.", "option %q is not a valid option name", truncate(name, 80))
	}
	return nil
}

// scopeTarget is a resolved scope, and what the result reports as its target.
type scopeTarget struct {
	scope tmux.OptionScope
	label string
}

// resolveScope turns scope, target and global_ into tmux flags. Without a target, a session,
// window or pane scope means the first session (its active window or pane), never whatever
// tmux would take as "current" for this server's control connection. A target must be of the
// kind its scope needs, and a named option must belong to that scope: tmux would otherwise
// re-aim it (a pane option given a session sets the session's active pane; a session option
// given a pane sets the pane's session) without a word. A scope left out is inferred from the
// option (server, session or window options), else from the target's kind (user options).
// option is "" for hooks.
func (c *Call) resolveScope(ctx context.Context, a ScopeArgs, sock *string, option string) (*tmux.Server, scopeTarget, error) {
	scope := str(a.Scope)
	if err := checkScope(scope, a); err != nil {
		return nil, scopeTarget{}, err
	}
	ts, err := c.tmuxFor(sock)
	if err != nil {
		return nil, scopeTarget{}, err
	}
	if scope, err = c.optionScope(ctx, ts, option, scope, a); err != nil {
		return nil, scopeTarget{}, err
	}
	st := scopeTarget{scope: tmux.OptionScope{Kind: scope, Global: a.Global}}
	switch {
	case a.Global:
		st.label = "global"
		return ts, st, nil
	case scope == "server":
		st.label = "server"
		return ts, st, nil
	}
	snap, err := ts.Snapshot(ctx, tmux.WithAll)
	if err != nil {
		return nil, st, err
	}
	if st.scope.Target, err = scopeTargetIn(snap, scope, a.Target); err != nil {
		return nil, st, err
	}
	st.label = st.scope.Target
	return ts, st, nil
}

// optionScope checks scope against the scope tmux keeps a named option in, and returns the
// scope to use: the one given, else the option's, else (a user option, a hook) the one of the
// target's kind, else session.
func (c *Call) optionScope(ctx context.Context, ts *tmux.Server, option, scope string, a ScopeArgs) (string, error) {
	own := ""
	if option != "" && !strings.HasPrefix(option, "@") {
		base, _, _ := strings.Cut(option, "[")
		op := &tmux.OptionTable{Name: base}
		if err := ts.Do(ctx, op); err != nil {
			return "", err
		}
		own = op.Table // "" for an option tmux does not know: tmux says so
	}
	switch {
	case own == "server" && (scope == "session" || scope == "window" || scope == "pane"):
		return "", fail("Pass scope server, or leave scope out, and no target.", "%s is a server option, not a %s option", option, scope)
	case own == "server" && a.Target != nil:
		return "", fail("Leave target out: server options belong to the whole tmux server.", "%s is a server option; it takes no target", option)
	case own == "session" && (scope == "server" || scope == "window" || scope == "pane"):
		return "", fail("Pass scope session (or leave scope out), with a session id ($1) or name as target.", "%s is a session option, not a %s option", option, scope)
	case own == "window" && (scope == "server" || scope == "session"):
		return "", fail("Pass scope window with a window id (@1) as target, or scope pane with a pane id (%1) for a pane's own value.", "%s is a window option, not a %s option", option, scope)
	case scope != "":
		return scope, nil
	case own == "session" && a.Target != nil && targetKind(*a.Target) != "session":
		return "", fail("Pass a session id ($1) or name as target (list_sessions shows them).", "%s is a session option; target %q is a %s", option, truncate(*a.Target, 80), targetKind(*a.Target))
	case own == "window" && a.Target != nil && targetKind(*a.Target) == "session":
		return "", fail("Pass a window id (@1) as target, or a pane id (%1) for a pane's own value.", "%s is a window option; target %q is a session", option, truncate(*a.Target, 80))
	case own == "server" || own == "session":
		return own, nil
	}
	switch t := str(a.Target); {
	case strings.HasPrefix(t, "%"):
		return "pane", nil
	case strings.HasPrefix(t, "@"), own == "window":
		return "window", nil
	}
	return "session", nil
}

// checkScope refuses scope arguments that contradict each other.
func checkScope(scope string, a ScopeArgs) error {
	switch {
	case a.Target != nil && a.Global:
		return fail("Pass target for one session, window or pane, or global_=true for the global value, not both.", "target and global_ exclude each other")
	case a.Target != nil && scope == "server":
		return fail("Omit target: server options belong to the whole tmux server.", "server options take no target")
	case a.Target != nil:
		return checkName("target", a.Target)
	}
	return nil
}

// scopeNeeds names the target each scope takes.
var scopeNeeds = map[string]string{
	"session": "a session id ($1) or name (list_sessions shows them)",
	"window":  "a window id (@1; list_windows shows them)",
	"pane":    "a pane id (%1; list_panes shows them)",
}

// targetKind names the kind of object a target names: pane, window or session.
func targetKind(t string) string {
	switch {
	case strings.HasPrefix(t, "%"):
		return "pane"
	case strings.HasPrefix(t, "@"):
		return "window"
	}
	return "session"
}

// scopeTargetIn finds the id an option of scope is read or set on: the target, which must be
// of the scope's kind (a session id or name, a window id, a pane id), else the first session's
// (its active window or pane for those scopes).
func scopeTargetIn(snap *tmux.Snapshot, scope string, target *string) (string, error) {
	if target == nil {
		sess, err := resolveSession(snap, nil, nil)
		if err != nil {
			return "", err
		}
		switch scope {
		case "window":
			return sess.ActiveWindowID, nil
		case "pane":
			return sess.ActivePaneID, nil
		}
		return sess.SessionID, nil
	}
	t := *target
	if kind := targetKind(t); kind != scope {
		return "", fail(fmt.Sprintf("Pass %s as target, or scope %s for this %s (or leave scope out).", scopeNeeds[scope], kind, kind),
			"target %q is a %s, not a %s (scope %s)", truncate(t, 80), kind, scope, scope)
	}
	switch scope {
	case "pane":
		p, err := resolvePaneIn(snap, PaneTarget{PaneID: &t})
		return p.PaneID, err
	case "window":
		w, err := resolveWindowIn(snap, WindowTarget{WindowID: &t})
		return w.WindowID, err
	case "session":
		if strings.HasPrefix(t, "$") {
			sess, err := resolveSession(snap, &t, nil)
			return sess.SessionID, err
		}
		sess, err := resolveSession(snap, nil, &t)
		return sess.SessionID, err
	}
	return "", fmt.Errorf("unknown scope %q", scope)
}

// ---- show_option

type showOptionIn struct {
	Option string `json:"option" jsonschema:"e.g. mode-keys, @my-option, status-format[0]"`
	ScopeArgs
	Socket
}

type showOptionOut struct {
	Option string  `json:"option"`
	Value  *string `json:"value" jsonschema:"the value (array options: one element per line); null when a user option is unset"`
	Target string  `json:"target" jsonschema:"whose value this is: a session, window or pane id, server or global"`
}

func showOption(ctx context.Context, c *Call, in *showOptionIn) (showOptionOut, error) {
	if err := checkOptionName(in.Option); err != nil {
		return showOptionOut{}, err
	}
	ts, st, err := c.resolveScope(ctx, in.ScopeArgs, in.SocketName, in.Option)
	if err != nil {
		return showOptionOut{}, err
	}
	op := &tmux.ShowOption{Scope: st.scope, Name: in.Option, Effective: !in.Global}
	if err := ts.Do(ctx, op); err != nil {
		var ce *tmux.CommandError
		if errors.As(err, &ce) && strings.Contains(ce.Message, "invalid option") {
			if strings.HasPrefix(in.Option, "@") {
				return showOptionOut{Option: in.Option, Target: st.label}, nil
			}
			return showOptionOut{}, fail("Check the name and the scope (server, session, window or pane); tmux's manual lists the options.", "tmux has no option %q", in.Option)
		}
		return showOptionOut{}, err
	}
	v := strings.Join(op.Value, "\n")
	return showOptionOut{Option: in.Option, Value: &v, Target: st.label}, nil
}

// ---- set_option

type setOptionIn struct {
	Option string `json:"option" jsonschema:"e.g. mode-keys, @my-option"`
	Value  string `json:"value"`
	ScopeArgs
	Socket
}

type setOptionOut struct {
	Option string `json:"option"`
	Value  string `json:"value"`
	Status string `json:"status"`
	Target string `json:"target" jsonschema:"whose value was set: a session, window or pane id, server or global"`
}

func setOption(ctx context.Context, c *Call, in *setOptionIn) (setOptionOut, error) {
	if err := checkOptionName(in.Option); err != nil {
		return setOptionOut{}, err
	}
	// Error texts never quote the value: it may be a secret, and errors reach the audit log.
	switch {
	case strings.ContainsRune(in.Value, 0):
		return setOptionOut{}, fail("Remove the NUL byte.", "value contains a NUL byte")
	case len(in.Value) > 64<<10:
		return setOptionOut{}, fail("Use a value of at most 64 KiB.", "value is %d bytes long", len(in.Value))
	case strings.Contains(in.Value, "#(") && !strings.HasPrefix(in.Option, "@"):
		// tmux expands most string options as formats (status-left runs #( jobs); a user
		// option's value is only ever text, unless a format the user wrote expands it.
		return setOptionOut{}, fail("Remove the #(...) part: tmux would run it as a shell command in the background. Run commands with run_shell_command instead.", "value contains #( (a tmux shell job)")
	}
	ts, st, err := c.resolveScope(ctx, in.ScopeArgs, in.SocketName, in.Option)
	if err != nil {
		return setOptionOut{}, err
	}
	base, _, _ := strings.Cut(in.Option, "[")
	hooks, err := hookNames(ctx, ts)
	if err != nil {
		return setOptionOut{}, err
	}
	if hooks[base] {
		return setOptionOut{}, fail("Hooks are readable (show_hooks, show_hook), never writable through this server.", "%s is a hook, not an option", base)
	}
	if err := ts.Do(ctx, &tmux.SetOption{Scope: st.scope, Name: in.Option, Value: in.Value}); err != nil {
		var ce *tmux.CommandError
		if errors.As(err, &ce) {
			// tmux's message may quote the value; keep only what it says about the option.
			msg := strings.TrimSpace(ce.Message)
			if in.Value != "" {
				msg = strings.ReplaceAll(msg, in.Value, "<value>")
			}
			return setOptionOut{}, fail("Check the option name, its scope and the form of its value in tmux's manual (show_option shows the current value).", "tmux refused to set %s: %s", in.Option, msg)
		}
		return setOptionOut{}, err
	}
	return setOptionOut{Option: in.Option, Value: in.Value, Status: "set", Target: st.label}, nil
}

// ---- show_environment / set_environment

type envScopeIn struct {
	SessionTarget
	Socket
}

type showEnvironmentOut struct {
	Variables map[string]any `json:"variables" jsonschema:"name: value, or true for a variable removed from the environment of new processes"`
	Target    string         `json:"target" jsonschema:"the session id, or global"`
}

// envTarget resolves the session of an environment tool ("" for global when none is given),
// and the target its result reports.
func (c *Call) envTarget(ctx context.Context, in envScopeIn) (*tmux.Server, string, string, error) {
	if in.SessionID == nil && in.SessionName == nil {
		ts, err := c.tmuxFor(in.SocketName)
		return ts, "", "global", err
	}
	t, err := c.session(ctx, in.SessionID, in.SessionName, in.SocketName)
	if err != nil {
		return nil, "", "", err
	}
	return t.ts, t.session.SessionID, t.session.SessionID, nil
}

func showEnvironment(ctx context.Context, c *Call, in *envScopeIn) (showEnvironmentOut, error) {
	ts, session, label, err := c.envTarget(ctx, *in)
	if err != nil {
		return showEnvironmentOut{}, err
	}
	op := &tmux.ShowEnvironment{Session: session}
	if err := ts.Do(ctx, op); err != nil {
		return showEnvironmentOut{}, err
	}
	return showEnvironmentOut{Variables: op.Vars, Target: label}, nil
}

type setEnvironmentIn struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	envScopeIn
}

type setEnvironmentOut struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Status string `json:"status"`
	Target string `json:"target" jsonschema:"the session id, or global"`
}

func setEnvironment(ctx context.Context, c *Call, in *setEnvironmentIn) (setEnvironmentOut, error) {
	if !tmux.ValidEnvName(in.Name) || len(in.Name) > 256 {
		return setEnvironmentOut{}, fail("Variable names are letters, digits and _, not starting with a digit.", "name %q is not a valid variable name", truncate(in.Name, 60))
	}
	switch {
	case strings.ContainsRune(in.Value, 0):
		return setEnvironmentOut{}, fail("Remove the NUL byte.", "value contains a NUL byte")
	case len(in.Value) > 64<<10:
		return setEnvironmentOut{}, fail("Use a value of at most 64 KiB.", "value is %d bytes long", len(in.Value))
	}
	ts, session, label, err := c.envTarget(ctx, in.envScopeIn)
	if err != nil {
		return setEnvironmentOut{}, err
	}
	if err := ts.Do(ctx, &tmux.SetEnvironment{Session: session, Name: in.Name, Value: in.Value}); err != nil {
		return setEnvironmentOut{}, err
	}
	return setEnvironmentOut{Name: in.Name, Value: in.Value, Status: "set", Target: label}, nil
}

// ---- hooks

type hooksOut struct {
	Entries []tmux.Hook `json:"entries"`
	Target  string      `json:"target" jsonschema:"whose hooks: global, or a session, window or pane id"`
}

type showHooksIn struct {
	ScopeArgs
	Socket
}

type showHookIn struct {
	HookName string `json:"hook_name"`
	ScopeArgs
	Socket
}

// hookNames returns every hook name tmux knows.
func hookNames(ctx context.Context, ts *tmux.Server) (map[string]bool, error) {
	op := &tmux.HookNames{}
	if err := ts.Do(ctx, op); err != nil {
		return nil, err
	}
	return op.Names, nil
}

func (c *Call) hooks(ctx context.Context, a ScopeArgs, sock *string) (*tmux.Server, hooksOut, error) {
	op := &tmux.ShowHooks{}
	var out hooksOut
	var ts *tmux.Server
	if s := str(a.Scope); a.Target == nil && (s == "" || s == "server") {
		// Server-wide means global: tmux splits its global hooks between two trees.
		var err error
		if ts, err = c.tmuxFor(sock); err != nil {
			return nil, out, err
		}
		out.Target = "global"
	} else {
		if s == "" {
			s = targetKind(str(a.Target))
		}
		var st scopeTarget
		var err error
		if ts, st, err = c.resolveScope(ctx, ScopeArgs{Scope: &s, Target: a.Target, Global: a.Global}, sock, ""); err != nil {
			return nil, out, err
		}
		op.Scope, out.Target = &st.scope, st.label
	}
	if err := ts.Do(ctx, op); err != nil {
		return nil, out, err
	}
	out.Entries = op.Hooks
	return ts, out, nil
}

func showHooks(ctx context.Context, c *Call, in *showHooksIn) (hooksOut, error) {
	_, out, err := c.hooks(ctx, in.ScopeArgs, in.SocketName)
	return out, err
}

func showHook(ctx context.Context, c *Call, in *showHookIn) (hooksOut, error) {
	if !hookNameRe().MatchString(in.HookName) {
		return hooksOut{}, fail("Hook names look like after-new-window or pane-died; show_hooks lists the ones that are set.", "hook_name %q is not a valid hook name", truncate(in.HookName, 80))
	}
	ts, out, err := c.hooks(ctx, in.ScopeArgs, in.SocketName)
	if err != nil {
		return hooksOut{}, err
	}
	names, err := hookNames(ctx, ts)
	if err != nil {
		return hooksOut{}, err
	}
	if !names[in.HookName] {
		return hooksOut{}, fail("tmux's manual (HOOKS) lists them, e.g. after-new-window, pane-died, session-created, client-attached.", "tmux has no hook %q", in.HookName)
	}
	var kept []tmux.Hook
	for _, e := range out.Entries {
		if e.HookName == in.HookName {
			kept = append(kept, e)
		}
	}
	if kept == nil {
		kept = []tmux.Hook{}
	}
	out.Entries = kept
	return out, nil
}
