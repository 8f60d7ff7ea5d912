package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// bufferTools: private paste buffers. Only names in this server's namespace
// (libtmux_mcp_<32 hex>_<logical>) are accepted: other buffers can hold clipboard history, so
// no tool lists or reads them.
func bufferTools() []*Tool {
	return []*Tool{
		define(spec{Name: "load_buffer", Title: "Load tmux Buffer", Tier: policy.Mutating, Toolsets: []string{policy.Manage}, Ann: annSHELL,
			Description: "Store text in a new private tmux buffer for paste_buffer; deleted when this server exits.",
			Input:       edits(pattern("logical_name", logicalNamePattern))},
			loadBuffer),
		define(spec{Name: "paste_buffer", Title: "Paste tmux Buffer", Tier: policy.Mutating, Toolsets: []string{policy.Execute}, Ann: annSHELL,
			Description: "Paste a load_buffer buffer into a pane (bracketed by default); the buffer is kept.",
			Input:       edits(def("bracket", true))},
			pasteBuffer),
		define(spec{Name: "show_buffer", Title: "Show tmux Buffer", Tier: policy.ReadOnly, Ann: annRO,
			Description: "Read a load_buffer buffer (its tail beyond max_lines or 1 MB).",
			Input:       edits(def("max_lines", 500), minimum("max_lines", 1))},
			showBuffer),
		define(spec{Name: "delete_buffer", Title: "Delete tmux Buffer", Tier: policy.Mutating, Toolsets: []string{policy.Manage}, Ann: annMUT,
			Description: "Delete a load_buffer buffer."},
			deleteBuffer),
	}
}

const (
	logicalNamePattern = `^[A-Za-z0-9_.-]{1,64}$`
	bufferPrefix       = "libtmux_mcp_"
	maxBufferContent   = 4 << 20 // what load_buffer accepts
	maxBufferRead      = 16 << 20
	maxBufferResult    = 1_000_000 // bytes of content show_buffer returns
)

var (
	bufferNameRe  = lazyRegexp(`^libtmux_mcp_[0-9a-f]{32}_[A-Za-z0-9_.-]{1,64}$`)
	logicalNameRe = lazyRegexp(logicalNamePattern)
)

func checkBufferName(name string) error {
	if !bufferNameRe().MatchString(name) {
		return fail("Only buffers made by load_buffer can be used: pass the buffer_name it returned (libtmux_mcp_<32 hex>_<logical_name>).", "buffer_name %q is not a buffer of this server's namespace", truncate(name, 100))
	}
	return nil
}

// missingBuffer turns tmux's "no buffer" into a clear error.
func missingBuffer(err error, name string) error {
	var ce *tmux.CommandError
	if errors.As(err, &ce) && (strings.Contains(ce.Message, "no buffer") || strings.Contains(ce.Message, "unknown buffer")) {
		return fail("Load it again with load_buffer; buffers do not survive a tmux server restart or delete_buffer.", "buffer %s does not exist", name)
	}
	return err
}

// ---- load_buffer

type loadBufferIn struct {
	Content     string  `json:"content" jsonschema:"At most 4 MiB"`
	LogicalName *string `json:"logical_name,omitempty" jsonschema:"Name suffix; default buf"`
	Socket
}

type bufferRef struct {
	BufferName  string `json:"buffer_name"`
	LogicalName string `json:"logical_name"`
}

func loadBuffer(ctx context.Context, c *Call, in *loadBufferIn) (bufferRef, error) {
	if len(in.Content) > maxBufferContent {
		return bufferRef{}, fail("Split the text into buffers of at most 4 MiB.", "content is %d bytes long", len(in.Content))
	}
	logical := "buf"
	if in.LogicalName != nil {
		if !logicalNameRe().MatchString(*in.LogicalName) {
			return bufferRef{}, fail("Use 1 to 64 letters, digits, _ . or -.", "logical_name %q is not valid", truncate(*in.LogicalName, 80))
		}
		logical = *in.LogicalName
	}
	ts, err := c.tmuxFor(in.SocketName)
	if err != nil {
		return bufferRef{}, err
	}
	var id [16]byte
	rand.Read(id[:])
	name := bufferPrefix + hex.EncodeToString(id[:]) + "_" + logical
	// Never on a command line, whatever bytes it holds.
	if err := ts.LoadBuffer(ctx, name, []byte(in.Content)); err != nil {
		return bufferRef{}, err
	}
	c.srv.state.addBuffer(ts, name)
	return bufferRef{BufferName: name, LogicalName: logical}, nil
}

// ---- paste_buffer

type pasteBufferIn struct {
	BufferName string `json:"buffer_name"`
	PaneTarget
	Bracket bool `json:"bracket,omitempty"`
	ToRun
	Socket
}

