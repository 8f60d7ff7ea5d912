package server

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/asciicast"
	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

// A run that outlives its call (it timed out, or waits for input) is marked in a recording
// where its call returned and again, with its exit status, where it ended: the end used to be
// marked only as "timed_out (still running)", and the exit status never.
func TestRecordingMarksLateRunEnd(t *testing.T) {
	s, tmx, pane := newTestServer(t, policy.Destructive)
	tmx.WaitPrompt(pane)
	cast := filepath.Join(t.TempDir(), "late.cast")
	call := func(tool string, args map[string]any) string {
		t.Helper()
		raw, _ := json.Marshal(args)
		res, err := s.Call(context.Background(), tool, raw)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", tool, err, resultText(res))
		}
		return resultText(res)
	}
	call("start_recording", map[string]any{"pane_id": pane, "output_path": cast})
	for _, tc := range []struct{ command, input, want string }{
		{"sleep 1; exit 4", "", "run_command ended: exit 4"},
		{"read -r line; exit 5", "hello", "run_command ended: exit 5"},
	} {
		if out := call("run_command", map[string]any{"pane_id": pane, "command": tc.command, "timeout": 0.3}); !strings.Contains(out, `"still_running":true`) && !strings.Contains(out, `"timed_out":true`) {
			t.Fatalf("run_command %q did not outlive its call: %s", tc.command, out)
		}
		if tc.input != "" {
			call("send_keys", map[string]any{"pane_id": pane, "keys": tc.input, "to_running_command": true})
		}
		call("wait_for_run", map[string]any{"pane_id": pane, "timeout": 20})
	}
	// No wait: the late end is marked before wait_for_run sees it (runner.Record.OnEnd).
	call("stop_recording", map[string]any{"pane_id": pane})
	_, evs, err := asciicast.ReadFile(cast)
	if err != nil {
		t.Fatal(err)
	}
	var marks []string
	for _, e := range evs {
		if e.Code == asciicast.Marker {
			marks = append(marks, e.Data)
		}
	}
	got := strings.Join(marks, "\n")
	for _, want := range []string{"run_command returned: the command still runs (timed_out)", "run_command ended: exit 4",
		"run_command ended: exit 5", "recording ended: stopped"} {
		if !strings.Contains(got, want) {
			t.Errorf("the recording's markers lack %q:\n%s", want, got)
		}
	}
	if strings.Index(got, "exit 4") > strings.Index(got, "began: read") {
		t.Errorf("the first run's end is marked after the second run began:\n%s", got)
	}
}
