package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/format"
)

// readTools: snapshot_pane, capture_pane, capture_since, search_panes, display_message,
// find_pane_by_position.
func readTools() []*Tool {
	return []*Tool{
		define(seeded(spec{Name: "snapshot_pane", Title: "Snapshot tmux Pane", Tier: policy.ReadOnly, Ann: annSEED}),
			snapshotPane),
		define(spec{Name: "capture_pane", Title: "Capture tmux Pane", Tier: policy.ReadOnly, Ann: annRO,
			Description: "Read a pane's text: the screen, or lines start to end (negative: scrollback), newest max_lines kept. Only new text: capture_since; cursor and mode: snapshot_pane.",
			Input:       edits(def("max_lines", 500), minimum("max_lines", 1), def("join_wrapped", false), def("escape_sequences", false))},
			capturePane),
		define(spec{Name: "capture_since", Title: "Capture New tmux Pane Output", Tier: policy.ReadOnly, Ann: annRO,
			Description: "Read what a pane printed since cursor, and a new cursor (no cursor: the screen and a first one). wait_ms > 0 waits for news.",
			Input:       edits(def("max_lines", 500), minimum("max_lines", 1), def("max_bytes", 128000), minimum("max_bytes", 1), def("wait_ms", 0), minimum("wait_ms", 0))},
			captureSince),
		define(spec{Name: "search_panes", Title: "Search tmux Panes", Tier: policy.ReadOnly, Ann: annRO,
			Description: "Search panes (all, or a session's) for pattern (literal, or RE2 with regex; case-insensitive unless match_case) in the screen and last 2000 lines; line_numbers as capture_pane counts.",
			Input:       edits(def("regex", false), def("match_case", false), def("max_matched_lines_per_pane", 50), minimum("max_matched_lines_per_pane", 1), def("limit", 500), minimum("limit", 1), def("offset", 0), minimum("offset", 0))},
			searchPanes),
		define(spec{Name: "display_message", Title: "Expand a tmux Format", Tier: policy.ReadOnly, Ann: annRO,
			Description: "Expand a tmux format against a pane, e.g. '#{cursor_x}', for fields no tool reports. No #(...), E:, T:."},
			displayMessage),
		define(spec{Name: "find_pane_by_position", Title: "Find tmux Pane by Position", Tier: policy.ReadOnly, Ann: annRO,
			Description: "Return the pane in a corner of a window.",
			Input:       edits(enum("corner", "top-left", "top-right", "bottom-left", "bottom-right"))},
			findPaneByPosition),
	}
}

// ---- shared helpers

// maxLinesArg checks a nullable max_lines (null means no limit).
func maxLinesArg(p *int) error {
	if p != nil && *p < 1 {
		return fail("Pass a positive max_lines, or null for every line.", "max_lines must be at least 1 (got %d)", *p)
	}
	return nil
}

// trimBlankTail drops the empty lines at the end of a capture (the unused rows of the screen).
func trimBlankTail(lines []string) []string {
	n := len(lines)
	for n > 0 && strings.TrimRight(lines[n-1], " ") == "" {
		n--
	}
	return lines[:n]
}

// tailLines keeps the last max lines (all when max is nil) and says how many it dropped.
func tailLines(lines []string, max *int) ([]string, int) {
	if max == nil || len(lines) <= *max {
		return lines, 0
	}
	return lines[len(lines)-*max:], len(lines) - *max
}

// screenLines captures the visible screen of a pane, without its trailing blank rows.
func screenLines(ctx context.Context, ts *tmux.Server, pane string) ([]string, error) {
	cp := &tmux.Capture{Pane: pane}
	if err := ts.Do(ctx, cp); err != nil {
		return nil, err
	}
	return trimBlankTail(cp.Lines), nil
}

// ---- snapshot_pane (seed 002)

type snapshotIn struct {
	MaxLines *int `json:"max_lines"`
	PaneTarget
	Socket
}

// PaneSnapshot is a pane's metadata, screen, cursor and mode read at one instant.
type PaneSnapshot struct {
	PaneInfo
	Content               string  `json:"content"`
	ContentTruncated      bool    `json:"content_truncated"`
	ContentTruncatedLines int     `json:"content_truncated_lines"`
	CursorX               int     `json:"cursor_x"`
	CursorY               int     `json:"cursor_y"`
	PaneMode              *string `json:"pane_mode"`       // e.g. "copy-mode"; null outside a mode
	ScrollPosition        *int    `json:"scroll_position"` // lines scrolled back in copy mode; null otherwise
	HistorySize           int     `json:"history_size"`
	AlternateOn           bool    `json:"alternate_on"`
}

func snapshotPane(ctx context.Context, c *Call, in *snapshotIn) (PaneSnapshot, error) {
	if err := maxLinesArg(in.MaxLines); err != nil {
		return PaneSnapshot{}, err
	}
	// One command list: the record, the screen state and the content describe one instant
	// (and, given the pane's id, the read that resolves it).
	var rec *tmux.PaneRecord
	var st *tmux.Screen
	var cp *tmux.Capture
	t, err := c.paneWith(ctx, in.PaneTarget, in.SocketName, idOnly|readClients, func(id string) []tmux.Op {
		rec, st, cp = &tmux.PaneRecord{Pane: id}, &tmux.Screen{Pane: id}, &tmux.Capture{Pane: id}
		return []tmux.Op{rec, st, cp}
	})
	if err != nil {
		return PaneSnapshot{}, err
	}
	p := rec.Record
	lines, dropped := tailLines(trimBlankTail(cp.Lines), in.MaxLines)
	snap := PaneSnapshot{
		PaneInfo:              c.paneInfo(ctx, t.ts, t.snap, p),
		Content:               strings.Join(lines, "\n"),
		ContentTruncated:      dropped > 0,
		ContentTruncatedLines: dropped,
		CursorX:               st.CursorX,
		CursorY:               st.CursorY,
		HistorySize:           st.HistorySize,
		AlternateOn:           st.AlternateOn,
	}
	snap.InputHidden = inputHidden(ctx, t.ts, p, cp.Lines)
	if st.Mode != "" {
		snap.PaneMode = &st.Mode
	}
	if st.Scrolled {
		snap.ScrollPosition = &st.ScrollPosition
	}
	return snap, nil
}

