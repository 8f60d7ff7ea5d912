package server

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/internal/shellinteg"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// integrationHint says what to do when a pane's shell cannot get the integration.
const integrationHint = "Pass shell=\"bash\" (or zsh, fish) to start one of those, or drop shell_integration; list_commands then needs the user's prompt to emit OSC 133 marks."

// launch is a new pane's shell started with the shell integration.
type launch struct {
	shellinteg.Launch
	env []string // NAME=value: the call's environment and the integration's
}

// integration decides whether a new pane's shell gets the integration (arg, else the
// LIBTMUX_MCP_SHELL_INTEGRATION setting) and how it starts: nil when it does not. shell is
// the call's shell argument; env its environment (NAME=value).
func (c *Call) integration(ctx context.Context, ts *tmux.Server, arg *bool, shell *string, env []string) (*launch, error) {
	on := c.srv.opts.ShellIntegration
	if arg != nil {
		on = *arg
	}
	if !on {
		return nil, nil
	}
	if _, name, err := c.srv.hostFor(c.host); err != nil || name != LocalHost {
		return nil, fail("Drop shell_integration on another host; list_commands still reads the marks of a prompt that emits OSC 133 there.",
			"shell_integration is only available for tmux on this machine (its files are written here)")
	}
	program, login, err := c.integrationShell(ctx, ts, shell)
	if err != nil {
		return nil, err
	}
	l, err := c.srv.shellFiles.Command(program, login, envValue(env, "ZDOTDIR", c.srv.env("ZDOTDIR", "")))
	if err != nil {
		return nil, err
	}
	out := &launch{Launch: l, env: slices.Clone(env)}
	for _, k := range slices.Sorted(maps.Keys(l.Env)) {
		out.env = append(out.env, k+"="+l.Env[k])
	}
	return out, nil
}

// integrationShell finds the shell a new pane runs: shell when given (bash, zsh or fish, alone),
// else tmux's default-command when set, else its default-shell, started as a login shell.
func (c *Call) integrationShell(ctx context.Context, ts *tmux.Server, shell *string) (program string, login bool, err error) {
	if shell != nil {
		if f := strings.Fields(*shell); len(f) == 1 && shellinteg.Family(f[0]) != "" {
			return f[0], false, nil
		}
		return "", false, fail("Pass shell as just bash, zsh or fish (a name or a path), or drop shell_integration to run it as given.",
			"shell_integration: cannot add the integration to shell %q: it supports bash, zsh and fish started alone", truncate(*shell, 80))
	}
	cmd, def := "", c.srv.env("SHELL", "/bin/sh")
	op := &tmux.DefaultShell{}
	switch qerr := ts.Do(ctx, op); {
	case qerr == nil:
		cmd = op.Command
		if op.Shell != "" {
			def = op.Shell
		}
	case !errors.Is(qerr, tmux.ErrServerNotRunning):
		return "", false, qerr
	}
	if cmd != "" {
		if f := strings.Fields(cmd); len(f) == 1 && shellinteg.Family(f[0]) != "" {
			return f[0], false, nil
		}
		return "", false, fail(integrationHint, "shell_integration: not supported for tmux's default-command %q, which this server cannot see into", truncate(cmd, 80))
	}
	if shellinteg.Family(def) == "" {
		return "", false, fail(integrationHint, "shell_integration: not supported for tmux's default-shell %s: only bash, zsh and fish have one", def)
	}
	return def, true, nil
}

// envValue returns the value of k among NAME=value pairs, else def.
func envValue(env []string, k, def string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, k+"="); ok {
			def = v
		}
	}
	return def
}

// placeholder is what a pane made for the integration runs until its shell replaces it: it
// prints nothing, so the pane is followed before its shell's first prompt.
var placeholder = []string{"cat"}

// startIntegrated follows a new pane from the start and replaces its placeholder with the
// integrated shell; dir is the pane's start directory argument.
func (c *Call) startIntegrated(ctx context.Context, ts *tmux.Server, pane string, l *launch, dir *string) error {
	if _, err := c.srv.cmds.follow(ctx, ts, pane, true); err != nil {
		return fmt.Errorf("following pane %s: %w", pane, err)
	}
	return ts.Batch(ctx, &tmux.RespawnPane{Pane: pane, Kill: true, Dir: dir, Env: l.env, Argv: l.Argv},
		&tmux.SetPaneOption{Pane: pane, Name: integrationOption, Value: l.Shell})
}
