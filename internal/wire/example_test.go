package wire_test

import (
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/internal/wire"
)

func ExampleDecode() {
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"1.0","id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"`,
	} {
		msg, e := wire.Decode([]byte(line))
		if e != nil {
			fmt.Printf("%s\n", e.Reply())
			continue
		}
		fmt.Printf("%T\n", msg)
	}
	// Output:
	// *jsonrpc2.Request
	// {"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"Invalid Request: \"jsonrpc\" is \"1.0\"; this server speaks JSON-RPC 2.0: send \"jsonrpc\":\"2.0\""}}
	// {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the message ends before its JSON value does (39 bytes; truncated?); send one whole JSON-RPC 2.0 object"}}
}
