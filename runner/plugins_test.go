package runner

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// TestEnginePlugins: in the plugins set-ups (bash-completion, fzf, direnv, a git prompt,
// powerline), with and without the process table: text a person left on the command line
// that the shell completes from its history as a suggestion (fish draws it after the cursor;
// End accepts it) is cleared, not run; in the project directory, entered at the prompt so
// that direnv loads its .envrc and prints, runs see its environment; a command that is a
// prefix of the history's and one that wraps run as given.
func TestEnginePlugins(t *testing.T) {
	tmx, ts := realEngine(t)
	var setups []testtmux.Setup
	for _, sh := range []string{"bash", "fish"} {
		setups = append(setups, testtmux.Plugins(sh)...)
	}
	for _, tb := range tables {
		for _, su := range setups {
			inShell(t, tmx, tb.name+"/"+su.Name(), su, tb.table, func(t *testing.T, r *Runner, p *testtmux.ShellPane) {
				pluginRuns(t, r, ts, p)
			})
		}
	}
}

func pluginRuns(t *testing.T, r *Runner, ts *tmux.Server, p *testtmux.ShellPane) {
	t.Helper()
	want := func(cmd, out string) {
		t.Helper()
		res, err := engineRun(t, r, ts, p, cmd, 20*time.Second)
		if err != nil || res.Outcome != Completed || res.Output != out {
			t.Fatalf("%q: %+v %v; screen:\n%s", cmd, res, err, p.S.Tmux("capture-pane", "-p", "-t", p.ID))
		}
	}
	// "echo ag" begins "echo again and again" of the history: fish suggests the rest.
	p.S.Tmux("send-keys", "-t", p.ID, "-l", "echo ag")
	p.WaitState("the text left typed", func(_, before string) bool { return strings.HasSuffix(before, "echo ag") })
	want("echo after-suggestion", "after-suggestion")
	want("echo again", "again")
	// The run's cd is its subshell's: direnv's hook, at the prompt, loads nothing.
	want("cd "+testtmux.ProjectDir+" && make", "built with no env")
	p.Type("cd " + testtmux.ProjectDir)
	p.WaitState("direnv's message", func(screen, _ string) bool { return strings.Contains(screen, "envrc: project environment loaded") })
	p.WaitPrompt()
	want("echo $PROJECT_ENV", "loaded")
	want("make", "built with loaded")
	want("echo "+strings.Repeat("w", 150), strings.Repeat("w", 150))
	screen := p.S.Tmux("capture-pane", "-p", "-t", p.ID)
	if strings.Contains(screen, "again and again\n") || strings.Contains(screen, "tmux-mcp-") {
		t.Errorf("the suggestion ran, or the typed line shows:\n%s", screen)
	}
}

// TestEngineFzfOpen: with fzf's history search open (C-r, a key binding: fzf runs in the
// shell's own process group), a run is refused naming fzf; once it is closed, it runs.
func TestEngineFzfOpen(t *testing.T) {
	tmx, ts, r := realRunner(t)
	su := testtmux.Plugins("bash")[0]
	su.Require(t)
	p := tmx.StartShell(t, su)
	defer p.Kill()
	p.Keys("C-r")
	fzfInfo := regexp.MustCompile(`(?m)^\s+\d+/\d+`)
	p.WaitState("fzf's list", func(screen, _ string) bool { return fzfInfo.MatchString(screen) })
	_, err := engineRun(t, r, ts, p, "echo x", 20*time.Second)
	var ref *Refusal
	if !errors.As(err, &ref) || ref.Reason != ShellBusy || !strings.Contains(err.Error(), "runs fzf itself") {
		t.Fatalf("with fzf open: %v", err)
	}
	p.Keys("Escape")
	p.WaitPrompt()
	if res, err := engineRun(t, r, ts, p, "echo x", 20*time.Second); err != nil || res.Output != "x" {
		t.Fatalf("after fzf: %+v %v", res, err)
	}
}
