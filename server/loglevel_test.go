package server

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
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

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("the client's pipe broke") }
func (failingReader) Close() error             { return nil }

type discardCloser struct{}

func (discardCloser) Write(p []byte) (int, error) { return len(p), nil }
func (discardCloser) Close() error                { return nil }

// The go-sdk's own errors reach Options.Logger instead of being discarded.
func TestSDKLogs(t *testing.T) {
	var buf bytes.Buffer
	s, err := New(Options{SocketPath: filepath.Join(t.TempDir(), "none"), Logger: WarningLog(&buf)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.MCP().Run(ctx, &mcp.IOTransport{Reader: failingReader{}, Writer: discardCloser{}})
	if !strings.Contains(buf.String(), "the client's pipe broke") || !strings.Contains(buf.String(), "level=ERROR") {
		t.Errorf("the SDK's log: %q", buf.String())
	}
}
