package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/testtmux"
)

// rawServer is the binary driven by raw lines on stdin, replies read raw from stdout.
type rawServer struct {
	t       *testing.T
	cmd     *exec.Cmd
	in      io.WriteCloser
	replies chan string
	tmx     *testtmux.Server
}

func startRaw(t *testing.T) *rawServer {
	t.Helper()
	tmx := testtmux.New(t)
	cmd := exec.Command(binary)
	cmd.Env = append(append([]string{}, tmx.Env...), "LIBTMUX_SOCKET_PATH="+tmx.Socket)
	cmd.Stderr = &testWriter{t: t}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &rawServer{t: t, cmd: cmd, in: in, replies: make(chan string, 16), tmx: tmx}
	go func() {
		r := bufio.NewReader(out)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				close(s.replies)
				return
			}
			s.replies <- line
		}
	}()
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	s.recv()
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *rawServer) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatalf("writing to the server: %v", err)
	}
}

func (s *rawServer) recv() map[string]json.RawMessage {
	s.t.Helper()
	select {
	case line, ok := <-s.replies:
		if !ok {
			s.cmd.Wait()
			s.t.Fatalf("the server closed stdout (exit: %v)", s.cmd.ProcessState)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			s.t.Fatalf("reply %q is not JSON: %v", line, err)
		}
		return m
	case <-time.After(20 * time.Second):
		s.t.Fatal("no reply in 20 s")
	}
	return nil
}

// One malformed JSON-RPC line gets its JSON-RPC error and the server goes on serving: a normal
// tools/call answers after each.
func TestMalformedLinesKeepServing(t *testing.T) {
	s := startRaw(t)
	for i, c := range []struct {
		name, line string
		code       int
		id         string
	}{
		{"truncated", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_sessions"`, -32700, "null"},
		{"garbage", `not json at all`, -32700, "null"},
		{"NUL", "\x00", -32700, "null"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":2,"method":"tools/list"}`, -32600, "2"},
		{"no jsonrpc", `{"id":3,"method":"tools/list"}`, -32600, "3"},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, -32600, "null"},
		{"batch", `[{"jsonrpc":"2.0","id":4,"method":"tools/list"},{"jsonrpc":"2.0","id":5,"method":"ping"}]`, -32600, "null"},
		{"10000 levels", strings.Repeat("[", 10000) + strings.Repeat("]", 10000), -32600, "null"},
		{"deep arguments", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"list_sessions","arguments":` +
			strings.Repeat(`{"a":`, 5000) + "0" + strings.Repeat("}", 5000) + "}}", -32600, "6"},
		// Deeper than encoding/json decodes: the id is still read, by a scan of the top level.
		{"10000 levels of arguments", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_sessions","arguments":{"a":` +
			strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "}}}", -32600, "7"},
		{"200000 levels of objects", `{"jsonrpc":"2.0","id":"eight","method":"tools/call","params":{"name":"list_sessions","arguments":` +
			strings.Repeat(`{"a":`, 200000) + "0" + strings.Repeat("}", 200000) + "}}", -32600, `"eight"`},
	} {
		s.send(c.line)
		r := s.recv()
		var e struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		json.Unmarshal(r["error"], &e)
		if e.Code != c.code || string(r["id"]) != c.id || string(r["jsonrpc"]) != `"2.0"` {
			t.Errorf("%s: reply %v; want error %d with id %s", c.name, r, c.code, c.id)
		}
		id := 100 + i
		s.send(`{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"list_sessions","arguments":{}}}`)
		r = s.recv()
		if string(r["id"]) != itoa(id) || r["result"] == nil || strings.Contains(string(r["result"]), `"isError":true`) {
			t.Fatalf("after %s: list_sessions: %v", c.name, r)
		}
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
