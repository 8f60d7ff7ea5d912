package policy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/hint"
)

// secretArgs are argument names whose values never reach the audit log, at any depth.
var secretArgs = map[string]bool{
	"keys": true, "text": true, "command": true, "content": true, "value": true, "shell": true, "environment": true,
}

// Audit writes one JSON line per tool call (LIBTMUX_MCP_AUDIT): time, tool, outcome,
// duration_ms and the arguments, secrets redacted. It is a log/slog JSON handler whose
// ReplaceAttr redacts, and leaves out slog's level and message.
type Audit struct {
	log *slog.Logger
	f   *os.File // the file it writes to, closed by Close; nil for stderr
}

// OpenAudit opens the audit log dest: "stderr" or a file path, appended to (0600).
func OpenAudit(dest string) (*Audit, error) {
	var w io.Writer = os.Stderr
	a := &Audit{}
	if dest != "stderr" {
		f, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return nil, fmt.Errorf("LIBTMUX_MCP_AUDIT: %w", err)
		}
		w, a.f = f, f
	}
	a.log = slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{ReplaceAttr: auditAttr}))
	return a, nil
}

// Close closes the log's file.
func (a *Audit) Close() {
	if a.f != nil {
		a.f.Close()
	}
}

// Call logs one tool call with its raw arguments. The error text is never logged: it can quote
// secrets of other calls (a busy pane's refusal names the command running in it), which no
// scrubbing of this call's arguments would catch.
func (a *Audit) Call(tool string, raw json.RawMessage, failed bool, d time.Duration) {
	outcome := "ok"
	if failed {
		outcome = "error"
	}
	attrs := []slog.Attr{slog.String("tool", tool), slog.String("outcome", outcome), slog.Float64("duration_ms", float64(d.Microseconds())/1000)}
	var args map[string]any
	if json.Unmarshal(raw, &args) == nil && len(args) > 0 {
		attrs = append(attrs, slog.Any("arguments", args))
	}
	a.log.LogAttrs(context.Background(), slog.LevelInfo, "", attrs...)
}

// Secret logs that the person typed a secret of n bytes into pane (type_secret, or a run that
// asked): never the secret, nor a digest of it.
func (a *Audit) Secret(pane string, n int) {
	a.log.LogAttrs(context.Background(), slog.LevelInfo, "", slog.String("event", "secret_typed"), slog.String("pane", pane), slog.Int("bytes", n))
}

// auditAttr shapes the line: the time in UTC with nanoseconds, no level or message, and the
// arguments redacted (encoded as encoding/json does, HTML-escaped).
func auditAttr(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 {
		return a
	}
	switch a.Key {
	case slog.LevelKey, slog.MessageKey:
		return slog.Attr{}
	case slog.TimeKey:
		return slog.String(slog.TimeKey, a.Value.Time().UTC().Format(time.RFC3339Nano))
	case "arguments":
		if m, ok := a.Value.Any().(map[string]any); ok {
			b, err := json.Marshal(redactMap(m))
			if err != nil {
				return slog.Attr{}
			}
			return slog.Any("arguments", json.RawMessage(b))
		}
	}
	return a
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
		return hint.Truncate(x, 200)
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
