package server

import "testing"

func TestOptionAndLayoutNames(t *testing.T) {
	for name, ok := range map[string]bool{
		"status": true, "mode-keys": true, "status-format[0]": true, "@my.opt-1": true, "@x_y": true,
		"": false, "Status": false, "status;kill-server": false, "#{pane_id}": false, "@": false,
		"status format": false, "status[x]": false, "status'": false, "@a\nb": false,
	} {
		if got := checkOptionName(name) == nil; got != ok {
			t.Errorf("checkOptionName(%q) ok = %v, want %v", name, got, ok)
		}
	}
	for l, ok := range map[string]bool{
		"b25d,80x24,0,0{40x24,0,0,1,39x24,41,0,2}": true,
		"5f3e,80x24,0,0,0":                         true,
		"tiled;kill-server":                        false,
		"#{pane_id}":                               false,
		"abcd,80x24":                               false,
	} {
		if got := layoutRe().MatchString(l); got != ok {
			t.Errorf("layoutRe(%q) = %v, want %v", l, got, ok)
		}
	}
}
