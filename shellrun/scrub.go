package shellrun

import "strings"

// markerRef is one run marker found in a line: "tmx<12 hex>_S", "_E" or "_D".
type markerRef struct {
	id   string
	kind byte // 'S', 'E' or 'D'
}

// markerRefs returns the run markers in line whose id differs from ours.
func foreignRefs(line, ours string) []markerRef {
	var refs []markerRef
	for from := 0; ; {
		i := strings.Index(line[from:], IDPrefix)
		if i < 0 {
			return refs
		}
		at := from + i
		from = at + 1
		end := at + IDLen
		if end+2 > len(line) || !isHex12(line[at+len(IDPrefix):end]) || line[end] != '_' {
			continue
		}
		switch k := line[end+1]; k {
		case 'S', 'E', 'D':
			if id := line[at:end]; id != ours {
				refs = append(refs, markerRef{id: id, kind: k})
			}
			from = end + 2
		}
	}
}

// ScrubForeign removes from lines (a run's body split into lines) every line
// carrying another run's marker: "tmx" + 12 lowercase hex + "_S", "_E" or
// "_D" with an id other than id. When a foreign start marker has its end
// marker ("_E" or "_D") on a later line, the whole span between them goes too,
// since it is that run's output. A foreign run without its end keeps its
// output lines (cutting to the end would lose ours); only its marker line
// goes. dropped reports whether anything was removed: another run shared the
// pane. false does not prove the output clean.
func ScrubForeign(lines []string, id string) (kept []string, dropped bool) {
	kept = make([]string, 0, len(lines))
	for i := 0; i < len(lines); i++ {
		refs := foreignRefs(lines[i], id)
		if len(refs) == 0 {
			kept = append(kept, lines[i])
			continue
		}
		dropped = true
		last := i
		for _, r := range refs {
			if r.kind != 'S' || endsOnLine(refs, r.id) {
				continue
			}
			if j := findForeignEnd(lines, i+1, r.id); j > last {
				last = j
			}
		}
		i = last
	}
	return kept, dropped
}

// endsOnLine reports whether refs hold an end marker of run id.
func endsOnLine(refs []markerRef, id string) bool {
	for _, r := range refs {
		if r.id == id && r.kind != 'S' {
			return true
		}
	}
	return false
}

// findForeignEnd returns the index of the first line from `from` holding an
// end marker of run id, or -1.
func findForeignEnd(lines []string, from int, id string) int {
	for j := from; j < len(lines); j++ {
		if !strings.Contains(lines[j], id) {
			continue
		}
		if endsOnLine(foreignRefs(lines[j], ""), id) {
			return j
		}
	}
	return -1
}
