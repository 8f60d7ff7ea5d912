package tmux_test

import (
	"context"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestOptionOps sets and reads options in each scope, finds an option's table, reads the
// environment and the hooks, in one command list where they can share one.
func TestOptionOps(t *testing.T) {
	tmx := testtmux.New(t)
	sid, pane := tmx.NewSession("o")
	ts := newServer(t, tmx)
	ctx := context.Background()
	paneScope := tmux.OptionScope{Kind: "pane", Target: pane}
	if err := ts.Batch(ctx,
		&tmux.SetOption{Scope: paneScope, Name: "@mine", Value: "a #{b}"},
		&tmux.SetOption{Scope: tmux.OptionScope{Global: true}, Name: "history-limit", Value: "1234"},
		&tmux.SetEnvironment{Session: sid, Name: "OPS_Y", Value: "two\nlines"},
		&tmux.SetEnvironment{Name: "OPS_G", Value: "g"},
	); err != nil {
		t.Fatal(err)
	}
	mine := &tmux.ShowOption{Scope: paneScope, Name: "@mine"}
	hist := &tmux.ShowOption{Scope: tmux.OptionScope{Kind: "session", Target: sid}, Name: "history-limit", Effective: true}
	table := &tmux.OptionTable{Name: "mouse"}
	wtable := &tmux.OptionTable{Name: "pane-border-style"}
	env, genv := &tmux.ShowEnvironment{Session: sid}, &tmux.ShowEnvironment{}
	hooks, names, shell := &tmux.ShowHooks{}, &tmux.HookNames{}, &tmux.DefaultShell{}
	if err := ts.Batch(ctx, mine, hist, table, wtable, env, genv, hooks, names, shell); err != nil {
		t.Fatal(err)
	}
	if len(mine.Value) != 1 || mine.Value[0] != "a #{b}" || len(hist.Value) != 1 || hist.Value[0] != "1234" {
		t.Errorf("options %q %q", mine.Value, hist.Value)
	}
	if table.Table != "session" || wtable.Table != "window" {
		t.Errorf("tables %q %q", table.Table, wtable.Table)
	}
	if env.Vars["OPS_Y"] != "two\nlines" || genv.Vars["OPS_G"] != "g" {
		t.Errorf("environment %v / %v", env.Vars["OPS_Y"], genv.Vars["OPS_G"])
	}
	if !names.Names["pane-died"] || shell.Command == "" {
		t.Errorf("hook names %v, default shell %+v", len(names.Names), shell)
	}
	po := &tmux.PaneOptions{Names: []string{"@mine", "@unset"}}
	if err := ts.Do(ctx, po); err != nil {
		t.Fatal(err)
	}
	if len(po.Panes) != 1 || po.Panes[0].Pane != pane || po.Panes[0].Values[0] != "a #{b}" || po.Panes[0].Values[1] != "" {
		t.Errorf("PaneOptions = %+v", po.Panes)
	}
	if err := ts.Do(ctx, &tmux.PaneOptions{Names: []string{"pane_id"}}); err == nil {
		t.Error("PaneOptions takes a format variable for a user option")
	}
}
