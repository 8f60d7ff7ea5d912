package server

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Elicit asks the person at the client for input: a form (p.Mode "" or "form", with
// p.RequestedSchema) or a page to visit (p.Mode "url", with p.URL and p.ElicitationID). key
// names the question within the call (e.g. "confirm"); p.Message says what is asked and why.
// It returns the client's answer: Action "accept" (Content holds a form's values), "decline"
// or "cancel".
//
// On 2026-07-28 and later a server may not send elicitation/create: the question goes back as
// the call's input_required result (the go-sdk's multi-round-trip input requests) and the
// client calls the tool again with the answer. Elicit then returns errInputRequired, which the
// handler returns as it returns any error (Call.result turns it into that result), and the
// handler runs again from the start, where Elicit finds the answer. So a tool asks before it
// does anything that must not happen twice. Earlier answers of the call ride in the signed
// request state, so a tool may ask several questions one after the other.
//
// Before 2026-07-28 it sends elicitation/create itself, within the call, and waits for the
// answer (over stdio and HTTP sessions alike): the go-sdk maps input requests to that for
// older clients too, but runs the handler again once only, so a tool asking twice would hand
// an older client a result it cannot read.
func (c *Call) Elicit(ctx context.Context, key string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	if err := c.canElicit(p); err != nil {
		return nil, err
	}
	if c.req.ProtocolVersion() < "2026-07-28" {
		res, err := c.req.Session.Elicit(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("asking the user through the client: %w", err)
		}
		return res, nil
	}
	st := c.elicitState()
	if a, ok := st.Answers[key]; ok {
		var res mcp.ElicitResult
		if err := json.Unmarshal(a, &res); err != nil {
			return nil, fmt.Errorf("the client's answer to %q: %w", key, err)
		}
		return &res, nil
	}
	st.Asked = key
	for k, v := range c.notes {
		if st.Notes == nil {
			st.Notes = map[string]string{}
		}
		st.Notes[k] = v
	}
	return nil, &inputRequired{key: key, params: p, state: c.srv.elicitKeys.sign(st)}
}

// canElicit refuses, in words, what the client cannot ask its user.
func (c *Call) canElicit(p *mcp.ElicitParams) error {
	const how = "Do it another way (ask the user in your reply), or use a client that can ask its user (MCP elicitation)."
	switch {
	case c.req == nil || c.req.Session == nil:
		return fail(how, "%s needs to ask the user, and an in-process call has no client to ask", c.Tool.Name)
	case c.req.Params == nil || c.req.Params.Name != c.Tool.Name:
		return fail("Call "+c.Tool.Name+" on its own, not in a batch.", "%s needs to ask the user, which it cannot do within a batch", c.Tool.Name)
	}
	caps := c.req.ClientCapabilities()
	url := p.Mode == "url"
	switch {
	case caps == nil || caps.Elicitation == nil:
		return fail(how, "%s needs to ask the user, and this client declared no elicitation capability", c.Tool.Name)
	case url && caps.Elicitation.URL == nil:
		return fail(how, "%s needs the user to visit a page, and this client cannot open one (it declared no URL-mode elicitation)", c.Tool.Name)
	case !url && caps.Elicitation.Form == nil && caps.Elicitation.URL != nil:
		return fail(how, "%s needs the user to fill in a form, and this client declared URL-mode elicitation only", c.Tool.Name)
	}
	return nil
}

// inputRequired ends a handler that asked a question on 2026-07-28: Call.result answers the
// call with it (inputResult).
type inputRequired struct {
	key    string
	params *mcp.ElicitParams
	state  string
}

func (e *inputRequired) Error() string { return "the call waits for the user's answer to " + e.key }

// inputResult is the input_required result of a call that asked a question; the go-sdk sets
// its resultType.
func inputResult(err error) *mcp.CallToolResult {
	var in *inputRequired
	if !errors.As(err, &in) {
		return nil
	}
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{in.key: in.params}, RequestState: in.state}
}

// elicitState is what a call's request state carries from one round to the next.
type elicitState struct {
	Tool    string                     `json:"t"`
	Args    []byte                     `json:"a"` // SHA-256 of the arguments
	Expires int64                      `json:"e"` // Unix seconds
	Asked   string                     `json:"q,omitempty"`
	Answers map[string]json.RawMessage `json:"r,omitempty"`
	// Notes are what a handler keeps for its next round (Call.keep): a secret page's id.
	Notes map[string]string `json:"n,omitempty"`
}

// keep remembers value under key for the call's next round on 2026-07-28 (it rides, signed,
// in the request state of the question asked next); recall reads it there. Before 2026-07-28
// a call has one round, and recall finds nothing.
func (c *Call) keep(key, value string) {
	if c.notes == nil {
		c.notes = map[string]string{}
	}
	c.notes[key] = value
}

// recall is what an earlier round of this call kept under key (keep); "" when none.
func (c *Call) recall(key string) string {
	if c.req == nil || c.req.Params == nil || c.req.Params.RequestState == "" || c.req.ProtocolVersion() < "2026-07-28" {
		return ""
	}
	return c.elicitState().Notes[key]
}

// elicitTTL bounds how long a question waits for its answer.
const elicitTTL = 15 * time.Minute

// elicitState is the call's state so far: the answers of earlier rounds, and this round's
// answer to the question asked last, when the client sent a request state this server signed
// for this tool and these arguments. Anything else starts afresh (the question is asked again).
func (c *Call) elicitState() elicitState {
	args := sha256.Sum256(c.req.Params.Arguments)
	fresh := elicitState{Tool: c.Tool.Name, Args: args[:], Answers: map[string]json.RawMessage{}}
	st, ok := c.srv.elicitKeys.verify(c.req.Params.RequestState)
	if !ok || st.Tool != c.Tool.Name || !hmac.Equal(st.Args, args[:]) || time.Now().Unix() > st.Expires {
		return fresh
	}
	if st.Answers == nil {
		st.Answers = map[string]json.RawMessage{}
	}
	if r, ok := c.req.Params.InputResponses[st.Asked].(*mcp.ElicitResult); ok && st.Asked != "" {
		if b, err := json.Marshal(r); err == nil {
			st.Answers[st.Asked] = b
		}
	}
	st.Asked = ""
	return st
}

// stateKeys signs request states: the client echoes them back, and must not forge the answers
// of earlier rounds ("servers must sign and verify this value").
type stateKeys struct{ key []byte }

func newStateKeys() stateKeys {
	k := make([]byte, 32)
	rand.Read(k)
	return stateKeys{key: k}
}

func (k stateKeys) mac(b []byte) []byte {
	m := hmac.New(sha256.New, k.key)
	m.Write(b)
	return m.Sum(nil)
}

func (k stateKeys) sign(st elicitState) string {
	st.Expires = time.Now().Add(elicitTTL).Unix()
	b, _ := json.Marshal(st)
	enc := base64.RawURLEncoding
	return enc.EncodeToString(b) + "." + enc.EncodeToString(k.mac(b))
}

func (k stateKeys) verify(s string) (elicitState, bool) {
	var st elicitState
	body, sig, ok := strings.Cut(s, ".")
	if !ok {
		return st, false
	}
	enc := base64.RawURLEncoding
	b, err1 := enc.DecodeString(body)
	m, err2 := enc.DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(m, k.mac(b)) || json.Unmarshal(b, &st) != nil {
		return elicitState{}, false
	}
	return st, true
}
