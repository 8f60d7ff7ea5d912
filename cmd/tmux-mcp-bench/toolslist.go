package main

import (
	"encoding/json"
	"fmt"
)

// maxToolsList is the ceiling of the default tier's tools/list in bytes (half of the 114 KB it
// once was: a client puts all of it in an agent's context); server/toolslist_test.go enforces it.
const maxToolsList = 57_000

// toolsListRows measures the tools/list reply at each safety tier: its bytes as the server
// writes them (one JSON-RPC line, the newline not counted), which is what a client hands an
// agent's context.
func toolsListRows(bin string, tmx *benchTmux) ([]row, error) {
	var rows []row
	for _, tier := range []string{"readonly", "mutating", "destructive"} {
		c, err := startRawCmd(tmx.serverCmd(bin, "LIBTMUX_SAFETY="+tier))
		if err != nil {
			return nil, err
		}
		reply, err := c.request(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		c.close()
		if err != nil {
			return nil, fmt.Errorf("tools/list at the %s tier: %w", tier, err)
		}
		var res struct {
			Result struct{ Tools []json.RawMessage }
		}
		if err := json.Unmarshal(reply, &res); err != nil || len(res.Result.Tools) == 0 {
			return nil, fmt.Errorf("tools/list at the %s tier: %.200s", tier, reply)
		}
		r := row{what: fmt.Sprintf("tools/list size, %s tier (%d tools)", tier, len(res.Result.Tools)), value: fmt.Sprintf("%d bytes", len(reply))}
		if tier == "mutating" {
			r.what = fmt.Sprintf("tools/list size, mutating tier, the default (%d tools)", len(res.Result.Tools))
			r.target, r.met = fmt.Sprintf("≤ %d bytes (half of 114 KB)", maxToolsList), yesNo(len(reply) <= maxToolsList)
		}
		rows = append(rows, r)
	}
	return rows, nil
}
