package policy

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCallerFromEnv(t *testing.T) {
	tests := []struct {
		env  []string
		want *Caller
	}{
		{env: nil, want: nil},
		{env: []string{"TMUX=/tmp/tmux-0/default,123,0", "TMUX_PANE=%3"}, want: &Caller{SocketPath: "/tmp/tmux-0/default", ServerPID: 123, PaneID: "%3"}},
		{env: []string{"TMUX=/tmp/a,b/sock,77,$1", "TMUX_PANE=%0"}, want: &Caller{SocketPath: "/tmp/a,b/sock", ServerPID: 77, PaneID: "%0"}},
		{env: []string{"TMUX_PANE=%5"}, want: &Caller{PaneID: "%5"}},
		{env: []string{"TMUX=garbage"}, want: &Caller{}},
	}
	for _, tt := range tests {
		got := CallerFromEnv(tt.env)
		if (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
			t.Errorf("CallerFromEnv(%q) = %+v, want %+v", tt.env, got, tt.want)
		}
	}
}

func TestCallerOnServer(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "s")
	os.WriteFile(sock, nil, 0o600)
	link := filepath.Join(dir, "l")
	os.Symlink(sock, link)
	c := &Caller{SocketPath: link, ServerPID: 10, PaneID: "%1"}
	if !c.OnServer(sock, 10) {
		t.Error("same socket through a symlink, same pid: want on server")
	}
	if c.OnServer(sock, 11) {
		t.Error("other pid: want not on server")
	}
	if c.OnServer(filepath.Join(dir, "other"), 10) {
		t.Error("other socket: want not on server")
	}
	if !(&Caller{PaneID: "%1"}).OnServer(sock, 10) {
		t.Error("unknown socket: guards must refuse when unsure")
	}
	if !c.IsPane(sock, 10, "%1") || c.IsPane(sock, 10, "%2") || (&Caller{PaneID: "%1"}).IsPane(sock, 10, "%1") {
		t.Error("IsPane wrong")
	}
	var none *Caller
	if none.OnServer(sock, 10) || none.IsPane(sock, 10, "%1") {
		t.Error("nil caller is nowhere")
	}
}

func TestParseTier(t *testing.T) {
	for in, want := range map[string]Tier{"readonly": ReadOnly, "MUTATING": Mutating, "": Mutating, "destructive": Destructive, "bogus": ReadOnly} {
		if got, _ := ParseTier(in); got != want {
			t.Errorf("ParseTier(%q) = %v, want %v", in, got, want)
		}
	}
	if _, ok := ParseTier("bogus"); ok {
		t.Error("bogus tier accepted")
	}
}
