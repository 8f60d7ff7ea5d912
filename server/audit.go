package server

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// secretArgs are argument names whose values never reach the audit log.
var secretArgs = map[string]bool{
	"keys": true, "text": true, "command": true, "content": true, "value": true, "shell": true, "environment": true,
}

// auditLog writes one JSON line per tool call.
type auditLog struct {
	mu sync.Mutex
	w  io.Writer
	f  *os.File
}

func openAudit(dest string) (*auditLog, error) {
	if dest == "stderr" {
		return &auditLog{w: os.Stderr}, nil
	}
	f, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("LIBTMUX_MCP_AUDIT: %w", err)
	}
	return &auditLog{w: f, f: f}, nil
}

func (a *auditLog) close() {
	if a.f != nil {
		a.f.Close()
	}
}

type auditLine struct {
	Time       string         `json:"time"`
	Tool       string         `json:"tool"`
	Outcome    string         `json:"outcome"`
	DurationMS float64        `json:"duration_ms"`
	Arguments  map[string]any `json:"arguments,omitempty"`
}

func (s *Server) audit(tool string, raw json.RawMessage, res *mcp.CallToolResult, d time.Duration) {
	if s.auditW == nil {
		return
	}
	line := auditLine{Time: time.Now().UTC().Format(time.RFC3339Nano), Tool: tool, Outcome: "ok", DurationMS: float64(d.Microseconds()) / 1000}
	var args map[string]any
	if json.Unmarshal(raw, &args) == nil {
		line.Arguments = redactMap(args)
	}
	if res.IsError {
		// The error text is not logged: it can quote secrets of other calls (a busy pane's
		// refusal names the command running in it), which no scrubbing of this call's
		// arguments would catch.
		line.Outcome = "error"
	}
	b, err := json.Marshal(line)
	if err != nil {
		return
	}
	s.auditW.mu.Lock()
	defer s.auditW.mu.Unlock()
	s.auditW.w.Write(append(b, '\n'))
}

func redactMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if secretArgs[k] {
			out[k] = digest(v)
			continue
		}
		out[k] = redactValue(v)
	}
	return out
}

func redactValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return redactMap(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = redactValue(e)
		}
		return out
	case string:
		return truncate(x, 200)
	}
	return v
}

// digest replaces a secret by its length and a short SHA-256 prefix.
func digest(v any) any {
	b, _ := json.Marshal(v)
	if s, ok := v.(string); ok {
		b = []byte(s)
	}
	sum := sha256.Sum256(b)
	return map[string]any{"len": len(b), "sha256": hex.EncodeToString(sum[:6])}
}
