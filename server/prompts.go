package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// Prompts name tools as calls, tool(arg=value, ...), with values in JSON: a test renders every
// prompt and checks each named tool and argument against tools/list.

// promptDef is one prompt: its declaration and the function rendering its user message.
type promptDef struct {
	prompt *mcp.Prompt
	render func(args map[string]string) (string, error)
}

func prompts() []promptDef {
	return []promptDef{
		{&mcp.Prompt{Name: "run_and_wait", Title: "Run a command and wait for it",
			Description: "Run one shell command in a pane and wait for its exit status and output, without polling.",
			Arguments: []*mcp.PromptArgument{
				{Name: "command", Description: "The shell command to run.", Required: true},
				{Name: "pane_id", Description: "The pane to run it in (e.g. %1).", Required: true},
				{Name: "timeout", Description: "Seconds to wait (default 60)."},
			}}, renderRunAndWait},
		{&mcp.Prompt{Name: "diagnose_failing_pane", Title: "Diagnose a failing pane",
			Description: "Read what a pane shows and propose why its last command failed, without running anything.",
			Arguments: []*mcp.PromptArgument{
				{Name: "pane_id", Description: "The pane to look at (e.g. %1).", Required: true},
			}}, renderDiagnose},
		{&mcp.Prompt{Name: "build_dev_workspace", Title: "Build a development workspace",
			Description: "Create a session with an editor pane, a shell pane and a pane following a log.",
			Arguments: []*mcp.PromptArgument{
				{Name: "session_name", Description: "Name of the new session.", Required: true},
				{Name: "log_command", Description: "The command that follows the log (e.g. tail -F app.log).", Required: true},
			}}, renderWorkspace},
		{&mcp.Prompt{Name: "interrupt_gracefully", Title: "Interrupt a pane gracefully",
			Description: "Stop what runs in a pane with Ctrl-C and check that it stopped, escalating only with the user's consent.",
			Arguments: []*mcp.PromptArgument{
				{Name: "pane_id", Description: "The pane to interrupt (e.g. %1).", Required: true},
			}}, renderInterrupt},
	}
}

// addPrompts registers the prompts.
func (s *Server) addPrompts() {
	for _, p := range prompts() {
		render := p.render
		s.mcp.AddPrompt(p.prompt, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			text, err := render(req.Params.Arguments)
			if err != nil {
				return nil, err
			}
			return &mcp.GetPromptResult{
				Description: p.prompt.Description,
				Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
			}, nil
		})
	}
}

