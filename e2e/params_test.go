package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestMalformedParams: every malformed params shape of the corpus (internal/wire/testdata)
// gets, over stdio, a -32602 error with the request's id that says in words what is wrong, and
// the server goes on; arguments that are not an object get each tool's own error, in words.
func TestMalformedParams(t *testing.T) {
	s := startRaw(t)
	f, err := os.Open("../internal/wire/testdata/malformed_params.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for id := 1; sc.Scan(); id++ {
		var c struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Says   string          `json:"says"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		line := `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"` + c.Method + `"`
		if strings.Contains(sc.Text(), `"params":`) {
			line += `,"params":` + string(c.Params)
		}
		s.send(line + "}")
		r := s.recv()
		var e struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		json.Unmarshal(r["error"], &e)
		if e.Code != -32602 || string(r["id"]) != itoa(id) || !strings.Contains(e.Message, c.Says) {
			t.Errorf("%s:\n got id %s %s\nwant -32602 saying %q", line, r["id"], r["error"], c.Says)
		}
		if w := goWords(e.Message); w != "" || strings.Contains(e.Message, "mcp.") {
			t.Errorf("%s: %q speaks Go (%q)", line, e.Message, w)
		}
	}

	// Every tool's arguments as something other than an object.
	s.send(`{"jsonrpc":"2.0","id":1000,"method":"tools/list"}`)
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	json.Unmarshal(s.recv()["result"], &list)
	if len(list.Tools) == 0 {
		t.Fatal("no tools listed")
	}
	id := 1001
	for _, tool := range list.Tools {
		for _, args := range []string{`"x"`, `[1]`, `5`, `true`} {
			line := `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"` + tool.Name + `","arguments":` + args + `}}`
			id++
			s.send(line)
			r := s.recv()
			msg := string(r["error"]) + string(r["result"])
			if !strings.Contains(string(r["result"]), `"isError":true`) && r["error"] == nil {
				t.Errorf("%s: accepted: %s", line, msg)
			}
			if !strings.Contains(msg, "not an object") {
				t.Errorf("%s: does not say the arguments are not an object: %.300s", line, msg)
			}
			if w := goWords(msg); w != "" || strings.Contains(msg, "mcp.") {
				t.Errorf("%s: %.300s speaks Go (%q)", line, msg, w)
			}
		}
	}
}