type pasteBufferOut struct {
	Result string `json:"result"`
	Cursor string `json:"cursor" jsonschema:"taken before the paste: wait_for_text (or capture_since) with it sees everything the pane printed after it"`
}

func pasteBuffer(ctx context.Context, c *Call, in *pasteBufferIn) (pasteBufferOut, error) {
	if err := checkBufferName(in.BufferName); err != nil {
		return pasteBufferOut{}, err
	}
	t, err := c.pane(ctx, in.PaneTarget, in.SocketName)
	if err != nil {
		return pasteBufferOut{}, err
	}
	p := t.pane
	// The guards of the other input tools: a dead pane, this server's own, a pane a run holds
	// (the run's output would be pasted, and the pasted line typed into its shell).
	cur, err := c.typeInto(ctx, t, false, false, in.ToRunningCommand, "", func() error {
		if err := t.ts.Do(ctx, &tmux.PasteBuffer{Buffer: in.BufferName, Pane: p.PaneID, Bracket: in.Bracket}); err != nil {
			return missingBuffer(err, in.BufferName)
		}
		return nil
	})
	if err != nil {
		return pasteBufferOut{}, err
	}
	return pasteBufferOut{Result: "Buffer " + in.BufferName + " pasted into pane " + p.PaneID, Cursor: cur}, nil
}

// ---- show_buffer

type showBufferIn struct {
	BufferName string `json:"buffer_name"`
	MaxLines   *int   `json:"max_lines,omitempty" jsonschema:"null: no line limit"`
	Socket
}

type bufferContent struct {
	BufferName            string `json:"buffer_name"`
	Content               string `json:"content"`
	ContentTruncated      bool   `json:"content_truncated"`
	ContentTruncatedLines int    `json:"content_truncated_lines" jsonschema:"lines cut from the start"`
	ContentTruncatedBytes int64  `json:"content_truncated_bytes" jsonschema:"bytes cut from the start"`
}

func showBuffer(ctx context.Context, c *Call, in *showBufferIn) (bufferContent, error) {
	if err := checkBufferName(in.BufferName); err != nil {
		return bufferContent{}, err
	}
	if in.MaxLines != nil && *in.MaxLines < 1 {
		return bufferContent{}, fail("Pass a positive max_lines, or null for no line limit.", "max_lines must be at least 1")
	}
	ts, err := c.tmuxFor(in.SocketName)
	if err != nil {
		return bufferContent{}, err
	}
	raw, dropped, err := ts.SaveBuffer(ctx, in.BufferName, maxBufferRead)
	if err != nil {
		return bufferContent{}, missingBuffer(err, in.BufferName)
	}
	out := bufferContent{BufferName: in.BufferName}
	content, cutLines := tailText(string(raw), in.MaxLines)
	out.ContentTruncatedLines = cutLines
	out.ContentTruncatedBytes = dropped + int64(len(raw)-len(content))
	if len(content) > maxBufferResult {
		cut := len(content) - maxBufferResult
		for cut < len(content) && !isRuneStart(content[cut]) {
			cut++
		}
		out.ContentTruncatedLines += strings.Count(content[:cut], "\n")
		out.ContentTruncatedBytes += int64(cut)
		content = content[cut:]
	}
	out.Content = content
	out.ContentTruncated = out.ContentTruncatedBytes > 0
	return out, nil
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// tailText keeps the last max lines of s (a final newline ends the last line, it does not
// start another) and returns how many lines it cut.
func tailText(s string, max *int) (string, int) {
	if max == nil {
		return s, 0
	}
	body := strings.TrimSuffix(s, "\n")
	n := strings.Count(body, "\n") + 1
	if s == "" || n <= *max {
		return s, 0
	}
	cut := n - *max
	i := 0
	for k := 0; k < cut; k++ {
		i += strings.IndexByte(s[i:], '\n') + 1
	}
	return s[i:], cut
}

// ---- delete_buffer

type deleteBufferIn struct {
	BufferName string `json:"buffer_name"`
	Socket
}

func deleteBuffer(ctx context.Context, c *Call, in *deleteBufferIn) (resultOut, error) {
	if err := checkBufferName(in.BufferName); err != nil {
		return resultOut{}, err
	}
	ts, err := c.tmuxFor(in.SocketName)
	if err != nil {
		return resultOut{}, err
	}
	if err := ts.Do(ctx, &tmux.DeleteBuffer{Buffer: in.BufferName}); err != nil {
		return resultOut{}, missingBuffer(err, in.BufferName)
	}
	c.srv.state.removeBuffer(ts, in.BufferName)
	return resultOut{Result: "Buffer " + in.BufferName + " deleted"}, nil
}
