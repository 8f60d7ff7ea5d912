package server

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fixedListTTL is how long a client may keep the lists that are fixed for the life of the
// process (tools, prompts, resource templates, server/discover): the tier, allow list and
// hosts are read at start. Not longer, because over HTTP a client does not see the process
// restart with other options.
const fixedListTTL = 10 * time.Minute

// setCacheable decides the cache fields (2026-07-28's ttlMs and cacheScope) of the results the
// go-sdk builds (ServerOptions.SetCacheable). What is fixed at start is public and may be kept
// for fixedListTTL; what shows a person's terminals (resources/read; resources/list, which
// listResources answers itself) is private, and stale at once: tmux changes under it.
func setCacheable(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
	switch req.(type) {
	case *mcp.ListToolsRequest, *mcp.ListPromptsRequest, *mcp.ListResourceTemplatesRequest, *mcp.DiscoverRequest:
		c.CacheScope, c.TTLMs = "public", int(fixedListTTL/time.Millisecond)
	default:
		c.CacheScope, c.TTLMs = "private", 0
	}
}

// privateLive is the cache fields of a listing of live tmux state.
var privateLive = mcp.Cacheable{CacheScope: "private"}
