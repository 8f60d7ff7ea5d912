// Package wire vets JSON-RPC messages before the go-sdk reads them: a message that cannot be
// served gets the JSON-RPC error it deserves (-32700 parse error, -32600 invalid request, -32602
// invalid params) instead of ending the session (go-sdk v1.8.0, go-sdk#1209). Transport is the
// SDK's own stdio transport with that filter in front; the HTTP server vets request bodies with
// Check.
package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// MaxDepth bounds the nesting of a message's arrays and objects. MCP messages nest a handful of
// levels (a batch tool's arguments, the deepest, about eight); the bound is checked in one pass
// before anything is decoded, so a deep message costs neither decoder stack nor values.
const MaxDepth = 64

// Error is the JSON-RPC error reply to a message that cannot be served.
type Error struct {
	ID      json.RawMessage // the message's id when it could be read; nil: null
	Code    int64
	Message string
}

func (e *Error) Error() string { return e.Message }

// Reply encodes e as a JSON-RPC response, without a newline. Unlike jsonrpc.EncodeMessage it
// writes "id":null, which JSON-RPC requires when the id could not be read.
func (e *Error) Reply() []byte {
	id := e.ID
	if id == nil {
		id = json.RawMessage("null")
	}
	type wireErr struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireErr         `json:"error"`
	}{"2.0", id, wireErr{e.Code, e.Message}})
	return b
}

func parseError(format string, args ...any) *Error {
	return &Error{Code: jsonrpc.CodeParseError, Message: "Parse error: " + fmt.Sprintf(format, args...)}
}

func invalid(id json.RawMessage, format string, args ...any) *Error {
	return &Error{ID: id, Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: " + fmt.Sprintf(format, args...)}
}

// Check vets one HTTP request body: nil if the go-sdk may have it. A batch (an array) is left
// to the go-sdk's streamable handler, which takes batches from clients of protocols before
// 2025-06-18 and answers what it refuses with a 400 that ends nothing.
func Check(b []byte) *Error {
	b = trim(b)
	if e := vetJSON(b); e != nil {
		return e
	}
	if b[0] == '[' {
		return nil
	}
	_, e := decodeObject(b)
	return e
}

// Decode vets one message and decodes it as jsonrpc.DecodeMessage would (the fuzz test holds
// the two to the same result), or returns the error to answer it with.
func Decode(b []byte) (jsonrpc.Message, *Error) {
	b = trim(b)
	if e := vetJSON(b); e != nil {
		return nil, e
	}
	if b[0] == '[' {
		return nil, invalid(nil, "JSON-RPC batches (arrays of messages) are not supported (MCP dropped them in protocol 2025-06-18); send each message on its own line")
	}
	return decodeObject(b)
}

// vetJSON checks that b is one JSON value of bounded depth.
func vetJSON(b []byte) *Error {
	if len(b) == 0 {
		return parseError("the message is empty; send one JSON-RPC 2.0 object")
	}
	if depth(b) > MaxDepth {
		return invalid(readableID(b), "the message nests arrays and objects deeper than %d levels", MaxDepth)
	}
	if json.Valid(b) {
		return nil
	}
	// Invalid, so not on the fast path: decode again for where and why.
	dec := json.NewDecoder(bytes.NewReader(b))
	err := dec.Decode(new(json.RawMessage))
	at := dec.InputOffset()
	var se *json.SyntaxError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return parseError("the message ends before its JSON value does (%d bytes; truncated?); send one whole JSON-RPC 2.0 object", len(b))
	case errors.As(err, &se):
		at = max(se.Offset-1, 0)
	case err == nil:
		for at < int64(len(b)) && bytes.IndexByte([]byte(" \t\r\n"), b[at]) >= 0 {
			at++
		}
	}
	if at >= int64(len(b)) {
		return parseError("the message is not JSON; send one JSON-RPC 2.0 object")
	}
	return parseError("the message is not JSON: unexpected %s at byte %d of %d; send one JSON-RPC 2.0 object", strconv.QuoteRune(rune(b[at])), at+1, len(b))
}

// decodeObject decodes a valid JSON value that should be one JSON-RPC message.
func decodeObject(b []byte) (jsonrpc.Message, *Error) {
	if b[0] != '{' {
		return nil, invalid(nil, "a JSON-RPC message is a JSON object, not %s", kind(b))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, invalid(nil, "the message is not a JSON object")
	}
	raw, hasID := m["id"]
	id, idErr := requestID(raw, hasID)
	var echo json.RawMessage
	if idErr == "" && hasID {
		echo = raw
	}
	if e := checkVersion(m["jsonrpc"], echo); e != nil {
		return nil, e
	}
	if idErr != "" {
		return nil, invalid(nil, "%s", idErr)
	}
	if rawMethod, ok := m["method"]; ok {
		var method string
		if json.Unmarshal(rawMethod, &method) != nil {
			return nil, invalid(echo, `"method" must be a string, not %s`, kind(rawMethod))
		}
		params, ok := m["params"]
		if ok && params[0] != '{' && params[0] != '[' && string(params) != "null" {
			return nil, invalid(echo, `"params" must be an object, not %s`, kind(params))
		}
		if hasID {
			if e := checkParams(method, params, echo); e != nil {
				return nil, e
			}
		}
		return &jsonrpc.Request{ID: id, Method: method, Params: params}, nil
	}
	if !id.IsValid() {
		return nil, invalid(nil, `a message without "method" is a response, and needs the "id" of the request it answers`)
	}
	return decodeResponse(id, m)
}

