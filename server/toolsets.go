package server

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

// ToolsetsOf names the toolsets a tool belongs to (policy.ToolsetsOf of its declaration).
func ToolsetsOf(tool string) []string {
	for _, t := range catalog() {
		if t.Name == tool {
			return t.Toolsets
		}
	}
	return nil
}

// offer is the part of the options that chooses the tools offered.
func (o *Options) offer() policy.Offer {
	return policy.Offer{Safety: o.Safety, Tools: o.Tools, Toolsets: o.Toolsets, Exclude: o.ExcludeTools}
}

// hidingOf applies the configuration to a tool.
func (o *Options) hidingOf(t *Tool) policy.Hiding {
	return o.offer().Hides(t.Name, t.Tier, t.Toolsets)
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
			if h := s.opts.hidingOf(t); h == (policy.Hiding{Tier: true}) && slices.Contains(t.Toolsets, set) {
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
