package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

// TestCommandsConcurrent reads a pane's commands from many callers while a person types and a
// run runs there, then closes the server under them (run with -race): a user's own prompt
// integration in bash, set by typing it.
func TestCommandsConcurrent(t *testing.T) {
	s, tmx, pane := newTestServer(t, policy.Mutating)
	ctx := context.Background()
	call := func(tool string, args map[string]any) (map[string]any, bool) {
		b, _ := json.Marshal(args)
		res, err := s.Call(ctx, tool, b)
		if err != nil {
			t.Errorf("%s: %v", tool, err)
			return nil, false
		}
		var out map[string]any
		Structured(res, &out)
		return out, !res.IsError
	}
	if _, ok := call("list_commands", map[string]any{"pane_id": pane}); ok {
		t.Fatal("a pane without marks listed commands")
	}
	tmx.Tmux("send-keys", "-t", pane, "-l", `PROMPT_COMMAND='printf "\033]133;D;%s\007\033]133;A\007" $?'; PS0='\033]133;C\007'; PS1='$ \[\033]133;B\007\]'`)
	tmx.Tmux("send-keys", "-t", pane, "Enter")
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				call("list_commands", map[string]any{"pane_id": pane, "limit": 3})
				call("get_command_output", map[string]any{"pane_id": pane, "last": true, "max_lines": i + 1})
			}
		}()
	}
	for i := range 5 {
		tmx.Tmux("send-keys", "-t", pane, "-l", fmt.Sprintf("seq %d", 100*(i+1)))
		tmx.Tmux("send-keys", "-t", pane, "Enter")
	}
	if _, ok := call("run_command", map[string]any{"pane_id": pane, "command": "echo ran"}); !ok {
		t.Error("run_command failed")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, ok := call("list_commands", map[string]any{"pane_id": pane})
		if cmds, _ := out["commands"].([]any); ok && len(cmds) == 6 {
			last := cmds[5].(map[string]any)
			if last["command"] != "echo ran" || last["by_server"] != true || last["exit_status"] != 0.0 {
				t.Errorf("the run: %v", last)
			}
			// With a pane alone, get_command_output is the newest command's.
			if out, ok := call("get_command_output", map[string]any{"pane_id": pane}); !ok || out["id"] != last["id"] || fmt.Sprint(out["lines"]) != "[ran]" {
				t.Errorf("get_command_output without id or last: %v", out)
			}
			for i, c := range cmds[:5] {
				if c.(map[string]any)["command"] != fmt.Sprintf("seq %d", 100*(i+1)) || c.(map[string]any)["output_lines"].(float64) < float64(100*(i+1)) {
					// (typed ahead, the next line's echo lands in this output)
					t.Errorf("command %d: %v", i, c)
				}
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("commands: %v", out)
		}
		time.Sleep(20 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	s.Close()
}

// TestCommandsWithoutMarksSaysSo: in a pane whose shell shows no marks, list_commands lists
// this server's runs and says that a person's commands there are unknown: the list alone
// read as if nobody had typed anything.
func TestCommandsWithoutMarksSaysSo(t *testing.T) {
	s, tmx, pane := newTestServer(t, policy.Mutating)
	tmx.WaitPrompt(pane)
	call := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		b, _ := json.Marshal(args)
		res, err := s.Call(context.Background(), tool, b)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", tool, err, resultText(res))
		}
		var out map[string]any
		Structured(res, &out)
		return out
	}
	call("run_command", map[string]any{"pane_id": pane, "command": "echo ran"})
	tmx.Tmux("send-keys", "-t", pane, "echo typed-by-a-person", "Enter")
	tmx.WaitFor(pane, func(s string) bool { return strings.Contains(s, "\ntyped-by-a-person") })
	out := call("list_commands", map[string]any{"pane_id": pane})
	if cmds, _ := out["commands"].([]any); len(cmds) != 1 {
		t.Fatalf("want the run alone: %v", out)
	}
	if note, _ := out["note"].(string); !strings.Contains(note, "commands a person typed there are unknown") {
		t.Errorf("the note does not say that a person's commands are unknown: %q", note)
	}
}
