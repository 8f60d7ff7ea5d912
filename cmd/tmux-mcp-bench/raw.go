package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"time"
)

// rawClient is a bare JSON-RPC client (newline-delimited JSON over the server's stdin and
// stdout, no SDK): timing list_sessions with it separates the server's cost from the go-sdk
// client's own.
type rawClient struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

func startRaw(bin string, tmx *benchTmux) (*rawClient, error) {
	return startRawCmd(tmx.serverCmd(bin))
}

func startRawCmd(cmd *exec.Cmd) (*rawClient, error) {
	in, out, err := startPiped(cmd)
	if err != nil {
		return nil, err
	}
	c := &rawClient{cmd: cmd, in: in, out: bufio.NewReader(out)}
	if err := c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"tmux-mcp-bench-raw","version":"1"}}}`); err != nil {
		c.close()
		return nil, err
	}
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// send writes one request line and reads one reply line.
func (c *rawClient) send(line string) error {
	_, err := c.request(line)
	return err
}

// request writes one request line and returns the reply line, without its newline.
func (c *rawClient) request(line string) ([]byte, error) {
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		return nil, err
	}
	reply, err := c.out.ReadBytes('\n')
	return bytes.TrimSuffix(reply, []byte("\n")), err
}

// callTool calls a tool without arguments once.
func (c *rawClient) callTool(name string) error { return c.callToolWith(name, `{}`) }

// callToolWith calls a tool once with args (a JSON object); a tool error (a short reply: it
// has no structured content) is an error.
func (c *rawClient) callToolWith(name, args string) error {
	c.id++
	reply, err := c.request(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, c.id, name, args))
	if err == nil && len(reply) < 4096 && (bytes.Contains(reply, []byte(`"isError":true`)) || !bytes.Contains(reply, []byte(`"result":`))) {
		err = fmt.Errorf("%s: %.300s", name, reply)
	}
	return err
}

func (c *rawClient) close() {
	c.in.Close()
	c.cmd.Wait()
}

// rawStartup starts cmd and times, with the bare client, its initialize reply and then its
// tools/list reply (sent right after the initialized notification), both from the start of
// the process: the server's start without the go-sdk client's own work on a 57 KB list.
func rawStartup(cmd *exec.Cmd) (initialized, listed time.Duration, err error) {
	start := time.Now()
	c, err := startRawCmd(cmd)
	if err != nil {
		return 0, 0, err
	}
	defer c.close()
	initialized = time.Since(start)
	reply, err := c.request(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if err != nil {
		return 0, 0, err
	}
	if !bytes.Contains(reply, []byte(`"tools":[`)) {
		return 0, 0, fmt.Errorf("tools/list: %.200s", reply)
	}
	return initialized, time.Since(start), nil
}
