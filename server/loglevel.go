package server

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// logLevels are the levels of MCP's logging/setLevel (RFC 5424's, lowest first).
var logLevels = []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// checkLogLevel refuses logging/setLevel with a level MCP does not define. The go-sdk (v1.8.0)
// stores any string as the session's level, answers success, and then treats the unknown
// level as debug.
func checkLogLevel(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "logging/setLevel" {
			var level mcp.LoggingLevel
			if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && p != nil {
				level = p.Level
			}
			if !slices.Contains(logLevels, level) {
				names := make([]string, len(logLevels))
				for i, l := range logLevels {
					names[i] = string(l)
				}
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
					Message: fmt.Sprintf("Invalid params: level %q is not an MCP logging level; use one of %s", truncate(string(level), 40), strings.Join(names, ", "))}
			}
		}
		return next(ctx, method, req)
	}
}
