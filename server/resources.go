package server

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addResources registers the resource templates (built with the read tools).
func (s *Server) addResources() {}

func (s *Server) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error     { return nil }
func (s *Server) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error { return nil }

// complete answers completion/complete.
func (s *Server) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
}
