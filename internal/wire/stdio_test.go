package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawSession runs an MCP server over Transport on pipes and talks raw lines to it.
type rawSession struct {
	t    testing.TB
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

func serve(t testing.TB, maxLine int) *rawSession {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	type echoIn struct {
		S string `json:"s"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.S}}}, nil, nil
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &rawSession{t: t, in: inW, out: bufio.NewReader(outR), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { s.done <- srv.Run(ctx, &Transport{Reader: inR, Writer: outW, MaxLine: maxLine}) }()
	t.Cleanup(func() { cancel(); inW.Close(); outR.Close() })
	s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	s.recv()
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *rawSession) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatalf("writing %q: %v", line, err)
	}
}

// recv reads one reply line, within a deadline.
func (s *rawSession) recv() map[string]json.RawMessage {
	s.t.Helper()
	type lineErr struct {
		b   []byte
		err error
	}
	ch := make(chan lineErr, 1)
	go func() {
		b, err := s.out.ReadBytes('\n')
		ch <- lineErr{b, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			s.t.Fatalf("reading a reply: %v (server ended: %v)", r.err, s.ended())
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(r.b, &m); err != nil {
			s.t.Fatalf("reply %q is not JSON: %v", r.b, err)
		}
		return m
	case <-time.After(10 * time.Second):
		s.t.Fatalf("no reply in 10 s (server ended: %v)", s.ended())
	}
	return nil
}

func (s *rawSession) ended() any {
	select {
	case err := <-s.done:
		return err
	default:
		return false
	}
}

// echo checks the server still answers a tools/call.
func (s *rawSession) echo(id int, text string) {
	s.t.Helper()
	s.send(`{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"echo","arguments":{"s":"` + text + `"}}}`)
	r := s.recv()
	if string(r["id"]) != itoa(id) || !strings.Contains(string(r["result"]), text) {
		s.t.Fatalf("tools/call %d: %v", id, r)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestTransportSurvivesBadLines(t *testing.T) {
	s := serve(t, 4096)
	for i, c := range []struct {
		line string
		code int
		id   string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call"`, -32700, "null"},
		{`garbage`, -32700, "null"},
		{"\x00", -32700, "null"},
		{`{"jsonrpc":"1.0","id":2,"method":"ping"}`, -32600, "2"},
		{`{"id":3,"method":"ping"}`, -32600, "3"},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, -32600, "null"},
		{`[{"jsonrpc":"2.0","id":4,"method":"ping"}]`, -32600, "null"},
		{strings.Repeat("[", 10000) + strings.Repeat("]", 10000), -32600, "null"},
		{`{"jsonrpc":"2.0","id":5,"method":"ping","params":` + strings.Repeat("x", 5000) + `}`, -32600, "null"},
	} {
		s.send(c.line)
		r := s.recv()
		var e struct{ Code int }
		json.Unmarshal(r["error"], &e)
		if e.Code != c.code || string(r["id"]) != c.id {
			t.Errorf("line %d %.40q: reply %v; want code %d id %s", i, c.line, r, c.code, c.id)
		}
		s.echo(100+i, "alive")
	}
	// Blank lines and CRLF endings are fine; an unknown method is the SDK's to answer.
	s.send("")
	s.send(`{"jsonrpc":"2.0","id":6,"method":"ping"}` + "\r")
	if r := s.recv(); string(r["id"]) != "6" || r["error"] != nil {
		t.Errorf("ping: %v", r)
	}
	// Blanks around a message are not passed on: the SDK's reader takes them for trailing data
	// and ends the session.
	s.send("  \t" + `{"jsonrpc":"2.0","id":9,"method":"ping"}` + " \t ")
	if r := s.recv(); string(r["id"]) != "9" || r["error"] != nil {
		t.Errorf("ping among blanks: %v", r)
	}
	// A line longer than one read of the SDK's decoder reaches it whole.
	s.echo(10, strings.Repeat("y", 3000))
	s.send(`{"jsonrpc":"2.0","id":7,"method":"no/such"}`)
	if r := s.recv(); string(r["id"]) != "7" || r["error"] == nil {
		t.Errorf("unknown method: %v", r)
	}
	s.echo(8, "still")
}

