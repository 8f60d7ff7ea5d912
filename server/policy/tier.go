// Package policy holds the server's guard rails: safety tiers and the tool allow list, the
// caller-pane guard, and the audit log.
package policy

import (
	"fmt"
	"strings"
)

// Tier is a safety tier. A tool above the tier in force is not registered at all.
type Tier int

// Tiers, from the most to the least restricted.
const (
	ReadOnly Tier = iota
	Mutating
	Destructive
)

func (t Tier) String() string {
	switch t {
	case ReadOnly:
		return "readonly"
	case Mutating:
		return "mutating"
	case Destructive:
		return "destructive"
	}
	return fmt.Sprintf("Tier(%d)", int(t))
}

// ParseTier reads a tier name. An unknown value gives ReadOnly (fail closed) and ok=false.
func ParseTier(s string) (t Tier, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "readonly":
		return ReadOnly, true
	case "mutating", "":
		return Mutating, true
	case "destructive":
		return Destructive, true
	}
	return ReadOnly, false
}

// Allows reports whether a tool of tier need may be offered under t.
func (t Tier) Allows(need Tier) bool { return need <= t }
