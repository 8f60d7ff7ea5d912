package format_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/format"
)

// hostile is a private tmux server where everything a format can read holds a shell job that
// would create a file in dir: the pane's title (set by the pane itself, with OSC 2), user,
// session, window and pane options, the environment, a window name and a buffer.
type hostile struct {
	tmx  *testtmux.Server
	ts   *tmux.Server
	pane string
	dir  string
	// recent holds the last formats expanded: a job runs a moment after its expansion,
	// so a file may show up while a later format is expanded.
	recent []string
}

func newHostile(t testing.TB) *hostile {
	t.Helper()
	tmx := testtmux.New(t)
	h := &hostile{tmx: tmx, dir: filepath.Join(tmx.Dir, "jobs")}
	if err := os.Mkdir(h.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	job := "#(touch " + h.dir + "/ran)"
	sid, pane := tmx.NewSession("fmt")
	h.pane = pane
	h.setTitle(t, job)
	for _, args := range [][]string{
		{"set-option", "-g", "@evil", job}, {"set-option", "-g", "status-left", job},
		{"set-option", "-t", sid, "@sevil", job}, {"set-option", "-w", "-t", pane, "@wevil", job},
		{"set-option", "-p", "-t", pane, "@pevil", job}, {"set-environment", "-g", "EVIL", job},
		{"rename-window", "-t", pane, format.Escape(job)}, {"set-buffer", "-b", "evil", job},
	} {
		tmx.Tmux(args...)
	}
	// The server's own engine: display_message expands formats over its control connection,
	// whose jobs outlive the command (a tmux CLI client's jobs die with it).
	h.ts = tmux.NewServer(tmux.Config{SocketPath: tmx.Socket, Env: tmx.Env, Timeout: 5 * time.Second})
	t.Cleanup(h.ts.Close)
	if h.ran() {
		t.Fatal("a job ran while the fixture was set up")
	}
	return h
}

// setTitle has the pane set its own title to job with OSC 2, as a program in it can. tmux 3.7
// and later defuse a "#(" in a title that a pane sets (it becomes "_("): there the test checks
// that it did, and sets the title with select-pane -T instead, as a program with access to
// tmux can, so that every format reading the title still meets a job. Until 3.6 the pane's
// own title holds it.
func (h *hostile) setTitle(t testing.TB, job string) {
	t.Helper()
	tmx, pane := h.tmx, h.pane
	tmx.Tmux("send-keys", "-t", pane, "-l", `printf '\033]2;%s\033\\' '`+job+`'`)
	tmx.Tmux("send-keys", "-t", pane, "Enter")
	defused := strings.Replace(job, "#(", "_(", 1)
	deadline := time.Now().Add(10 * time.Second)
	for {
		switch title := tmx.Tmux("display-message", "-p", "-t", pane, "#{pane_title}"); title {
		case job:
			return
		case defused:
			tmx.Tmux("select-pane", "-t", pane, "-T", format.Escape(job))
			if title := tmx.Tmux("display-message", "-p", "-t", pane, "#{pane_title}"); title != job {
				t.Fatalf("select-pane -T set the title %q, want %q", title, job)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the pane did not set its title")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// expand expands f against the pane with display-message -p, as display_message does.
func (h *hostile) expand(t testing.TB, f string) (string, error) {
	h.recent = append(h.recent, f)
	if len(h.recent) > 8 {
		h.recent = h.recent[1:]
	}
	out, err := h.ts.Query(context.Background(), []string{"display-message", "-p", "-t", h.pane, "--", f})
	if err != nil {
		return "", err
	}
	return strings.Join(out[0], "\n"), nil
}

// ran reports whether a job has created its file, waiting up to wait for one to.
func (h *hostile) ran(wait ...time.Duration) bool {
	deadline := time.Now()
	if len(wait) > 0 {
		deadline = deadline.Add(wait[0])
	}
	for {
		if entries, _ := os.ReadDir(h.dir); len(entries) > 0 {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHostileFixtureRunsJobs shows that the fixture catches a job: each of the formats
// that once got past the guard, expanded without the guard, runs the pane's title. Check refuses them all.
func TestHostileFixtureRunsJobs(t *testing.T) {
	for _, f := range []string{
		"#{s/#{pane_id}/x/;E:pane_title}",
		"#{?#{pane_id},#{s/#{pane_id}//;E:pane_title},}",
		"#{s/#{pane_id}/x/;T:pane_title}",
		"#{s/x/#{@evil}/:pane_id}",
	} {
		if err := format.Check(f, format.Options{Strftime: true}); err == nil {
			t.Errorf("Check(%q) took it", f)
		}
		// A server of its own each: tmux runs the same job at most once a second per client.
		h := newHostile(t)
		if _, err := h.expand(t, f); err != nil {
			t.Fatal(err)
		}
		if !h.ran(5 * time.Second) {
			t.Errorf("%q ran no job: the fixture would not catch one", f)
		}
	}
}

// TestSafeFormatsRunNothing expands every format Check takes, against the hostile server.
func TestSafeFormatsRunNothing(t *testing.T) {
	h := newHostile(t)
	for _, f := range safeFormats {
		if format.Check(f, format.Options{Strftime: true}) != nil {
			continue // a % (strftime)
		}
		if _, err := h.expand(t, f); err != nil {
			t.Errorf("%q: %v", f, err)
		}
	}
	if h.ran(500 * time.Millisecond) {
		t.Errorf("a job ran")
	}
	if got, _ := h.expand(t, "#{pane_title}"); !strings.HasPrefix(got, "#(touch ") {
		t.Errorf("the pane title is %q", got)
	}
}

// TestEscapeRoundTrip gives tmux escaped names, titles and messages and reads them back.
func TestEscapeRoundTrip(t *testing.T) {
	tmx := testtmux.New(t)
	_, pane := tmx.NewSession("esc")
	for _, s := range []string{"#[x]", "##[x", "a#b", "#{pane_id}", "##", "x#", "#(id)", "#,#}", "#[fg=red]#{?1,a,b}", "100% #T"} {
		id := tmx.Tmux("new-session", "-d", "-P", "-F", "#{session_id}", "-s", format.Escape(s))
		if got := tmx.Tmux("display-message", "-p", "-t", id, "#{session_name}"); got != s {
			t.Errorf("session name %q came back %q", s, got)
		}
		tmx.Tmux("kill-session", "-t", id)
		tmx.Tmux("rename-window", "-t", pane, format.Escape(s))
		if got := tmx.Tmux("display-message", "-p", "-t", pane, "#{window_name}"); got != s {
			t.Errorf("window name %q came back %q", s, got)
		}
		tmx.Tmux("select-pane", "-t", pane, "-T", format.Escape(s))
		if got := tmx.Tmux("display-message", "-p", "-t", pane, "#{pane_title}"); got != s {
			t.Errorf("pane title %q came back %q", s, got)
		}
		// display-message passes its format through strftime first.
		if got := tmx.Tmux("display-message", "-p", "-t", pane, "--", format.EscapeTime(s)); got != s {
			t.Errorf("message %q came back %q", s, got)
		}
	}
}

// FuzzCheck expands every format Check takes on a tmux server where everything a format can
// read would run a job: none may run, and tmux must live through it.
//
//	go test ./tmux/format -run '^$' -fuzz FuzzCheck -fuzztime 60s
func FuzzCheck(f *testing.F) {
	for _, s := range safeFormats {
		f.Add(s)
	}
	for _, h := range hazards {
		f.Add(h.f)
	}
	h := newHostile(f)
	f.Cleanup(func() {
		if h.ran(500 * time.Millisecond) {
			f.Errorf("a job ran for one of the last formats: %s", culprit(f, h.recent))
		}
	})
	f.Fuzz(func(t *testing.T, s string) {
		if format.Check(s, format.Options{Strftime: true}) != nil {
			return
		}
		if strings.ContainsAny(s, "\n\r\xff") {
			return // a control connection cannot carry these words; tmux would get another format
		}
		if _, err := h.expand(t, s); err != nil {
			if _, alive := h.tmx.TryTmux("list-sessions"); alive != nil {
				t.Fatalf("tmux died expanding %q: %v", s, err)
			}
		}
		if h.ran() {
			t.Fatalf("a job ran: %s", culprit(t, h.recent))
		}
	})
}

// culprit replays formats, each on a hostile server of its own, to tell which one ran a job.
func culprit(t testing.TB, formats []string) string {
	for _, f := range formats {
		h := newHostile(t)
		if _, err := h.expand(t, f); err == nil && h.ran(2*time.Second) {
			return strconv.Quote(f)
		}
	}
	return fmt.Sprintf("one of %q (none ran again on its own)", formats)
}
