package cli

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// Over HTTP too, tools/call params the go-sdk cannot decode are answered with a JSON-RPC
// -32602 error naming the member in words (the body of a 400, as every refused body), with the
// request's id, and the session goes on.
func TestHTTPMalformedParams(t *testing.T) {
	addr := startHTTP(t, defaultLimits)
	sid := initSession(t, addr)
	for body, says := range map[string]string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":5,"arguments":{}}}`: `"name" is a number (5)`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{}}}`:          `needs "name"`,
		`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":[1]}}`:           `"uri" is an array`,
	} {
		status, _, got := do(t, addr, req{session: sid, body: body})
		var reply struct {
			ID    json.RawMessage `json:"id"`
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(got), &reply); err != nil || status != http.StatusBadRequest || string(reply.ID) != "7" ||
			reply.Error.Code != -32602 || !strings.Contains(reply.Error.Message, says) || strings.Contains(reply.Error.Message, "unmarshal") {
			t.Errorf("%s: %d %s, want a -32602 error with id 7 saying %q", body, status, got, says)
		}
	}
	if code := ping(t, addr, sid); code != http.StatusOK {
		t.Errorf("ping after: %d", code)
	}
}
