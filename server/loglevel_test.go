package server

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
)

func TestSetLevelRefusesUnknownLevels(t *testing.T) {
	s, err := New(Options{SocketPath: filepath.Join(t.TempDir(), "none"), Safety: policy.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, level := range []mcp.LoggingLevel{"verbose", "", "DEBUG", "warn"} {
		err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: level})
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("level %q: %v; want invalid params", level, err)
		}
	}
	for _, level := range logLevels {
		if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: level}); err != nil {
			t.Errorf("level %q: %v", level, err)
		}
	}
}
