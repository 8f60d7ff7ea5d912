package policy

import (
	"slices"
	"strings"
	"testing"
)

func TestToolsetsOf(t *testing.T) {
	for _, tc := range []struct {
		tier     Tier
		declared []string
		want     []string
	}{
		{ReadOnly, nil, []string{Inspect}},
		{ReadOnly, []string{Manage}, []string{Inspect}},
		{Destructive, nil, []string{Teardown}},
		{Mutating, []string{Execute, Manage}, []string{Manage, Execute}},
		{Mutating, []string{Teardown}, []string{Teardown}},
	} {
		if got := ToolsetsOf(tc.tier, tc.declared); !slices.Equal(got, tc.want) {
			t.Errorf("ToolsetsOf(%s, %v) = %v, want %v", tc.tier, tc.declared, got, tc.want)
		}
	}
}

func TestOfferHides(t *testing.T) {
	o := Offer{Safety: Mutating, Tools: []string{"a", "b"}, Toolsets: []string{Manage}, Exclude: []string{"b"}}
	for _, tc := range []struct {
		name string
		tier Tier
		sets []string
		want Hiding
	}{
		{"a", Mutating, []string{Manage}, Hiding{}},
		{"a", Destructive, []string{Teardown}, Hiding{Tier: true, Toolset: true}},
		{"b", Mutating, []string{Manage}, Hiding{Exclude: true}},
		{"c", ReadOnly, []string{Inspect}, Hiding{Toolset: true, Allow: true}},
	} {
		if got := o.Hides(tc.name, tc.tier, tc.sets); got != tc.want {
			t.Errorf("Hides(%s) = %+v, want %+v", tc.name, got, tc.want)
		}
	}
	if !(Offer{Safety: ReadOnly}).Hides("x", ReadOnly, []string{Inspect}).Offered() {
		t.Error("the zero configuration at the tool's tier hides it")
	}
	if (Offer{Toolsets: []string{}}).Hides("x", ReadOnly, []string{Inspect}).Offered() {
		t.Error("an empty toolset selection offers a tool")
	}
	why := Hiding{Tier: true, Toolset: true, Allow: true, Exclude: true}.Why(Destructive, Mutating, []string{Teardown})
	for _, want := range []string{"--safety destructive", "its toolset (teardown)", "LIBTMUX_MCP_TOOLS (--tools)", "LIBTMUX_EXCLUDE_TOOLS (--exclude-tools)"} {
		if !strings.Contains(why, want) {
			t.Errorf("Why lacks %q: %s", want, why)
		}
	}
}

func TestOfferChecks(t *testing.T) {
	known := func(n string) bool { return n == "list_panes" }
	if err := (Offer{Tools: []string{"list_panes"}, Toolsets: []string{Inspect}, Exclude: []string{"list_panes"}}).CheckTools(known); err != nil {
		t.Error(err)
	}
	for _, o := range []Offer{{Tools: []string{"nope"}}} {
		if err := o.CheckTools(known); err == nil || !strings.Contains(err.Error(), "not a tool") {
			t.Errorf("%+v: %v", o, err)
		}
	}
	for _, o := range []Offer{{Toolsets: []string{"inspct"}}, {Exclude: []string{"nope"}}} {
		if err := o.CheckSets(known); err == nil || !strings.Contains(err.Error(), "not a") {
			t.Errorf("%+v: %v", o, err)
		}
	}
}
