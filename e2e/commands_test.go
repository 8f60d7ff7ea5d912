package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

type cmdInfo struct {
	ID          int    `json:"id"`
	Command     string `json:"command"`
	ExitStatus  *int   `json:"exit_status"`
	Cwd         string `json:"cwd"`
	Started     string `json:"started"`
	DurationMs  int64  `json:"duration_ms"`
	OutputLines int    `json:"output_lines"`
	Running     bool   `json:"running"`
	ByServer    bool   `json:"by_server"`
}

type cmdList struct {
	PaneID   string    `json:"pane_id"`
	Commands []cmdInfo `json:"commands"`
	Note     string    `json:"note"`
}

type cmdOutput struct {
	ID           int      `json:"id"`
	Lines        []string `json:"lines"`
	DroppedLines int      `json:"dropped_lines"`
	OutputLost   bool     `json:"output_lost"`
}

// waitCommands waits until pane's list holds n commands and cond holds for the last; tests
// only: it asks list_commands again until then (at most 30 s).
func waitCommands(t *testing.T, c *Client, pane string, n int, cond func(cmdInfo) bool) cmdList {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var l cmdList
		res := c.Call("list_commands", map[string]any{"pane_id": pane, "limit": 50})
		if !res.IsError {
			c.checkOutput("list_commands", res)
			decode(t, res, &l)
			if len(l.Commands) == n && cond(l.Commands[n-1]) {
				return l
			}
		}
		if time.Now().After(deadline) {
			screen, _ := c.Tmx.TryTmux("capture-pane", "-p", "-t", pane)
			t.Fatalf("pane %s: want %d commands; list: %+v (error: %v)\nscreen:\n%s", pane, n, l.Commands, res.IsError && true, screen)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitMarks waits until the pane's shell showed its first marks (list_commands answers).
// integratedPane splits a pane running shell with the shell integration in session sess, its
// HOME and directory home, and waits until its first prompt's marks were seen.
func integratedPane(t *testing.T, c *Client, sess, shell, home string) pane {
	t.Helper()
	var p pane
	c.OK("split_window", map[string]any{"session_id": sess, "shell": shell, "shell_integration": true, "start_directory": home,
		"environment": map[string]any{"HOME": home}}, &p)
	waitMarks(t, c, p.PaneID)
	return p
}

func waitMarks(t *testing.T, c *Client, pane string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for c.Call("list_commands", map[string]any{"pane_id": pane}).IsError {
		if time.Now().After(deadline) {
			t.Fatalf("no marks in pane %s: %s", pane, c.Fail("list_commands", map[string]any{"pane_id": pane}))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func ended(ci cmdInfo) bool { return !ci.Running }

// personTypes types a line into pane as a person would (tmux send-keys, not through MCP).
func personTypes(tmx *testtmux.Server, pane, line string) {
	tmx.Tmux("send-keys", "-t", pane, "-l", line)
	tmx.Tmux("send-keys", "-t", pane, "Enter")
}

// commandSession types ordinary commands (statuses, cd, long output) into pane and checks what list_commands and
// get_command_output say of them. first is the number of commands listed before.
func commandSession(t *testing.T, c *Client, pane, shell, home string, first int) {
	t.Helper()
	exit3 := "(exit 3)"
	if shell == "fish" {
		exit3 = "sh -c 'exit 3'"
	}
	type want struct {
		line   string
		status int
		cwd    string
		output []string
	}
	var seq []string
	for i := 1; i <= 5000; i++ {
		seq = append(seq, strconv.Itoa(i))
	}
	wants := []want{
		{"echo one", 0, home, []string{"one"}},
		{"false", 1, home, nil},
		{exit3, 3, home, nil},
		{"cd /tmp", 0, home, nil},
		{"seq 1 5000", 0, "/tmp", seq},
	}
	n := first
	for _, w := range wants {
		personTypes(c.Tmx, pane, w.line)
		n++
		waitCommands(t, c, pane, n, ended)
	}
	personTypes(c.Tmx, pane, "sleep 100")
	n++
	waitCommands(t, c, pane, n, func(ci cmdInfo) bool { return ci.Running && ci.Command == "sleep 100" && ci.ExitStatus == nil })
	// A person presses Ctrl-C once sleep runs (not while the shell still starts it).
	c.Tmx.WaitFor(pane, func(string) bool {
		cmd, _ := c.Tmx.TryTmux("display-message", "-p", "-t", pane, "#{pane_current_command}")
		return cmd == "sleep"
	})
	c.Tmx.Tmux("send-keys", "-t", pane, "C-c")
	l := waitCommands(t, c, pane, n, ended)
	wants = append(wants, want{"sleep 100", 130, "/tmp", []string{"^C"}})
	got := l.Commands[first:]
	for i, w := range wants {
		ci := got[i]
		if ci.Command != w.line || ci.ExitStatus == nil || *ci.ExitStatus != w.status || ci.Cwd != w.cwd || ci.Running || ci.ByServer {
			st := "null"
			if ci.ExitStatus != nil {
				st = strconv.Itoa(*ci.ExitStatus)
			}
			t.Errorf("command %d: %+v (exit_status %s), want %q status %d in %s", i, ci, st, w.line, w.status, w.cwd)
		}
		if _, err := time.Parse(time.RFC3339Nano, ci.Started); err != nil || ci.DurationMs < 0 {
			t.Errorf("command %d: started %q, duration %d", i, ci.Started, ci.DurationMs)
		}
		var out cmdOutput
		c.OK("get_command_output", map[string]any{"pane_id": pane, "id": ci.ID, "max_lines": 6000}, &out)
		lines := out.Lines
		if w.line == "sleep 100" {
			// The terminal's echo of Ctrl-C, then (fish) nothing more.
			lines = slices.DeleteFunc(slices.Clone(lines), func(s string) bool { return s == "" })
		}
		if !slices.Equal(lines, w.output) && !(len(lines) == 0 && len(w.output) == 0) || out.OutputLost || out.DroppedLines != 0 {
			t.Errorf("output of %q: %d lines %q (lost %v, dropped %d), want %d lines", w.line, len(out.Lines), head(out.Lines), out.OutputLost, out.DroppedLines, len(w.output))
		}
		if ci.OutputLines != len(w.output) && w.line != "sleep 100" {
			t.Errorf("%q: output_lines %d, want %d", w.line, ci.OutputLines, len(w.output))
		}
	}
	// last=true, tail-kept max_lines.
	var tail cmdOutput
	c.OK("get_command_output", map[string]any{"pane_id": pane, "id": got[4].ID, "max_lines": 3}, &tail)
	if !slices.Equal(tail.Lines, []string{"4998", "4999", "5000"}) || tail.DroppedLines != 4997 {
		t.Errorf("seq's tail: %q, dropped %d", tail.Lines, tail.DroppedLines)
	}
	var last cmdOutput
	c.OK("get_command_output", map[string]any{"pane_id": pane, "last": true}, &last)
	if last.ID != got[5].ID || !slices.Equal(slices.DeleteFunc(last.Lines, func(s string) bool { return s == "" }), []string{"^C"}) {
		t.Errorf("last: %+v", last)
	}
}

func head(l []string) []string {
	if len(l) > 5 {
		return append(slices.Clone(l[:5]), fmt.Sprintf("… %d more", len(l)-5))
	}
	return l
}

// TestCommandsIntegrated: bash, zsh and fish started by split_window with shell_integration,
// a person's commands typed with send-keys, read back with their statuses, directories and
// output.
func TestCommandsIntegrated(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			testtmux.RequireShell(t, []string{shell})
			t.Parallel()
			c := start(t)
			sess, _ := c.Tmx.NewSession("")
			home := c.Tmx.Home
			// The first prompt's marks were seen: the list is empty, not an error.
			p := integratedPane(t, c, sess, shell, home)
			var l cmdList
			c.OK("list_commands", map[string]any{"pane_id": p.PaneID}, &l)
			if len(l.Commands) != 0 || l.Note != "" {
				t.Fatalf("a pane followed from its start: %+v", l)
			}
			commandSession(t, c, p.PaneID, shell, home, 0)
			// A run of this server is listed too, as such.
			var rc struct {
				ExitStatus *int `json:"exit_status"`
			}
			c.OK("run_command", map[string]any{"pane_id": p.PaneID, "command": "echo from-run; exit 4"}, &rc)
			l = waitCommands(t, c, p.PaneID, 7, ended)
			r := l.Commands[6]
			if !r.ByServer || r.Command != "echo from-run; exit 4" || r.ExitStatus == nil || *r.ExitStatus != 4 {
				t.Errorf("the run: %+v", r)
			}
			var out cmdOutput
			c.OK("get_command_output", map[string]any{"pane_id": p.PaneID, "last": true}, &out)
			if !slices.Equal(out.Lines, []string{"from-run"}) {
				t.Errorf("the run's output: %q", out.Lines)
			}
			// The user's own prompt, history and options are untouched: doctor-visible option set.
			if v := c.Tmx.Tmux("show-options", "-pqv", "-t", p.PaneID, "@tmux_mcp_shell_integration"); v != shell {
				t.Errorf("pane option: %q", v)
			}
			// doctor, another process, says which panes have marks.
			doc := exec.Command(binary, "doctor")
			doc.Env = append(append([]string{}, c.Tmx.Env...), "LIBTMUX_SOCKET_PATH="+c.Tmx.Socket)
			b, _ := doc.CombinedOutput()
			if want := p.PaneID + " (" + shell + ", tmux-mcp's integration)"; !strings.Contains(string(b), want) {
				t.Errorf("doctor does not list %s:\n%s", want, b)
			}
		})
	}
}

// userPrompt is a shell's prompt configuration file and how to start the shell with it.
type userPrompt struct {
	file, text string
	argv       func(home string) []string
}

// userPrompts are a user's own prompt configurations that emit OSC 133 (as starship's or a
// terminal's integration does), with no help from this server.
var userPrompts = map[string]userPrompt{
	"zsh": {".zshrc", `
PS1=$'%{\e[32m%}%n%{\e[0m%} %~ %# %{\e]133;B\a%}'
__p_precmd() { local s=$?; printf '\e]133;D;%s;aid=%s\a\e]133;A;cl=m;aid=%s\a' $s $$ $$; }
__p_preexec() { printf '\e]133;C\a'; }
precmd_functions+=(__p_precmd)
preexec_functions+=(__p_preexec)
setopt histignorespace
`, func(home string) []string { return []string{"env", "ZDOTDIR=" + home, "zsh", "-i"} }},
	"fish": {".config/fish/config.fish", `
function fish_prompt
    printf '\e]133;A\a%s> \e]133;B\a' (prompt_pwd)
end
function __p_preexec --on-event fish_preexec
    printf '\e]133;C\a'
end
function __p_postexec --on-event fish_postexec
    printf '\e]133;D;%s\a' $status
end
function fish_greeting; end
`, func(home string) []string { return []string{"env", "HOME=" + home, "fish", "-i"} }},
}

// install writes the user's prompt configuration into home.
func (up userPrompt) install(t *testing.T, home string) {
	t.Helper()
	path := filepath.Join(home, up.file)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(up.text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestCommandsUserPrompt: a pane tmux-mcp did not make, whose prompt emits OSC 133 itself; the
// server follows it from the first call that names it.
func TestCommandsUserPrompt(t *testing.T) {
	for _, shell := range []string{"zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			testtmux.RequireShell(t, []string{shell})
			t.Parallel()
			c := start(t)
			up := userPrompts[shell]
			home := c.Tmx.Home
			up.install(t, home)
			_, pane := c.Tmx.NewSession("", up.argv(home)...)
			c.Tmx.WaitFor(pane, func(s string) bool {
				return strings.Contains(s, ">") || strings.Contains(s, "%") || strings.Contains(s, "#")
			})
			// Its prompt was drawn before the server looked: nothing seen yet, and the error
			// says how to get marks.
			msg := c.Fail("list_commands", map[string]any{"pane_id": pane})
			for _, want := range []string{"no shell-integration marks", "shell_integration", "OSC 133", "typed before are unknown"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q lacks %q", msg, want)
				}
			}
			commandSession(t, c, pane, shell, home, 0)
			var l cmdList
			c.OK("list_commands", map[string]any{"pane_id": pane, "limit": 2}, &l)
			if len(l.Commands) != 2 || !strings.Contains(l.Note, "4 older commands") || !strings.Contains(l.Note, "commands run before are unknown") {
				t.Errorf("limit 2: %+v", l)
			}
			doc := exec.Command(binary, "doctor")
			doc.Env = append(append([]string{}, c.Tmx.Env...), "LIBTMUX_SOCKET_PATH="+c.Tmx.Socket)
			b, _ := doc.CombinedOutput()
			if want := pane + " (its prompt's own)"; !strings.Contains(string(b), want) {
				t.Errorf("doctor does not list %s:\n%s", want, b)
			}
		})
	}
}

// TestCommandsUserPromptIntegrated: a user's prompt that emits OSC 133 itself, in a shell
// started with the server's integration too: every command is listed once, with its status.
func TestCommandsUserPromptIntegrated(t *testing.T) {
	for _, shell := range []string{"zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			testtmux.RequireShell(t, []string{shell})
			t.Parallel()
			c := start(t)
			up := userPrompts[shell]
			home := c.Tmx.Home
			up.install(t, home)
			sess, _ := c.Tmx.NewSession("")
			p := integratedPane(t, c, sess, shell, home)
			commandSession(t, c, p.PaneID, shell, home, 0)
			if shell == "zsh" {
				// The prompt keeps one B mark: the integration saw the user's.
				personTypes(c.Tmx, p.PaneID, `print -r -- ${(q+)PS1}`)
				l := waitCommands(t, c, p.PaneID, 7, ended)
				var out cmdOutput
				c.OK("get_command_output", map[string]any{"pane_id": p.PaneID, "id": l.Commands[6].ID}, &out)
				if len(out.Lines) != 1 || strings.Count(out.Lines[0], "133;B") != 1 {
					t.Errorf("PS1 is %q", out.Lines)
				}
			}
		})
	}
}

