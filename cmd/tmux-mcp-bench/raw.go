package main

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"time"
)

// timeRaw times list_sessions with a bare JSON-RPC client (newline-delimited JSON over the
// server's stdin and stdout, no SDK), which separates the server's cost from the go-sdk
// client's own.
func timeRaw(bin string, tmx *benchTmux, n int) (samples, error) {
	cmd := exec.Command(bin)
	cmd.Env = append(append([]string{}, tmx.env...), "LIBTMUX_SOCKET_PATH="+tmx.sock)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() { in.Close(); cmd.Wait() }()
	r := bufio.NewReader(out)
	call := func(line string) error {
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			return err
		}
		_, err := r.ReadBytes('\n')
		return err
	}
	if err := call(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"tmux-mcp-bench-raw","version":"1"}}}`); err != nil {
		return nil, err
	}
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	var s samples
	for i := 1; i <= n+warmup; i++ {
		start := time.Now()
		if err := call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"list_sessions","arguments":{}}}`, i)); err != nil {
			return nil, err
		}
		if i > warmup {
			s = append(s, time.Since(start))
		}
	}
	return s, nil
}
