package wire

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// paramsCase is one line of testdata/malformed_params.jsonl: a request's method and params
// (absent when Params is nil) and what the answer must say.
type paramsCase struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Says   string          `json:"says"`
}

// Line is the request as a JSON-RPC line with id.
func (c paramsCase) Line(id int) string {
	b, _ := json.Marshal(c.Method)
	line := `{"jsonrpc":"2.0","id":` + strings.TrimSpace(string(mustJSON(id))) + `,"method":` + string(b)
	if c.Params != nil {
		line += `,"params":` + string(c.Params)
	}
	return line + "}"
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

// goWords are what encoding/json and the SDK's messages say that no client should read.
var goWords = []string{"unmarshal", "Go struct", "Go value", "mcp.", "json:", "of type", "map[", "interface", "float64", "reflect"}

func readParamsCorpus(t *testing.T) []paramsCase {
	t.Helper()
	f, err := os.Open("testdata/malformed_params.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []paramsCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c paramsCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", sc.Text(), err)
		}
		if string(c.Params) == "null" && !strings.Contains(sc.Text(), `"params":null`) {
			c.Params = nil
		}
		cases = append(cases, c)
	}
	return cases
}

// Every malformed params shape of the corpus is refused with -32602 and the request's id, in
// words: what is wrong, with no Go type or decoder message.
func TestMalformedParamsCorpus(t *testing.T) {
	for i, c := range readParamsCorpus(t) {
		line := c.Line(i + 1)
		msg, e := Decode([]byte(line))
		if e == nil {
			t.Errorf("%s: accepted as %#v", line, msg)
			continue
		}
		if e.Code != jsonrpc.CodeInvalidParams || string(e.ID) != string(mustJSON(i+1)) || !strings.Contains(e.Message, c.Says) {
			t.Errorf("%s:\n got %d id %s %q\nwant -32602 saying %q", line, e.Code, e.ID, e.Message, c.Says)
		}
		for _, w := range goWords {
			if strings.Contains(e.Message, w) {
				t.Errorf("%s: %q speaks Go (%q)", line, e.Message, w)
			}
		}
	}
	// What is well formed passes, optional params left out included.
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":"not an object: the tool says so"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":null,"_meta":{"progressToken":"t"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`,
		`{"jsonrpc":"2.0","id":1,"method":"vendor/thing","params":[1]}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
	} {
		if _, e := Decode([]byte(line)); e != nil {
			t.Errorf("%s: refused: %s", line, e.Message)
		}
	}
}
