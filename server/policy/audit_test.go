package policy

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The audit line is what encoding/json writes of {time, tool, outcome, duration_ms, arguments}
// (keys in that order, arguments left out when there are none, HTML escaped), with every secret
// argument replaced by its length and digest at any depth, and long strings cut.
func TestAuditLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	a, err := OpenAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		raw    string
		failed bool
		d      time.Duration
	}{
		{`{"pane_id":"%1","keys":"secret","nested":{"text":"hidden","a<b":"x&y"}}`, false, 1234 * time.Microsecond},
		{`{}`, true, 20 * time.Minute},
		{`null`, false, 0},
		{`{"operations":[{"tool":"send_keys","arguments":{"keys":"pw"}}],"name":"` + strings.Repeat("n", 300) + `"}`, false, time.Millisecond},
	}
	before := time.Now().UTC()
	for _, c := range calls {
		a.Call("tool_x", json.RawMessage(c.raw), c.failed, c.d)
	}
	a.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != len(calls) {
		t.Fatalf("%d lines for %d calls:\n%s", len(lines), len(calls), b)
	}
	for i, c := range calls {
		var got struct{ Time string }
		json.Unmarshal([]byte(lines[i]), &got)
		at, err := time.Parse(time.RFC3339Nano, got.Time)
		if err != nil || at.Before(before.Add(-time.Second)) || !strings.HasSuffix(got.Time, "Z") {
			t.Errorf("line %d: time %q: %v", i, got.Time, err)
		}
		type line struct {
			Time       string         `json:"time"`
			Tool       string         `json:"tool"`
			Outcome    string         `json:"outcome"`
			DurationMS float64        `json:"duration_ms"`
			Arguments  map[string]any `json:"arguments,omitempty"`
		}
		want := line{Time: got.Time, Tool: "tool_x", Outcome: "ok", DurationMS: float64(c.d.Microseconds()) / 1000}
		if c.failed {
			want.Outcome = "error"
		}
		var args map[string]any
		if json.Unmarshal([]byte(c.raw), &args) == nil {
			want.Arguments = redactMap(args)
		}
		wb, _ := json.Marshal(want)
		if lines[i] != string(wb) {
			t.Errorf("line %d:\n got %s\nwant %s", i, lines[i], wb)
		}
	}
	for _, secret := range []string{"secret", "hidden", `"pw"`, strings.Repeat("n", 201)} {
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("the log holds %q:\n%s", secret, b)
		}
	}
	if !strings.Contains(lines[0], `"keys":{"len":6,"sha256":"`) || !strings.Contains(lines[0], `\u003c`) {
		t.Errorf("redaction or escaping: %s", lines[0])
	}
}
