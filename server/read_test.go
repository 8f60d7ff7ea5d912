package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPipeCommand(t *testing.T) {
	// Quoted for sh, then escaped for tmux's expansion (tmux/format.EscapeTime).
	if got := pipeCommand(">>", "/tmp/it's #1 100%.log"); got != `cat >>'/tmp/it'\''s ##1 100%%.log'` {
		t.Errorf("pipeCommand = %q", got)
	}
}

func TestLimitTail(t *testing.T) {
	cases := []struct {
		lines              []string
		maxLines, maxBytes int
		want               []string
		cutLines, cutBytes int
	}{
		{[]string{"a", "b", "c"}, 5, 100, []string{"a", "b", "c"}, 0, 0},
		{[]string{"a", "bb", "ccc"}, 2, 100, []string{"bb", "ccc"}, 1, 1},
		{[]string{"a", "bb", "ccc"}, 5, 5, []string{"bb", "ccc"}, 1, 1},
		{[]string{"a", "bb", "ccc"}, 1, 2, []string{"cc"}, 2, 4},
		{[]string{"xé"}, 5, 2, []string{"é"}, 0, 1},
		{[]string{"aé"}, 5, 1, []string{""}, 0, 3},
		{nil, 5, 5, nil, 0, 0},
	}
	for _, tc := range cases {
		got, cl, cb := limitTail(tc.lines, tc.maxLines, tc.maxBytes)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") || cl != tc.cutLines || cb != tc.cutBytes {
			t.Errorf("limitTail(%q, %d, %d) = %q, %d, %d; want %q, %d, %d", tc.lines, tc.maxLines, tc.maxBytes, got, cl, cb, tc.want, tc.cutLines, tc.cutBytes)
		}
		for _, l := range got {
			if !utf8.ValidString(l) {
				t.Errorf("limitTail cut inside a character: %q", l)
			}
		}
	}
}

