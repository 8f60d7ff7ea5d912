package shellrun

import (
	"slices"
	"testing"
)

func TestScrubForeign(t *testing.T) {
	const f = "tmxffffffffffff"
	const g = "tmxeeeeeeeeeeee"
	tests := []struct {
		name    string
		in      []string
		want    []string
		dropped bool
	}{
		{"clean", []string{"a", "b"}, []string{"a", "b"}, false},
		{"empty", nil, []string{}, false},
		{"own markers kept", []string{tid + "_S", "a"}, []string{tid + "_S", "a"}, false},
		{"whole foreign span", []string{"a", f + "_S", "theirs", "theirs too", f + "_E 0 " + f + "_D", "b"}, []string{"a", "b"}, true},
		{"span end without newline", []string{"a", f + "_S", "x" + f + "_E 3 " + f + "_D", "b"}, []string{"a", "b"}, true},
		{"unterminated foreign run keeps output", []string{"a", f + "_S", "b", "c"}, []string{"a", "b", "c"}, true},
		{"lone foreign end", []string{"theirs" + f + "_E 0 " + f + "_D", "a"}, []string{"a"}, true},
		{"lone foreign D", []string{f + "_D", "a"}, []string{"a"}, true},
		{"two foreign runs", []string{f + "_S", "x", g + "_S", "y", f + "_E 0 " + f + "_D", "z", g + "_E 1 " + g + "_D", "a"}, []string{"z", "a"}, true},
		{"escapes around", []string{"\x1b[0m" + f + "_S\r", "x", f + "_E 0 " + f + "_D\r", "a"}, []string{"a"}, true},
		{"not a marker: 11 hex", []string{"tmxfffffffffff_S", "a"}, []string{"tmxfffffffffff_S", "a"}, false},
		{"not a marker: 13 hex", []string{"tmxfffffffffffff_S"}, []string{"tmxfffffffffffff_S"}, false},
		{"not a marker: upper hex", []string{"tmxFFFFFFFFFFFF_S"}, []string{"tmxFFFFFFFFFFFF_S"}, false},
		{"not a marker: other suffix", []string{f + "_X", f + "S", f}, []string{f + "_X", f + "S", f}, false},
		{"marker after text", []string{"echo tmxtmx" + f + "_S", "a"}, []string{"a"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, dropped := ScrubForeign(tt.in, tid)
			if !slices.Equal(got, tt.want) || dropped != tt.dropped {
				t.Errorf("ScrubForeign(%q) = %q, %v; want %q, %v", tt.in, got, dropped, tt.want, tt.dropped)
			}
		})
	}
}

// TestScrubRecognisesMintedIDs checks every id shape NewID mints.
func TestScrubRecognisesMintedIDs(t *testing.T) {
	for i := 0; i < 500; i++ {
		id := NewID()
		for _, line := range []string{id + "_S", "out" + id + "_E 0 " + id + "_D", id + "_D\r"} {
			if got, dropped := ScrubForeign([]string{line}, tid); len(got) != 0 || !dropped {
				t.Fatalf("foreign line %q kept", line)
			}
			if got, dropped := ScrubForeign([]string{line}, id); len(got) != 1 || dropped {
				t.Fatalf("own line %q dropped", line)
			}
		}
	}
}
