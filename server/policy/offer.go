package policy

import (
	"fmt"
	"slices"
	"strings"
)

// The toolsets: the four groups of tools the libtmux TypeScript and Go servers define
// (LIBTMUX_TOOLSETS), independent kinds of reach, not levels of trust.
const (
	Inspect  = "inspect"  // reads of tmux state and pane content, and waits
	Manage   = "manage"   // changes to tmux state that type nothing and start nothing
	Execute  = "execute"  // starting processes, typing into panes, running commands, writing files
	Teardown = "teardown" // deleting tmux state
)

// allToolsets lists the toolsets in their documented order.
var allToolsets = []string{Inspect, Manage, Execute, Teardown}

// Toolsets lists the toolsets in their documented order (a copy).
func Toolsets() []string { return slices.Clone(allToolsets) }

// ToolsetsOf is the toolsets of a tool of tier that declares declared: every read-only tool is
// inspect's and every destructive one teardown's; a mutating tool is in the toolsets it
// declares (manage, execute or teardown; a batch in those of the tools it may call).
func ToolsetsOf(tier Tier, declared []string) []string {
	switch tier {
	case ReadOnly:
		return []string{Inspect}
	case Destructive:
		return []string{Teardown}
	}
	var out []string
	for _, set := range allToolsets {
		if slices.Contains(declared, set) {
			out = append(out, set)
		}
	}
	return out
}

// Offer is the configuration of what a server offers: the tier is the ceiling; the toolsets,
// the allow list and the exclusions each narrow it, the exclusions last.
type Offer struct {
	Safety   Tier     // LIBTMUX_SAFETY
	Tools    []string // LIBTMUX_MCP_TOOLS: empty means all
	Toolsets []string // LIBTMUX_TOOLSETS: nil means all, empty none
	Exclude  []string // LIBTMUX_EXCLUDE_TOOLS
}

// Hiding records which settings keep a tool from being offered.
type Hiding struct{ Tier, Toolset, Allow, Exclude bool }

// Hides applies the configuration to the tool name of tier in toolsets.
func (o Offer) Hides(name string, tier Tier, toolsets []string) Hiding {
	return Hiding{
		Tier:    !o.Safety.Allows(tier),
		Toolset: o.Toolsets != nil && !slices.ContainsFunc(toolsets, func(s string) bool { return slices.Contains(o.Toolsets, s) }),
		Allow:   len(o.Tools) > 0 && !slices.Contains(o.Tools, name),
		Exclude: slices.Contains(o.Exclude, name),
	}
}

// Offered reports whether no setting hides the tool.
func (h Hiding) Offered() bool { return h == Hiding{} }

// Why says which settings hide a tool of tier in toolsets under safety, and what would offer it.
func (h Hiding) Why(tier, safety Tier, toolsets []string) string {
	var out []string
	if h.Tier {
		out = append(out, fmt.Sprintf("it is a %s tool, above the safety tier %s (LIBTMUX_SAFETY=%s or --safety %s offers it)", tier, safety, tier, tier))
	}
	if h.Toolset {
		out = append(out, fmt.Sprintf("its toolset (%s) is not among LIBTMUX_TOOLSETS (--toolsets)", strings.Join(toolsets, " or ")))
	}
	if h.Allow {
		out = append(out, "LIBTMUX_MCP_TOOLS (--tools) does not name it")
	}
	if h.Exclude {
		out = append(out, "LIBTMUX_EXCLUDE_TOOLS (--exclude-tools) removes it")
	}
	return strings.Join(out, "; ")
}

// CheckTools validates the allow list; known says whether a tool exists.
func (o Offer) CheckTools(known func(string) bool) error {
	for _, name := range o.Tools {
		if !known(name) {
			return fmt.Errorf("LIBTMUX_MCP_TOOLS names %q, which is not a tool; run `tmux-mcp tools` for the list", name)
		}
	}
	return nil
}

// CheckSets validates the toolsets and the exclusions; known says whether a tool exists.
func (o Offer) CheckSets(known func(string) bool) error {
	for _, set := range o.Toolsets {
		if !slices.Contains(allToolsets, set) {
			return fmt.Errorf("LIBTMUX_TOOLSETS names %q, which is not a toolset: use a comma list of %s", set, strings.Join(allToolsets, ", "))
		}
	}
	for _, name := range o.Exclude {
		if !known(name) {
			return fmt.Errorf("LIBTMUX_EXCLUDE_TOOLS names %q, which is not a tool; run `tmux-mcp tools --safety destructive` for the list", name)
		}
	}
	return nil
}