func checkVersion(raw, echo json.RawMessage) *Error {
	var v string
	switch {
	case raw == nil:
		return invalid(echo, `"jsonrpc":"2.0" is missing; every JSON-RPC 2.0 message carries it`)
	case json.Unmarshal(raw, &v) != nil:
		return invalid(echo, `"jsonrpc" is %s; send "jsonrpc":"2.0"`, kind(raw))
	case v != "2.0":
		return invalid(echo, `"jsonrpc" is %s; this server speaks JSON-RPC 2.0: send "jsonrpc":"2.0"`, shorten(raw))
	}
	return nil
}

// maxExactID is the largest integer id a float64 holds exactly: the go-sdk decodes numeric ids
// as float64, so a larger one would come back altered in the reply.
const maxExactID = 1 << 53

// requestID reads an id: a string, an integer, or absent (a notification). It returns what is
// wrong with it otherwise.
func requestID(raw json.RawMessage, present bool) (jsonrpc.ID, string) {
	if !present {
		return jsonrpc.ID{}, ""
	}
	const want = `"id" must be a string or an integer`
	switch raw[0] {
	case '"':
		var s string
		json.Unmarshal(raw, &s)
		id, _ := jsonrpc.MakeID(s)
		return id, ""
	case 'n':
		return jsonrpc.ID{}, want + `, not null (leave "id" out for a notification)`
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || n > maxExactID || n < -maxExactID {
			return jsonrpc.ID{}, fmt.Sprintf("%s within ±2^53, not %s", want, shorten(raw))
		}
		id, _ := jsonrpc.MakeID(float64(n))
		return id, ""
	}
	return jsonrpc.ID{}, want + ", not " + kind(raw)
}

func decodeResponse(id jsonrpc.ID, m map[string]json.RawMessage) (jsonrpc.Message, *Error) {
	resp := &jsonrpc.Response{ID: id, Result: m["result"]}
	if raw, ok := m["error"]; ok && string(raw) != "null" {
		var f map[string]json.RawMessage
		werr := &jsonrpc.Error{}
		if json.Unmarshal(raw, &f) != nil || !decodeIf(f["code"], &werr.Code) || !decodeIf(f["message"], &werr.Message) {
			return nil, invalid(nil, `the "error" of a response must be an object with an integer "code" and a string "message"`)
		}
		werr.Data = f["data"]
		resp.Error = werr
	}
	return resp, nil
}

// decodeIf decodes raw into v unless it is absent.
func decodeIf(raw json.RawMessage, v any) bool { return raw == nil || json.Unmarshal(raw, v) == nil }

// readableID returns the top-level id of a message that will be refused, so that the reply
// reaches the request waiting for it, or nil. It scans the top-level object's members without
// decoding their values (a value nested past encoding/json's own limit of 10,000 levels is
// skipped by counting brackets), so a message refused for its depth is still answered with its
// id. It reads as encoding/json would (keys unescaped, the last "id" wins) and stops at the
// first thing that is not a member: an id read before that point is the answer.
func readableID(b []byte) json.RawMessage {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil
	}
	var id json.RawMessage
	for i++; ; {
		i = skipSpace(b, i)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
		if i >= len(b) || b[i] != '"' {
			return id
		}
		keyEnd := stringEnd(b, i)
		if keyEnd < 0 {
			return id
		}
		key := b[i:keyEnd]
		if i = skipSpace(b, keyEnd); i >= len(b) || b[i] != ':' {
			return id
		}
		i = skipSpace(b, i+1)
		valEnd := valueEnd(b, i)
		if valEnd < 0 {
			return id
		}
		var name string
		if json.Unmarshal(key, &name) == nil && name == "id" {
			id = nil
			raw := json.RawMessage(b[i:valEnd])
			if _, bad := requestID(raw, true); bad == "" && json.Valid(raw) {
				id = raw
			}
		}
		i = valEnd
	}
}

// skipSpace returns the index of the first byte at or after i that is not JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// stringEnd returns the index just past the JSON string that starts at b[i], or -1.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// valueEnd returns the index just past the JSON value that starts at b[i], or -1 when the
// message ends first. An array or object is skipped by counting its brackets outside strings.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		d := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				if j = stringEnd(b, j); j < 0 {
					return -1
				}
				j--
			case '{', '[':
				d++
			case '}', ']':
				if d--; d == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	// A scalar ends where a delimiter starts; one cut by the end of the message may be cut short.
	for j := i; j < len(b); j++ {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return j
		}
	}
	return -1
}

// depth is the deepest nesting of arrays and objects in b, outside strings.
func depth(b []byte) int {
	d, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			deepest = max(deepest, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return deepest
}

// trim removes JSON whitespace around a message.
func trim(b []byte) []byte { return bytes.Trim(b, " \t\r\n") }

// kind names the JSON type of a valid value.
func kind(v json.RawMessage) string {
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// shorten quotes a value for a message, cut to 40 bytes.
func shorten(v json.RawMessage) string {
	if len(v) > 40 {
		return string(v[:40]) + "…"
	}
	return string(v)
}