// TestCommandsRefusals: what list_commands, get_command_output and shell_integration refuse.
func TestCommandsRefusals(t *testing.T) {
	c := start(t)
	_, pane := c.Tmx.NewSession("plain")
	msg := c.Fail("list_commands", map[string]any{"pane_id": pane})
	if !strings.Contains(msg, "LIBTMUX_MCP_SHELL_INTEGRATION") {
		t.Errorf("no marks: %s", msg)
	}
	if msg := c.Fail("get_command_output", map[string]any{"pane_id": pane, "id": 1, "last": true}); !strings.Contains(msg, "id") || !strings.Contains(msg, "last") {
		t.Errorf("both id and last: %s", msg)
	}
	// The test server's default-command is an opaque shell command line.
	msg = c.Fail("create_window", map[string]any{"session_name": "plain", "shell_integration": true})
	if !strings.Contains(msg, "default-command") || !strings.Contains(msg, "not supported") {
		t.Errorf("opaque default-command: %s", msg)
	}
	msg = c.Fail("split_window", map[string]any{"pane_id": pane, "shell": "dash", "shell_integration": true})
	if !strings.Contains(msg, "bash, zsh") {
		t.Errorf("dash: %s", msg)
	}
	// respawn_pane gives a pane followed since the first call the integration; its list says
	// that it starts mid-pane.
	var rp struct {
		PaneID string `json:"pane_id"`
	}
	c.OK("respawn_pane", map[string]any{"pane_id": pane, "kill": true, "shell": "bash", "shell_integration": true, "environment": map[string]any{"HOME": c.Tmx.Home}}, &rp)
	waitMarks(t, c, pane)
	personTypes(c.Tmx, pane, "echo again")
	l := waitCommands(t, c, pane, 1, ended)
	if l.Commands[0].Command != "echo again" || *l.Commands[0].ExitStatus != 0 || !strings.Contains(l.Note, "before are unknown") {
		t.Errorf("respawned: %+v", l)
	}
	if _, err := exec.LookPath("bash"); err == nil {
		// With default-shell bash and no default-command, create_session's shell gets it.
		c.Tmx.Tmux("set", "-g", "default-command", "")
		bash, _ := exec.LookPath("bash")
		c.Tmx.Tmux("set", "-g", "default-shell", bash)
		var s struct {
			ActivePaneID string `json:"active_pane_id"`
		}
		c.OK("create_session", map[string]any{"session_name": "marked", "shell_integration": true, "start_directory": c.Tmx.Home}, &s)
		waitMarks(t, c, s.ActivePaneID)
		personTypes(c.Tmx, s.ActivePaneID, "true")
		l = waitCommands(t, c, s.ActivePaneID, 1, ended)
		if l.Commands[0].Command != "true" || l.Note != "" {
			t.Errorf("create_session: %+v", l)
		}
		if msg := c.Fail("get_command_output", map[string]any{"pane_id": s.ActivePaneID, "id": 9}); !strings.Contains(msg, "1 to 1") {
			t.Errorf("unknown id: %s", msg)
		}
	}
}

