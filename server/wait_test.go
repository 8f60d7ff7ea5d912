package server

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

// TestWaitWakeUpInProcess measures wait_for_text's wake-up without the MCP transport: from
// bash printing a line to the handler returning its match.
func TestWaitWakeUpInProcess(t *testing.T) {
	s, tmx, pane := newTestServer(t, policy.Mutating)
	ctx := context.Background()
	call := func(args map[string]any) waitForTextOut {
		t.Helper()
		raw, _ := json.Marshal(args)
		res, err := s.Call(ctx, "wait_for_text", raw)
		if err != nil || res.IsError {
			t.Fatalf("%v %s", err, resultText(res))
		}
		var out waitForTextOut
		Structured(res, &out)
		return out
	}
	call(map[string]any{"pane_id": pane, "timeout": 0.1}) // attaches the stream connection
	var lat []time.Duration
	for range 12 {
		// Typed by tmux directly: "WOKE$EPOCHREALTIME" on the typed line does not match. The
		// sleep outlasts the wait's setup even on a loaded machine.
		tmx.Tmux("send-keys", "-t", pane, "sleep 0.5; echo WOKE$EPOCHREALTIME", "Enter")
		out := call(map[string]any{"pane_id": pane, "patterns": []string{`^WOKE\d+\.\d+$`}, "regex": true, "timeout": 5})
		now := time.Now()
		if !out.Found {
			t.Fatalf("%+v", out)
		}
		f, err := strconv.ParseFloat(strings.TrimPrefix(out.MatchedLines[0], "WOKE"), 64)
		if err != nil {
			t.Fatal(err)
		}
		lat = append(lat, now.Sub(time.Unix(0, int64(f*1e9))))
	}
	slices.Sort(lat)
	t.Logf("wake-up in process (bash prints -> handler returns), %d runs: min %v, median %v, p90 %v, max %v",
		len(lat), lat[0], lat[len(lat)/2], lat[len(lat)*9/10], lat[len(lat)-1])
	// A figure, not a verdict: on a loaded machine any latency bound fails for reasons of its
	// own (the benchmark judges wake-ups beside their floors). TMUX_MCP_TEST_LATENCY=1 asks.
	if os.Getenv("TMUX_MCP_TEST_LATENCY") == "1" && lat[len(lat)/2] > 20*time.Millisecond {
		t.Errorf("median wake-up %v", lat[len(lat)/2])
	}
}

// Raw output of shells typing and running `echo <120 letters> LONGMARK` in an 80-column pane
// (recorded with tmux 3.3a), cut to what matters.
