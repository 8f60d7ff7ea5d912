package wire

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The lines of the adversarial run that ended the server, and their like: each is refused with
// its code, and the id is echoed only when it could be read.
func TestDecodeRefuses(t *testing.T) {
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	for _, c := range []struct {
		name, line string
		code       int64
		id         string // "" for null
		says       string
	}{
		{"truncated", `{"jsonrpc":"2.0","id":1,"method":"ping"`, jsonrpc.CodeParseError, "", "truncated"},
		{"garbage", `hello`, jsonrpc.CodeParseError, "", `'h' at byte 1`},
		{"NUL", "\x00", jsonrpc.CodeParseError, "", `'\x00' at byte 1`},
		{"NUL inside", `{"jsonrpc":"2.0",` + "\x00" + `"id":1}`, jsonrpc.CodeParseError, "", "byte 18"},
		{"two values", `{"jsonrpc":"2.0","method":"ping"} {}`, jsonrpc.CodeParseError, "", "byte 35"},
		{"empty", ``, jsonrpc.CodeParseError, "", "empty"},
		{"version 1.0", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "7", `"1.0"`},
		{"version number", `{"jsonrpc":2,"id":"a","method":"ping"}`, jsonrpc.CodeInvalidRequest, `"a"`, "a number"},
		{"version missing", `{"id":3,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "3", "missing"},
		{"version key case", `{"JSONRPC":"2.0","id":3,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "3", "missing"},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, jsonrpc.CodeInvalidRequest, "", "not an object"},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, jsonrpc.CodeInvalidRequest, "", "not an array"},
		{"bool id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "", "not a boolean"},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "", "not null"},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "", "not 1.5"},
		{"huge id", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "", "2^53"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, jsonrpc.CodeInvalidRequest, "", "batches"},
		{"empty batch", `[]`, jsonrpc.CodeInvalidRequest, "", "batches"},
		{"string", `"ping"`, jsonrpc.CodeInvalidRequest, "", "not a string"},
		{"number method", `{"jsonrpc":"2.0","id":2,"method":5}`, jsonrpc.CodeInvalidRequest, "2", `"method" must be a string`},
		{"scalar params", `{"jsonrpc":"2.0","id":2,"method":"ping","params":"x"}`, jsonrpc.CodeInvalidRequest, "2", `"params" must be an object`},
		{"response without id", `{"jsonrpc":"2.0","result":{}}`, jsonrpc.CodeInvalidRequest, "", "response"},
		{"bad error object", `{"jsonrpc":"2.0","id":4,"error":{"code":"x","message":"m"}}`, jsonrpc.CodeInvalidRequest, "", `integer "code"`},
		{"deep array", deep, jsonrpc.CodeInvalidRequest, "", "deeper than 64"},
		{"deep params", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":` + strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100) + "}", jsonrpc.CodeInvalidRequest, "9", "deeper than 64"},
		// Deeper than encoding/json decodes (10,000 levels): the id is read by a scan of the top level.
		{"deep arguments", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "}}}", jsonrpc.CodeInvalidRequest, "1", "deeper than 64"},
		{"deep objects", `{"jsonrpc":"2.0","id":"r-\"1\"","method":"tools/call","params":` + strings.Repeat(`{"a":`, 200000) + "1" + strings.Repeat("}", 200000) + "}", jsonrpc.CodeInvalidRequest, `"r-\"1\""`, "deeper than 64"},
		{"deep operations", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"batch","arguments":{"operations":` + strings.Repeat(`[{"x":"]}",`, 50000) + "1" + strings.Repeat("}]", 50000) + "}}}", jsonrpc.CodeInvalidRequest, "12", "deeper than 64"},
		{"id after the nesting", `{"jsonrpc":"2.0","method":"tools/call","params":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `,"id":-3}`, jsonrpc.CodeInvalidRequest, "-3", "deeper than 64"},
		{"deep with spaces", "{ \"jsonrpc\" : \"2.0\" ,\n \"id\" : 5 , \"params\" : " + strings.Repeat("[ ", 20000) + strings.Repeat("] ", 20000) + "}", jsonrpc.CodeInvalidRequest, "5", "deeper than 64"},
		{"deep with unreadable id", `{"jsonrpc":"2.0","id":{"x":1},"params":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "}", jsonrpc.CodeInvalidRequest, "", "deeper than 64"},
		{"deep with null id", `{"jsonrpc":"2.0","id":null,"params":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "}", jsonrpc.CodeInvalidRequest, "", "deeper than 64"},
		{"deep and truncated", `{"jsonrpc":"2.0","id":7,"params":` + strings.Repeat("[", 20000), jsonrpc.CodeInvalidRequest, "7", "deeper than 64"},
		{"deep, id cut at the end", `{"jsonrpc":"2.0","params":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `,"id":12`, jsonrpc.CodeInvalidRequest, "", "deeper than 64"},
		{"deep, id spelt with escapes", `{"jsonrpc":"2.0","\u0069d":8,"params":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "}", jsonrpc.CodeInvalidRequest, "8", "deeper than 64"},
		{"deep, id given twice", `{"jsonrpc":"2.0","id":8,"params":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `,"id":null}`, jsonrpc.CodeInvalidRequest, "", "deeper than 64"},
		{"deep id key inside", `{"jsonrpc":"2.0","params":` + strings.Repeat(`{"id":4,"a":`, 20000) + "1" + strings.Repeat("}", 20000) + "}", jsonrpc.CodeInvalidRequest, "", "deeper than 64"},
	} {
		t.Run(c.name, func(t *testing.T) {
			msg, e := Decode([]byte(c.line))
			if e == nil {
				t.Fatalf("accepted as %#v", msg)
			}
			if e.Code != c.code || !strings.Contains(e.Message, c.says) || string(e.ID) != c.id {
				t.Fatalf("got code %d id %s %q; want code %d id %q, saying %q", e.Code, e.ID, e.Message, c.code, c.id, c.says)
			}
			var reply map[string]json.RawMessage
			var werr jsonrpc.Error
			if err := json.Unmarshal(e.Reply(), &reply); err != nil || string(reply["jsonrpc"]) != `"2.0"` || reply["id"] == nil ||
				json.Unmarshal(reply["error"], &werr) != nil || werr.Code != c.code {
				t.Fatalf("reply %s is not a JSON-RPC error with an id member (%v)", e.Reply(), err)
			}
			if c.id == "" && string(reply["id"]) != "null" {
				t.Fatalf("reply %s: want id null", e.Reply())
			}
		})
	}
}

// What the go-sdk takes, Decode takes, with the same result; a copy of the line is kept.
func TestDecodeAccepts(t *testing.T) {
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_sessions","arguments":{}}}`,
		` {"jsonrpc":"2.0","id":"x-1","method":"ping"}` + "\r\n",
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":-9007199254740992,"method":"ping","params":null}`,
		`{"jsonrpc":"2.0","id":5,"result":{"roots":[]}}`,
		`{"jsonrpc":"2.0","id":"s","error":{"code":-32601,"message":"no","data":{"x":1}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"vendor/by-position","params":[1,2]}`, // MCP methods take objects (TestMalformedParamsCorpus)
	} {
		buf := []byte(line)
		got, e := Decode(buf)
		if e != nil {
			t.Errorf("%s: refused: %s", line, e.Message)
			continue
		}
		want, err := jsonrpc.DecodeMessage(trim([]byte(line)))
		if err != nil {
			t.Fatalf("%s: the go-sdk refuses it: %v", line, err)
		}
		for i := range buf {
			buf[i] = 'x'
		}
		if !sameMessage(got, want) {
			t.Errorf("%s:\n got %#v\nwant %#v", line, got, want)
		}
	}
}

func TestCheckLeavesBatchesToTheSDK(t *testing.T) {
	if e := Check([]byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)); e != nil {
		t.Fatalf("batch refused: %s", e.Message)
	}
	if e := Check([]byte(strings.Repeat("[", 65) + strings.Repeat("]", 65))); e == nil || e.Code != jsonrpc.CodeInvalidRequest {
		t.Fatalf("deep batch: %v", e)
	}
	if e := Check([]byte(`{"jsonrpc":"1.0","id":1,"method":"ping"}`)); e == nil || string(e.ID) != "1" {
		t.Fatalf("bad version: %v", e)
	}
}

// sameMessage compares two decoded messages, treating an absent and an empty raw value alike.
func sameMessage(a, b jsonrpc.Message) bool {
	switch a := a.(type) {
	case *jsonrpc.Request:
		b, ok := b.(*jsonrpc.Request)
		return ok && a.ID == b.ID && a.Method == b.Method && bytes.Equal(a.Params, b.Params)
	case *jsonrpc.Response:
		b, ok := b.(*jsonrpc.Response)
		return ok && a.ID == b.ID && bytes.Equal(a.Result, b.Result) && reflect.DeepEqual(a.Error, b.Error)
	}
	return false
}

// Differential: whatever Decode accepts, the go-sdk's own decoder accepts too, with the same
// result, so the SDK never sees a message it would choke on; and Decode never panics.
// decodeSeeds are FuzzDecode's seeds; TestTransportSurvivesDecodeSeeds sends each to a session.
var decodeSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,{"b":null}]}}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`,
	`{"jsonrpc":"2.0","id":"a","result":null}`,
	`{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"m","data":null}}`,
	`{"jsonrpc":"2.0","id":2,"error":null,"result":5}`,
	`{"jsonrpc":"2.0","id":1e2,"method":"x"}`,
	`{"jsonrpc":"2.0","id":"\u00e9\ud800","method":"\u0000"}`,
	`{"jsonrpc":"2.0","method":"a","method":"b","jsonrpc":"1.0"}`,
	`{"jsonrpc":"2.0","Method":"a","id":1}`,
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
	`[1]`, `"x"`, `{`, "\x00",
}

func FuzzDecode(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, e := Decode(b)
		if e != nil {
			switch e.Code {
			case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest:
			case jsonrpc.CodeInvalidParams:
				// Refused params must be a request of a method whose params are vetted.
				req, ok := mustRequest(t, b)
				if _, vetted := paramsOf[req.Method]; !ok || !vetted {
					t.Fatalf("%q refused as invalid params, but it is no vetted request", b)
				}
			default:
				t.Fatalf("code %d", e.Code)
			}
			if !json.Valid(e.Reply()) {
				t.Fatalf("reply %q is not JSON", e.Reply())
			}
			return
		}
		want, err := jsonrpc.DecodeMessage(trim(b))
		if err != nil {
			t.Fatalf("Decode accepts %q, the go-sdk refuses it: %v", b, err)
		}
		if !sameMessage(got, want) {
			t.Fatalf("%q:\n got %#v\nwant %#v", b, got, want)
		}
	})
}

// mustRequest decodes b with the go-sdk as the request it must be.
func mustRequest(t *testing.T, b []byte) (*jsonrpc.Request, bool) {
	t.Helper()
	m, err := jsonrpc.DecodeMessage(trim(b))
	if err != nil {
		return nil, false
	}
	req, ok := m.(*jsonrpc.Request)
	return req, ok
}