func decode(t *testing.T, res *mcp.CallToolResult, out any) {
	t.Helper()
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
}

// TestCommandsRunInNestedShell: a run in a shell a person started from an integrated one (bash
// in zsh, as ssh or `nix develop` would be) is listed as the run, and the nested shell stays
// listed, running, then ended with its status: the run used to take its place in the list.
func TestCommandsRunInNestedShell(t *testing.T) {
	testtmux.RequireShell(t, []string{"zsh", "bash"})
	c := start(t)
	sess, _ := c.Tmx.NewSession("")
	home := c.Tmx.Home
	p := integratedPane(t, c, sess, "zsh", home)
	personTypes(c.Tmx, p.PaneID, "bash --norc")
	waitCommands(t, c, p.PaneID, 1, func(ci cmdInfo) bool { return ci.Running })
	c.Tmx.WaitFor(p.PaneID, func(string) bool {
		cmd, _ := c.Tmx.TryTmux("display-message", "-p", "-t", p.PaneID, "#{pane_current_command}")
		return cmd == "bash"
	})
	var rc struct {
		ExitStatus *int `json:"exit_status"`
	}
	c.OK("run_command", map[string]any{"pane_id": p.PaneID, "command": "echo from-run; exit 4"}, &rc)
	if rc.ExitStatus == nil || *rc.ExitStatus != 4 {
		t.Fatalf("the run in the nested shell: %+v", rc)
	}
	l := waitCommands(t, c, p.PaneID, 2, ended)
	if sh := l.Commands[0]; sh.Command != "bash --norc" || !sh.Running || sh.ByServer {
		t.Errorf("while the nested shell runs: %+v", sh)
	}
	personTypes(c.Tmx, p.PaneID, "exit 5")
	l = waitCommands(t, c, p.PaneID, 2, func(cmdInfo) bool { return true })
	for deadline := time.Now().Add(30 * time.Second); l.Commands[0].Running && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		l = waitCommands(t, c, p.PaneID, 2, func(cmdInfo) bool { return true })
	}
	sh, r := l.Commands[0], l.Commands[1]
	if sh.Command != "bash --norc" || sh.Running || sh.ExitStatus == nil || *sh.ExitStatus != 5 || sh.ByServer {
		t.Errorf("the nested shell after exit: %+v", sh)
	}
	if r.Command != "echo from-run; exit 4" || !r.ByServer || r.ExitStatus == nil || *r.ExitStatus != 4 {
		t.Errorf("the run: %+v", r)
	}
	var out cmdOutput
	c.OK("get_command_output", map[string]any{"pane_id": p.PaneID, "id": r.ID}, &out)
	if !slices.Equal(out.Lines, []string{"from-run"}) {
		t.Errorf("the run's output: %q", out.Lines)
	}
}

