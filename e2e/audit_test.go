package e2e

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAuditRedaction runs calls carrying secrets through the binary with LIBTMUX_MCP_AUDIT set
// and checks that no secret reaches the log, nested batch arguments included.
func TestAuditRedaction(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	c := start(t, "LIBTMUX_SAFETY=destructive", "LIBTMUX_MCP_AUDIT="+logPath)
	sid, p := c.Tmx.NewSession("s")
	p1 := c.Tmx.SplitWindow(p)
	secrets := map[string]string{}
	secret := func(name string) string {
		v := "s3cr3t-" + name + "-4f9a2c"
		secrets[name] = v
		return v
	}
	c.OK("set_environment", map[string]any{"name": "API_TOKEN", "value": secret("env"), "session_id": sid}, nil)
	c.OK("load_buffer", map[string]any{"content": secret("buffer")}, nil)
	c.OK("respawn_pane", map[string]any{"pane_id": p1, "shell": "bash --noprofile --norc # " + secret("shell"), "environment": map[string]any{"TOKEN": secret("spawnenv")}}, nil)
	c.OK("create_session", map[string]any{"session_name": "e", "environment": `{"K": "` + secret("jsonenv") + `"}`}, nil)
	c.OK("set_option", map[string]any{"option": "@opt", "value": secret("option")}, nil)
	// Refused calls: the error text must not carry the secret into the log either.
	c.Fail("set_option", map[string]any{"option": "history-limit", "value": secret("badoption"), "global_": true})
	c.Fail("set_environment", map[string]any{"name": "1BAD", "value": secret("badenv")})
	c.OK("call_mutating_tools_batch", map[string]any{"on_error": "continue", "operations": []any{
		op("set_environment", map[string]any{"name": "NESTED", "value": secret("nested")}),
		op("set_option", map[string]any{"option": "history-limit", "value": secret("nestedbad"), "global_": true}),
		op("load_buffer", map[string]any{"content": secret("nestedbuffer")}),
	}}, nil)
	c.OK("call_readonly_tools_batch", map[string]any{"operations": []any{op("show_environment", map[string]any{"session_id": sid})}}, nil)
	c.CS.Close() // the server flushes and closes the log as it exits

	var lines []map[string]any
	var raw string
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, err := os.ReadFile(logPath)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(b)
		if strings.Count(raw, "\n") >= 13 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for name, v := range secrets {
		if strings.Contains(raw, v) || strings.Contains(raw, strings.TrimSuffix(v, "-4f9a2c")) {
			t.Errorf("secret %s appears in the audit log", name)
		}
	}
	sc := bufio.NewScanner(strings.NewReader(raw))
	sc.Buffer(nil, 1<<20)
	tools := map[string]int{}
	for sc.Scan() {
		var l map[string]any
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("audit line is not JSON: %s", sc.Text())
		}
		lines = append(lines, l)
		tools[l["tool"].(string)]++
	}
	// 7 direct calls, 2 batches, 4 nested calls (each audited as a direct call would be).
	if len(lines) != 13 || tools["set_environment"] != 3 || tools["load_buffer"] != 2 || tools["show_environment"] != 1 {
		t.Errorf("audit lines: %d, per tool %v", len(lines), tools)
	}
	// The digest is the length and a SHA-256 prefix of the value.
	sum := sha256.Sum256([]byte(secrets["nested"]))
	for _, l := range lines {
		if l["tool"] != "call_mutating_tools_batch" {
			continue
		}
		ops := l["arguments"].(map[string]any)["operations"].([]any)
		v := ops[0].(map[string]any)["arguments"].(map[string]any)["value"].(map[string]any)
		if v["len"] != float64(len(secrets["nested"])) || !strings.HasPrefix(hex.EncodeToString(sum[:]), v["sha256"].(string)) {
			t.Errorf("nested value digest = %v", v)
		}
		if ops[0].(map[string]any)["tool"] != "set_environment" {
			t.Errorf("nested tool name is kept: %v", ops[0])
		}
	}
	for _, l := range lines {
		if _, ok := l["error"]; ok {
			t.Errorf("audit lines carry no error text (it can quote other calls' secrets): %v", l)
		}
	}
}
