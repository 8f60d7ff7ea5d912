package control

import (
	"reflect"
	"testing"
)

func TestParseNotification(t *testing.T) {
	tests := []struct {
		line string
		want Notification
	}{
		{"%sessions-changed", Notification{Name: "sessions-changed"}},
		{"%window-add @1", Notification{Name: "window-add", Args: []string{"@1"}}},
		{"%session-changed $1 my  name", Notification{Name: "session-changed", Args: []string{"$1", "my", "", "name"}}},
		{"%layout-change @1 b25d,80x24,0,0,0 b25d,80x24,0,0,0 *", Notification{Name: "layout-change",
			Args: []string{"@1", "b25d,80x24,0,0,0", "b25d,80x24,0,0,0", "*"}}},
		{"%exit", Notification{Name: "exit"}},
		{"%exit server exited", Notification{Name: "exit", Args: []string{"server", "exited"}}},
		{"%future-thing a b", Notification{Name: "future-thing", Args: []string{"a", "b"}}},
		{"%", Notification{}},
		{"no percent", Notification{}},
	}
	for _, tt := range tests {
		tt.want.Raw = tt.line
		got := ParseNotification(tt.line)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseNotification(%q) = %#v, want %#v", tt.line, got, tt.want)
		}
	}
	n := ParseNotification("%session-renamed $1 my  name ")
	if got := n.Tail(1); got != "my  name " {
		t.Errorf("Tail(1) = %q", got)
	}
	if got := n.Tail(9); got != "" {
		t.Errorf("Tail(9) = %q", got)
	}
}

func TestParseOutput(t *testing.T) {
	tests := []struct {
		line string
		want Output
		ok   bool
	}{
		{`%output %1 hi\015\012`, Output{Pane: "%1", Data: []byte("hi\r\n")}, true},
		{`%output %12 `, Output{Pane: "%12", Data: []byte{}}, true},
		{`%output %12 a : b`, Output{Pane: "%12", Data: []byte("a : b")}, true},
		{`%extended-output %3 120 : x : y`, Output{Pane: "%3", Age: 120, Extended: true, Data: []byte("x : y")}, true},
		{`%extended-output %3 7 future args : z`, Output{Pane: "%3", Age: 7, Extended: true, Data: []byte("z")}, true},
		{`%extended-output %3 7 :`, Output{Pane: "%3", Age: 7, Extended: true, Data: []byte{}}, true},
		{`%output %1`, Output{}, false},
		{`%output 1 x`, Output{}, false},
		{`%output % x`, Output{}, false},
		{`%extended-output %3 x : y`, Output{}, false},
		{`%extended-output %3 7 y`, Output{}, false},
		{`%outputs %1 x`, Output{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseOutput([]byte(tt.line))
		if ok != tt.ok {
			t.Errorf("ParseOutput(%q) ok = %v", tt.line, ok)
			continue
		}
		if ok && (got.Pane != tt.want.Pane || string(got.Data) != string(tt.want.Data) ||
			got.Age != tt.want.Age || got.Extended != tt.want.Extended) {
			t.Errorf("ParseOutput(%q) = %+v, want %+v", tt.line, got, tt.want)
		}
	}
}