// q renders a value as JSON, so that a rendered call stays one well-formed call whatever the
// value holds.
func q(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func promptPane(args map[string]string) (string, error) {
	p := strings.TrimSpace(args["pane_id"])
	if !tmux.ValidPaneID(p) {
		return "", fmt.Errorf("pane_id %q is not a pane id (like %%1; list_panes shows them)", truncate(p, 40))
	}
	return p, nil
}

func renderRunAndWait(args map[string]string) (string, error) {
	pane, err := promptPane(args)
	if err != nil {
		return "", err
	}
	cmd := args["command"]
	if strings.TrimSpace(cmd) == "" {
		return "", fmt.Errorf("command is empty")
	}
	timeout := 60.0
	if t := strings.TrimSpace(args["timeout"]); t != "" {
		if timeout, err = strconv.ParseFloat(t, 64); err != nil || timeout <= 0 || timeout > 86400 {
			return "", fmt.Errorf("timeout %q is not a positive number of seconds", truncate(t, 40))
		}
	}
	return fmt.Sprintf(`Run this shell command in tmux pane %[1]s and report how it ended.

1. Call run_command(pane_id=%[2]s, command=%[3]s, timeout=%[4]s, max_lines=100).
   It types the command framed, waits until it ends (tmux wakes it: no polling) and returns
   exit_status, timed_out, output (only the command's own output) and effective_timeout.
2. If timed_out is true, the command is still running (the server caps every wait at its
   ceiling, so effective_timeout may be shorter than asked). Never run it again: wait for it
   with wait_for_run(pane_id=%[2]s, timeout=60), which returns its exit_status and output once
   it ends, as often as needed.
3. If waiting_for_input is true, it asks something (prompt holds the question): answer with
   send_keys(pane_id=%[2]s, keys="<answer>", to_running_command=true), then wait_for_run again.
4. Report exit_status and the lines of output that matter.

Do not run commands with send_keys and then read the screen with capture_pane in a loop:
run_command knows when the command ended and which output is its own. For a program that
stays open (an editor, a REPL), type with send_keys(pane_id=%[2]s, keys="...", enter=true):
it returns a cursor; wait_for_text(pane_id=%[2]s, cursor=<that cursor>, patterns=["..."]) then
sees everything printed after the keys, and wait_for_text(pane_id=%[2]s, cursor=<that cursor>,
quiet_ms=500) waits until a full-screen program has finished drawing.`, pane, q(pane), q(cmd), strconv.FormatFloat(timeout, 'f', -1, 64)), nil
}

func renderDiagnose(args map[string]string) (string, error) {
	pane, err := promptPane(args)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf(`Find out why the last command in tmux pane %[1]s failed. Read only: run nothing and type
nothing into the pane until the user agrees.

1. snapshot_pane(pane_id=%[2]s, max_lines=200): the screen, cursor, mode and current command in
   one read. If content_truncated is true and you need more, call it again with max_lines=null.
2. If the failure scrolled away, read the history: capture_pane(pane_id=%[2]s, start=-2000, max_lines=500),
   or search it: search_panes(pattern="error", session_id=<the pane's session_id>).
3. get_pane_info(pane_id=%[2]s): pane_dead, pane_current_command and pane_current_path say
   whether the program still runs and where.
4. If you must watch it fail again, read only new output: capture_since(pane_id=%[2]s) gives a
   cursor, then capture_since(pane_id=%[2]s, cursor=<that cursor>, wait_ms=5000).

Then report: the command that failed, the lines that show the failure, your hypothesis, and one
command that would confirm it (for the user to approve, not to run).`, pane, q(pane)), nil
}

func renderWorkspace(args map[string]string) (string, error) {
	name := args["session_name"]
	if err := checkSessionName(&name); err != nil {
		return "", fmt.Errorf("session_name: %s", firstLine(err.Error()))
	}
	logCmd := args["log_command"]
	if strings.TrimSpace(logCmd) == "" {
		return "", fmt.Errorf("log_command is empty")
	}
	return fmt.Sprintf(`Build a development workspace in a new tmux session %[1]s. Target every pane by its id
(%%N), never by index: ids do not move when panes are added.

1. create_session(session_name=%[1]s): note active_pane_id as EDITOR.
2. split_window(pane_id=EDITOR, direction="below", size="30%%"): note the new pane_id as SHELL.
3. split_window(pane_id=SHELL, direction="right", size="50%%"): note the new pane_id as LOG.
4. set_pane_title(pane_id=EDITOR, title="editor"), set_pane_title(pane_id=SHELL, title="shell"),
   set_pane_title(pane_id=LOG, title="log").
5. Start the log follower, which never ends, with send_keys(pane_id=LOG, keys=%[2]s, enter=true)
   (not run_command: it would wait for the end). It returns a cursor: check that the follower
   started with wait_for_text(pane_id=LOG, cursor=<that cursor>, patterns=null, timeout=5),
   which sees its output even when it came before the wait.
6. Open the editor: send_keys(pane_id=EDITOR, keys="vi", enter=true).
7. select_pane(pane_id=SHELL), and run one-shot commands there with run_command(pane_id=SHELL, command="...").

Report the session id and the three pane ids.`, q(name), q(logCmd)), nil
}

func renderInterrupt(args map[string]string) (string, error) {
	pane, err := promptPane(args)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf(`Stop what is running in tmux pane %[1]s, gently.

1. get_pane_info(pane_id=%[2]s): note pane_current_command (what runs now) and is_caller (never
   interrupt the pane this server runs in).
2. send_keys(pane_id=%[2]s, keys="C-c", literal=false, enter=false): Ctrl-C, with no Enter after
   it. It returns a cursor taken before the key.
3. wait_for_text(pane_id=%[2]s, cursor=<that cursor>, patterns=null, timeout=5): wakes on what
   the pane printed after the Ctrl-C (a prompt, or the program's goodbye), also when that came
   before the wait started. Do not stop on "^C": the terminal echoes it on every interrupt,
   whether the program stopped or not. If a run_command or run_shell_command started the
   program, wait_for_run(pane_id=%[2]s, timeout=10) tells when it really ended, with its status.
4. get_pane_info(pane_id=%[2]s) again. If pane_current_command is now the shell, it stopped: say so.
5. If the same program still runs, send one more C-c as in step 2 and wait as in step 3. If it
   still runs, stop and ask the user before anything stronger (C-\, respawn_pane, kill_pane).`, pane, q(pane)), nil
}