// ---- capture_pane

type capturePaneIn struct {
	PaneTarget
	Start           *int `json:"start,omitempty"`
	End             *int `json:"end,omitempty"`
	MaxLines        *int `json:"max_lines,omitempty" jsonschema:"null keeps every line"`
	JoinWrapped     bool `json:"join_wrapped,omitempty"`
	EscapeSequences bool `json:"escape_sequences,omitempty"`
	Socket
}

// CaptureOut is a pane's captured text.
type CaptureOut struct {
	PaneID                string `json:"pane_id"`
	Content               string `json:"content"`
	ContentTruncated      bool   `json:"content_truncated"`
	ContentTruncatedLines int    `json:"content_truncated_lines" jsonschema:"how many of the oldest lines were left out"`
}

func capturePane(ctx context.Context, c *Call, in *capturePaneIn) (CaptureOut, error) {
	if err := maxLinesArg(in.MaxLines); err != nil {
		return CaptureOut{}, err
	}
	var cp *tmux.Capture
	t, err := c.paneWith(ctx, in.PaneTarget, in.SocketName, idOnly, func(id string) []tmux.Op {
		cp = &tmux.Capture{Pane: id, Start: in.Start, End: in.End, Join: in.JoinWrapped, Escapes: in.EscapeSequences}
		return []tmux.Op{cp}
	})
	if err != nil {
		return CaptureOut{}, err
	}
	id := t.pane.PaneID
	lines := trimBlankTail(cp.Lines)
	if in.JoinWrapped && !in.EscapeSequences {
		// -J keeps the trailing spaces of every line; they carry nothing.
		for i, l := range lines {
			lines[i] = strings.TrimRight(l, " ")
		}
	}
	lines, dropped := tailLines(lines, in.MaxLines)
	return CaptureOut{PaneID: id, Content: strings.Join(lines, "\n"), ContentTruncated: dropped > 0, ContentTruncatedLines: dropped}, nil
}

// ---- display_message

type displayMessageIn struct {
	FormatString string `json:"format_string"`
	PaneTarget
	Socket
}

// ResultOut is a tool's one-string result.
type ResultOut struct {
	Result string `json:"result"`
}

// checkFormat refuses what tmux cannot read or would expand into more than the format's own
// text: shell jobs #(…), E: and T: (a value expanded as a format), a variable in s/…/…/ (its
// arguments are expanded twice), % (display-message passes the format through strftime
// first), read at every depth as tmux reads it (package tmux/format).
func checkFormat(f string) error {
	if len(f) > maxPattern {
		return fail("Pass a shorter format.", "format_string is %d bytes long; at most %d are taken", len(f), maxPattern)
	}
	if err := format.Check(f, format.Options{Strftime: true}); err != nil {
		return fail("Use plain #{variable} formats (conditionals, comparisons and the other modifiers are fine); run commands with run_shell_command instead.",
			"format_string: %v; display_message refuses it", err)
	}
	return nil
}

func displayMessage(ctx context.Context, c *Call, in *displayMessageIn) (ResultOut, error) {
	if err := checkFormat(in.FormatString); err != nil {
		return ResultOut{}, err
	}
	var ex *tmux.Expand
	_, err := c.paneWith(ctx, in.PaneTarget, in.SocketName, idOnly, func(id string) []tmux.Op {
		ex = &tmux.Expand{Pane: id, Format: in.FormatString}
		return []tmux.Op{ex}
	})
	if err != nil {
		return ResultOut{}, err
	}
	return ResultOut{Result: strings.Join(ex.Lines, "\n")}, nil
}

// ---- find_pane_by_position

type findPaneIn struct {
	Corner string `json:"corner"`
	WindowTarget
	Socket
}

func findPaneByPosition(ctx context.Context, c *Call, in *findPaneIn) (PaneInfo, error) {
	t, err := c.windowWith(ctx, in.WindowTarget, in.SocketName, readPanes|readClients)
	if err != nil {
		return PaneInfo{}, err
	}
	top := strings.HasPrefix(in.Corner, "top-")
	left := strings.HasSuffix(in.Corner, "-left")
	for _, p := range t.snap.Panes {
		if p.WindowID != t.window.WindowID || p.SessionID != t.window.SessionID {
			continue
		}
		// Exactly one pane touches both edges of a corner.
		if (top && p.PaneAtTop || !top && p.PaneAtBottom) && (left && p.PaneAtLeft || !left && p.PaneAtRight) {
			return c.paneInfo(ctx, t.ts, t.snap, p), nil
		}
	}
	return PaneInfo{}, fmt.Errorf("window %s has no pane in its %s corner: %w", t.window.WindowID, in.Corner, tmux.ErrNotFound)
}
