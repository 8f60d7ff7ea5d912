package server

import (
	"encoding/json"
	"testing"
)

// TestListPanesSize holds list_panes' default result for 1,000 panes (the call's whole result:
// its text and its structured content) within 300 kB, and checks that detail full keeps every
// field of get_pane_info.
func TestListPanesSize(t *testing.T) {
	c := &Call{Tool: &Tool{Name: "list_panes"}}
	size := func(full bool) int {
		b, err := json.Marshal(c.result(manyPaneInfos(1000, full), nil))
		if err != nil {
			t.Fatal(err)
		}
		return len(b)
	}
	brief, full := size(false), size(true)
	t.Logf("1,000 panes: %d bytes brief, %d bytes full", brief, full)
	if brief > 300_000 {
		t.Errorf("list_panes over 1,000 panes is %d bytes by default, over 300 kB", brief)
	}
	var entry, info map[string]any
	e := manyPaneInfos(1, true).Panes[0]
	b, _ := json.Marshal(e)
	json.Unmarshal(b, &entry)
	b, _ = json.Marshal(e.Detail)
	json.Unmarshal(b, &entry)
	b, _ = json.Marshal(PaneInfo{})
	json.Unmarshal(b, &info)
	for k := range info {
		if _, ok := entry[k]; !ok && k != "input_hidden" && k != "is_caller" && k != "is_watched" {
			t.Errorf("detail full lacks %s", k)
		}
	}
}