// TestIntegrationExportsNoMarks: a user who exports PS1 and PROMPT_COMMAND (or whose tmux has
// PS1 in its environment) keeps the integration's marks and hook names out of the environment
// of what their shell starts: a nested bash printed "__tmux_mcp_pre: command not found" at each
// prompt, dash drew the marks' text, and the marks it drew ended the nested shell's command.
func TestIntegrationExportsNoMarks(t *testing.T) {
	for _, shell := range []string{"bash", "zsh"} {
		t.Run(shell, func(t *testing.T) {
			testtmux.RequireShell(t, []string{shell})
			c := start(t)
			sess, _ := c.Tmx.NewSession("")
			home := c.Tmx.Home
			rc := "export PS1='\\u \\$ ' PS0='' PROMPT_COMMAND='history -a'\n"
			if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte(rc), 0o600); err != nil {
				t.Fatal(err)
			}
			// The session's PS1='$ ' is in the zsh's environment: zsh exports it.
			p := integratedPane(t, c, sess, shell, home)
			out := filepath.Join(home, "env.out")
			personTypes(c.Tmx, p.PaneID, "env > "+out)
			waitCommands(t, c, p.PaneID, 1, ended)
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, bad := range []string{"133;", "__tmux_mcp"} {
				if strings.Contains(string(b), bad) {
					t.Errorf("the environment of a command holds %q:\n%s", bad, b)
				}
			}
		})
	}
}

// TestCommandsOutputWithoutNewline: a person's command whose output does not end with a
// newline (printf, curl) keeps its last line in get_command_output. zsh's PROMPT_SP, printed
// before the D mark, restarted the line with a CR and it was lost.
func TestCommandsOutputWithoutNewline(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			testtmux.RequireShell(t, []string{shell})
			c := start(t)
			sess, _ := c.Tmx.NewSession("")
			home := c.Tmx.Home
			p := integratedPane(t, c, sess, shell, home)
			personTypes(c.Tmx, p.PaneID, `printf 'first\nno newline'`)
			waitCommands(t, c, p.PaneID, 1, ended)
			var out cmdOutput
			c.OK("get_command_output", map[string]any{"pane_id": p.PaneID, "last": true}, &out)
			if !slices.Equal(out.Lines, []string{"first", "no newline"}) {
				t.Errorf("output %q, want the two lines", out.Lines)
			}
		})
	}
}
