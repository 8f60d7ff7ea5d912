package server

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

// logSink collects a client's notifications/message.
type logSink struct {
	mu   sync.Mutex
	msgs []*mcp.LoggingMessageParams
}

func (l *logSink) handler(_ context.Context, r *mcp.LoggingMessageRequest) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, r.Params)
}

// await returns the first message of logger within d, or nil.
func (l *logSink) await(logger string, d time.Duration) *mcp.LoggingMessageParams {
	for end := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		l.mu.Lock()
		for _, m := range l.msgs {
			if m.Logger == logger {
				l.mu.Unlock()
				return m
			}
		}
		l.mu.Unlock()
		if time.Now().After(end) {
			return nil
		}
	}
}

// connectAt connects an in-memory client at protocol version v, collecting its log messages.
func connectAt(t *testing.T, s *Server, v string, sink *logSink) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, &mcp.ClientOptions{LoggingMessageHandler: sink.handler}).
		Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: v})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Log messages reach the clients that asked for them: a run ended by kill_pane, to the caller
// and to another client that set its level; a tmux server that went away, to the clients of the
// older revisions that set a level. A client that set none, and a 2026-07-28 client whose
// request carried no logLevel, get none; one whose request carried one gets its call's.
func TestLogNotifications(t *testing.T) {
	tmx := testtmux.New(t)
	_, pane := tmx.NewSession("logs")
	tmx.WaitPrompt(pane)
	s, err := New(Options{SocketPath: tmx.Socket, Env: tmx.Env, Safety: policy.Destructive})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	var old, quiet, modern, modernQuiet logSink
	csOld := connectAt(t, s, "2025-11-25", &old)
	if err := csOld.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	connectAt(t, s, "2025-11-25", &quiet)
	csModern := connectAt(t, s, "2026-07-28", &modern)
	csModernQuiet := connectAt(t, s, "2026-07-28", &modernQuiet)
	if v := csModern.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %s", v)
	}

	// A run that started (its first line printed), then its pane killed by a 2026-07-28 client
	// that asks for warnings.
	tmx.SplitWindow(pane) // the server must outlive the pane
	res, err := csOld.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"pane_id": pane, "command": "echo started; sleep 60", "timeout": 3}})
	if err != nil || res.IsError || !strings.Contains(resultText(res), `"output":["started"]`) {
		t.Fatalf("run_command: %v %s", err, resultText(res))
	}
	res, err = csModern.CallTool(ctx, &mcp.CallToolParams{Name: "kill_pane", Arguments: map[string]any{"pane_id": pane},
		Meta: mcp.Meta{mcp.MetaKeyLogLevel: "warning"}})
	if err != nil || res.IsError {
		t.Fatalf("kill_pane: %v %v", err, res)
	}
	if m := modern.await(logRun, 5*time.Second); m == nil || m.Level != "warning" || !strings.Contains(m.Data.(string), pane) {
		t.Errorf("the caller (2026-07-28, logLevel warning) got %+v", m)
	}
	if m := old.await(logRun, 5*time.Second); m == nil || !strings.Contains(m.Data.(string), "pane_died") {
		t.Errorf("the client at level info got %+v", m)
	}

	// The server goes away while resources are watched.
	if _, err := csModernQuiet.ListResources(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := csOld.ListResources(ctx, nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // the topology watch takes its first look
	tmx.Tmux("kill-server")
	if m := old.await(logTmux, 10*time.Second); m == nil || m.Level != "warning" || !strings.Contains(m.Data.(string), "no longer running") {
		t.Errorf("the client at level info got %+v after kill-server", m)
	}
	time.Sleep(200 * time.Millisecond)
	for name, l := range map[string]*logSink{"no level set": &quiet, "2026-07-28 without logLevel": &modernQuiet, "2026-07-28": &modern} {
		l.mu.Lock()
		for _, m := range l.msgs {
			if m.Logger != logRun || name != "2026-07-28" {
				t.Errorf("%s: got %+v", name, m)
			}
		}
		l.mu.Unlock()
	}
}