// The stream's end ends the session cleanly.
func TestTransportEOF(t *testing.T) {
	s := serve(t, 0)
	s.in.Close()
	select {
	case err := <-s.done:
		if err != nil && !errors.Is(err, io.EOF) {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not end at EOF")
	}
}

func TestReadLine(t *testing.T) {
	r := bufio.NewReaderSize(strings.NewReader("ab\n"+strings.Repeat("x", 100)+"\ncd"), 16)
	for _, want := range []struct {
		line string
		err  error
	}{{"ab", nil}, {"", errTooLong}, {"cd", io.EOF}} {
		line, err := readLine(r, nil, 10)
		if string(line) != want.line || !errors.Is(err, want.err) {
			t.Fatalf("got %q %v, want %q %v", line, err, want.line, want.err)
		}
	}
}

// TestEncodeAsSDK: writeResponse writes what jsonrpc.EncodeMessage writes, byte for byte, and
// a newline, a small result copied beside its envelope and a large one not.
func TestEncodeAsSDK(t *testing.T) {
	result := func(v any) json.RawMessage {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		return json.RawMessage(strings.TrimSuffix(b.String(), "\n"))
	}
	str, _ := jsonrpc.MakeID("a<b>&\u2028\"c")
	num, _ := jsonrpc.MakeID(float64(42))
	long := strings.Repeat("line <1> of \"the\" history\n", 2000)
	msgs := []*jsonrpc.Response{
		{ID: num, Result: result(map[string]any{"content": []any{map[string]any{"type": "text", "text": "<&>\u2028 \"q\" \\ \n"}}})},
		{ID: str, Result: result([]int{1, 2})},
		{ID: str, Result: result(map[string]any{"content": []any{map[string]any{"type": "text", "text": long}}, "structuredContent": map[string]string{"content": long}})},
		{ID: num, Result: result(strings.Repeat("x", copyResult-2))}, // copyResult bytes with its quotes
	}
	for _, m := range msgs {
		want, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := (&lineWriter{w: &got}).writeResponse(m); err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want)+"\n" {
			t.Errorf("writeResponse(%.80s)\n got %.300s\nwant %.300s", m.Result, got.String(), want)
		}
	}
}

// BenchmarkEncodeResponse writes a response with a result of 2.4 MB (list_panes over 1,000
// panes: its JSON twice, as structured content and as text) as jsonrpc.EncodeMessage does and
// as writeResponse does.
func BenchmarkEncodeResponse(b *testing.B) {
	row := `{"pane_id":"%1","pane_index":0,"pane_width":120,"pane_current_command":"bash","pane_current_path":"/home/someone/src/project","pane_title":"host.example.org"},`
	text := "[" + strings.Repeat(row, 7000) + "{}]"
	quoted, _ := json.Marshal(text)
	res := json.RawMessage(`{"content":[{"type":"text","text":` + string(quoted) + `}],"structuredContent":` + text + `}`)
	id, _ := jsonrpc.MakeID(float64(3))
	msg := &jsonrpc.Response{ID: id, Result: res}
	b.Run("EncodeMessage", func(b *testing.B) {
		for b.Loop() {
			if _, err := jsonrpc.EncodeMessage(msg); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("writeResponse", func(b *testing.B) {
		w := &lineWriter{w: io.Discard}
		for b.Loop() {
			if err := w.writeResponse(msg); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkTransportCall is one tools/call round trip over Transport on pipes: the filter's
// vetting, the SDK's decoding and dispatch, the reply's encoding.
func BenchmarkTransportCall(b *testing.B) {
	s := serve(b, 0)
	for i := 0; b.Loop(); i++ {
		s.echo(1000+i, "x")
	}
}

// TestTransportSurvivesDecodeSeeds: whatever line comes (FuzzDecode's seeds: good messages,
// responses nobody asked for, bad ones), the session goes on and answers the next call.
func TestTransportSurvivesDecodeSeeds(t *testing.T) {
	s := serve(t, 0)
	for i, line := range decodeSeeds {
		if strings.ContainsAny(line, "\n") {
			continue
		}
		id := itoa(1000 + i)
		// Written from a goroutine: a pipe holds nothing, and the seed's reply (read below) may
		// have to leave before the server reads the ping.
		go io.WriteString(s.in, line+"\n"+`{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`+"\n")
		for { // the seed's own reply, if any, comes first
			if r := s.recv(); string(r["id"]) == id {
				break
			}
		}
	}
}
