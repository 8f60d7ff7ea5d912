package server

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

// Toolsets are the four groups of tools the libtmux TypeScript and Go servers define
// (LIBTMUX_TOOLSETS): independent kinds of reach, not levels of trust.
var Toolsets = []string{"inspect", "manage", "execute", "teardown"}

// toolsetTools maps this catalogue onto the toolsets: the peers' assignment for the tools they
// share (their call_read_tools_batch, get_tmux_variables, clear_pane_scrollback and
// set_mouse_enabled/set_history_limit are call_readonly_tools_batch, display_message,
// clear_pane and set_option here), the nearest kind of reach for the rest. A batch belongs to
// the toolsets of the tools it may call, and it calls only offered tools.
var toolsetTools = map[string][]string{
	// Reads of tmux state and pane content, and waits.
	"inspect": {"list_servers", "list_sessions", "get_server_info", "list_windows", "get_session_info", "list_panes",
		"get_window_info", "get_pane_info", "snapshot_pane", "capture_pane", "capture_since", "search_panes",
		"display_message", "find_pane_by_position", "screenshot_pane", "wait_for_text", "wait_for_run", "list_recordings", "show_option",
		"show_environment", "show_hooks", "show_hook", "show_buffer", "call_readonly_tools_batch"},
	// Changes to tmux state that type nothing and start nothing.
	"manage": {"rename_session", "rename_window", "select_window", "select_pane", "select_layout", "resize_window",
		"resize_pane", "move_window", "swap_pane", "set_pane_title", "wait_for_channel", "signal_channel", "set_option",
		"set_environment", "enter_copy_mode", "exit_copy_mode", "load_buffer", "delete_buffer", "call_mutating_tools_batch"},
	// Starting processes, typing into panes, running commands, writing files (pipe_pane,
	// recordings).
	"execute": {"create_session", "create_window", "split_window", "respawn_pane", "run_shell_command", "run_command",
		"send_keys", "send_keys_batch", "paste_text", "paste_buffer", "pipe_pane", "start_recording", "stop_recording",
		"call_mutating_tools_batch"},
	// Deleting tmux state.
	"teardown": {"clear_pane", "kill_pane", "kill_window", "kill_session", "kill_server", "call_destructive_tools_batch"},
}

// ToolsetsOf names the toolsets a tool belongs to.
func ToolsetsOf(tool string) []string {
	var out []string
	for _, set := range Toolsets {
		if slices.Contains(toolsetTools[set], tool) {
			out = append(out, set)
		}
	}
	return out
}

// hiding records which settings keep a tool from being offered.
type hiding struct{ tier, toolset, allow, exclude bool }

// hidingOf applies the configuration to a tool. The tier is the ceiling; the toolsets, the
// allow list and the exclusions each narrow it, the exclusions last.
func (o *Options) hidingOf(t *Tool) hiding {
	return hiding{
		tier:    !o.Safety.Allows(t.Tier),
		toolset: o.Toolsets != nil && !slices.ContainsFunc(ToolsetsOf(t.Name), func(s string) bool { return slices.Contains(o.Toolsets, s) }),
		allow:   len(o.Tools) > 0 && !slices.Contains(o.Tools, t.Name),
		exclude: slices.Contains(o.ExcludeTools, t.Name),
	}
}

func (h hiding) offered() bool { return h == hiding{} }

// why says which settings hide t, and what would offer it.
func (h hiding) why(t *Tool, tier policy.Tier) string {
	var out []string
	if h.tier {
		out = append(out, fmt.Sprintf("it is a %s tool, above the safety tier %s (LIBTMUX_SAFETY=%s or --safety %s offers it)", t.Tier, tier, t.Tier, t.Tier))
	}
	if h.toolset {
		out = append(out, fmt.Sprintf("its toolset (%s) is not among LIBTMUX_TOOLSETS (--toolsets)", strings.Join(ToolsetsOf(t.Name), " or ")))
	}
	if h.allow {
		out = append(out, "LIBTMUX_MCP_TOOLS (--tools) does not name it")
	}
	if h.exclude {
		out = append(out, "LIBTMUX_EXCLUDE_TOOLS (--exclude-tools) removes it")
	}
	return strings.Join(out, "; ")
}

// checkToolsets validates the toolset and exclusion settings.
func (o *Options) checkToolsets() error {
	for _, set := range o.Toolsets {
		if !slices.Contains(Toolsets, set) {
			return fmt.Errorf("LIBTMUX_TOOLSETS names %q, which is not a toolset: use a comma list of %s", set, strings.Join(Toolsets, ", "))
		}
	}
	for _, name := range o.ExcludeTools {
		if !knownTool(name) {
			return fmt.Errorf("LIBTMUX_EXCLUDE_TOOLS names %q, which is not a tool; run `tmux-mcp tools --safety destructive` for the list", name)
		}
	}
	return nil
}

// Notes explains each setting that asks for a tool the server does not offer: a tool that
// LIBTMUX_MCP_TOOLS names, or a toolset that LIBTMUX_TOOLSETS selects, hidden by another
// setting. Start-up prints them; tools and doctor show them.
func (s *Server) Notes() []string {
	var notes []string
	for _, name := range s.opts.Tools {
		if why := s.hidden[name]; why != "" {
			notes = append(notes, fmt.Sprintf("LIBTMUX_MCP_TOOLS names %s, which is not offered: %s", name, why))
		}
	}
	for _, set := range s.opts.Toolsets {
		above := map[policy.Tier][]string{}
		for _, t := range catalog() {
			if h := s.opts.hidingOf(t); h == (hiding{tier: true}) && slices.Contains(toolsetTools[set], t.Name) {
				above[t.Tier] = append(above[t.Tier], t.Name)
			}
		}
		for _, tier := range []policy.Tier{policy.Mutating, policy.Destructive} {
			names := above[tier]
			if len(names) == 0 {
				continue
			}
			what, them := fmt.Sprintf("%s are %s tools", strings.Join(names, ", "), tier), "them"
			if len(names) == 1 {
				what, them = fmt.Sprintf("%s is a %s tool", names[0], tier), "it"
			}
			notes = append(notes, fmt.Sprintf("LIBTMUX_TOOLSETS selects %s, but %s, above the safety tier %s: LIBTMUX_SAFETY=%s (--safety %s) offers %s",
				set, what, s.opts.Safety, tier, tier, them))
		}
	}
	return notes
}