func TestParseResourceURI(t *testing.T) {
	for uri, want := range map[string]resURI{
		"tmux://sessions":                          {kind: "sessions"},
		"tmux://sessions?socket_name=w":            {kind: "sessions", socket: ptr("w")},
		"tmux://sessions/my%20work":                {kind: "session", session: "my work"},
		"tmux://sessions/a%2Fb/windows":            {kind: "windows", session: "a/b"},
		"tmux://sessions/s/windows/3":              {kind: "window", session: "s", window: 3},
		"tmux://panes/%1":                          {kind: "pane", pane: "%1"},
		"tmux://panes/%251/content":                {kind: "content", pane: "%1"},
		"tmux://panes/%12/content":                 {kind: "content", pane: "%12"},
		"tmux://panes/%2512/content?socket_name=x": {kind: "content", pane: "%12", socket: ptr("x")},
		"tmux://sessions/a+b?socket_name=c+d":      {kind: "session", session: "a+b", socket: ptr("c+d")},
		"tmux://sessions/x'%3By?socket_name=%41":   {kind: "session", session: "x';y", socket: ptr("A")},
	} {
		got, err := parseResourceURI(uri)
		if err != nil || got.kind != want.kind || got.session != want.session || got.window != want.window || got.pane != want.pane || str(got.socket) != str(want.socket) {
			t.Errorf("%s: %+v, %v; want %+v", uri, got, err, want)
		}
	}
	for _, bad := range []string{"file:///x", "tmux://panes/1", "tmux://panes/%251/contents", "tmux://sessions/s/windows/x", "tmux://sessions/s/tabs", "tmux://sessions?foo=1", "tmux://panes/%1;kill/content", "tmux://other", "tmux://sessions//windows"} {
		if _, err := parseResourceURI(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	for in, want := range map[string]string{
		"tmux://panes/%1/content":  "tmux://panes/%251/content",
		"tmux://panes/%251":        "tmux://panes/%251",
		"tmux://panes/%12/content": "tmux://panes/%12/content",
		"tmux://panes/%9":          "tmux://panes/%259",
		"other://%1":               "other://%1",
		"tmux://sessions/x';y$(z)*!+ é/windows?socket_name=a+b&host=h": "tmux://sessions/x%27%3By%24%28z%29%2A%21%2B%20%C3%A9/windows?socket_name=a%2Bb&host=h",
		"tmux://sessions/100%/windows/0#frag ment":                     "tmux://sessions/100%25/windows/0#frag ment",
	} {
		if got := canonicalURI(in); got != want {
			t.Errorf("canonicalURI(%s) = %s, want %s", in, got, want)
		}
	}
	// uriVar encodes as RFC 6570 does, and decoding gives every name back.
	for name, want := range map[string]string{"a/b": "a%2Fb", "x';y": "x%27%3By", "#{?1,a,b}-r": "%23%7B%3F1%2Ca%2Cb%7D-r", "é~_-.": "%C3%A9~_-.", "%1": "%251"} {
		if got := uriVar(name); got != want {
			t.Errorf("uriVar(%q) = %s, want %s", name, got, want)
		}
		if u, err := parseResourceURI("tmux://sessions/" + uriVar(name)); err != nil || u.session != name {
			t.Errorf("%q: read back as %q, %v", name, u.session, err)
		}
	}
}

func ptr(s string) *string { return &s }

func TestCheckFormat(t *testing.T) {
	for _, ok := range []string{"#{pane_id}", "#{?pane_dead,dead,alive}", "#{==:#{pane_index},0}", "#{s/a/b/:pane_title}", "#{=10:pane_title}", "#{m:*x*,#{pane_title}}", "#{l:#(id)}"} {
		if err := checkFormat(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"#(id)", "x#{E:status-left}", "#{T:status-right}", "#{T;=5:status-right}", "#{=5;E:@o}", "#{?#{E:@x},a,b}", "a\x00b", "Total: 5%",
		"#{s/#{pane_id}/x/;E:pane_title}", "#{?#{pane_id},#{s/#{pane_id}//;E:pane_title},}", "#{s/#{pane_id}/x/;T:pane_title}"} {
		if err := checkFormat(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestWithinRoot(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	os.Mkdir(filepath.Join(root, "sub"), 0o700)
	os.Symlink(outside, filepath.Join(root, "out"))
	os.Symlink(filepath.Join(root, "sub"), filepath.Join(root, "in"))
	os.Symlink(filepath.Join(outside, "f"), filepath.Join(root, "file-out"))
	os.Symlink(filepath.Join(root, "nowhere", "x"), filepath.Join(root, "dangling"))
	for _, tc := range []struct {
		path string
		ok   bool
	}{
		{filepath.Join(root, "a.log"), true},
		{filepath.Join(root, "sub", "a.log"), true},
		{filepath.Join(root, "in", "a.log"), true},
		{filepath.Join(root, "new", "deeper", "a.log"), true},
		{filepath.Join(root, "out", "a.log"), false},
		{filepath.Join(root, "file-out"), false},
		{filepath.Join(root, "dangling"), false},
		{filepath.Clean(filepath.Join(root, "..", "x.log")), false},
		{root, false},
		{filepath.Join(outside, "a.log"), false},
		{"/", false},
	} {
		got, err := withinRoot(root, tc.path)
		if (err == nil) != tc.ok {
			t.Errorf("%s: %q, %v; want ok=%v", tc.path, got, err, tc.ok)
		}
	}
	// A root that is itself reached through a symlink works.
	link := filepath.Join(outside, "rootlink")
	os.Symlink(root, link)
	if _, err := withinRoot(link, filepath.Join(link, "a.log")); err != nil {
		t.Errorf("root via symlink: %v", err)
	}
}

func TestCompilePattern(t *testing.T) {
	for _, tc := range []struct {
		pattern        string
		regex, matchCs bool
		line           string
		want           bool
	}{
		{"error", false, false, "An ERROR here", true},
		{"error", false, true, "An ERROR here", false},
		{"a.b", false, false, "axb", false},
		{"a.b", true, false, "axb", true},
		{"#{pane_id}", false, false, "x #{PANE_ID} y", true},
		{"Ünï", false, false, "ÜNÏ", true},
		{`E\d+$`, true, true, "code E42", true},
	} {
		m, err := compilePattern(tc.pattern, tc.regex, tc.matchCs)
		if err != nil {
			t.Fatalf("%q: %v", tc.pattern, err)
		}
		if got := m(tc.line); got != tc.want {
			t.Errorf("%q (regex %v, case %v) on %q = %v", tc.pattern, tc.regex, tc.matchCs, tc.line, got)
		}
	}
	if _, err := compilePattern("(", true, false); err == nil {
		t.Error("bad regex accepted")
	}
}

func BenchmarkContainsFoldASCII(b *testing.B) {
	line := strings.Repeat("line 1234 of the history with some text ", 2)
	b.SetBytes(int64(len(line)))
	for i := 0; i < b.N; i++ {
		containsFoldASCII(line, "needle")
	}
}
