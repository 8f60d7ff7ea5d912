package server

import (
	"context"
	"errors"
	"regexp"
	"sort"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// ---- search_panes

type searchPanesIn struct {
	Pattern   string `json:"pattern"`
	Regex     bool   `json:"regex,omitempty"`
	MatchCase bool   `json:"match_case,omitempty"`
	SessionTarget
	ContentStart           *int `json:"content_start,omitempty" jsonschema:"Negative: scrollback; null: -2000"`
	ContentEnd             *int `json:"content_end,omitempty" jsonschema:"Default: screen bottom"`
	MaxMatchedLinesPerPane int  `json:"max_matched_lines_per_pane,omitempty"`
	Limit                  *int `json:"limit,omitempty" jsonschema:"Panes per page; null: all"`
	Offset                 int  `json:"offset,omitempty"`
	Socket
}

// PaneMatch is one pane whose text matched.
type PaneMatch struct {
	PaneID       string   `json:"pane_id"`
	SessionID    string   `json:"session_id"`
	SessionName  string   `json:"session_name"`
	WindowID     string   `json:"window_id"`
	WindowName   string   `json:"window_name"`
	MatchedLines []string `json:"matched_lines"`
	LineNumbers  []int    `json:"line_numbers" jsonschema:"each matched line's number as capture_pane's start and end count them"`
}

// SearchOut is a page of search results.
type SearchOut struct {
	Matches           []PaneMatch `json:"matches"`
	Truncated         bool        `json:"truncated" jsonschema:"some matching lines or panes were left out (see truncated_panes and max_matched_lines_per_pane)"`
	TruncatedPanes    []string    `json:"truncated_panes" jsonschema:"matching panes after this page; ask for them with a larger offset"`
	TotalPanesMatched int         `json:"total_panes_matched"`
	Offset            int         `json:"offset"`
	Limit             *int        `json:"limit"`
}

// maxPattern bounds a search pattern (a regular expression's program grows with it).
const maxPattern = 64 << 10

// captureBatch is how many capture-pane commands go in one command list: few enough that one
// reply (about 50 KB per pane of 2,000 lines) keeps the heap small, many enough that round trips
// (0.1 ms each) do not matter.
const captureBatch = 16

// compilePattern turns the search arguments into a matcher.
func compilePattern(pattern string, isRegex, matchCase bool) (func(string) bool, error) {
	if pattern == "" {
		return nil, fail("Pass the text to look for.", "pattern is empty")
	}
	if len(pattern) > maxPattern {
		return nil, fail("Search for a shorter pattern.", "pattern is %d bytes long; at most %d are taken", len(pattern), maxPattern)
	}
	if !isRegex {
		if matchCase {
			return func(s string) bool { return strings.Contains(s, pattern) }, nil
		}
		if isASCII(pattern) {
			lower := strings.ToLower(pattern)
			return func(s string) bool { return containsFoldASCII(s, lower) }, nil
		}
		pattern = regexp.QuoteMeta(pattern)
	}
	if !matchCase {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fail("Fix the expression (RE2 syntax: no backreferences or lookaround), or pass regex=false to search for the text literally.",
			"pattern is not a valid regular expression: %v", err)
	}
	return re.MatchString, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// containsFoldASCII reports whether s contains lower (ASCII, lower case) ignoring ASCII case.
func containsFoldASCII(s, lower string) bool {
	n := len(lower)
	if n == 0 {
		return true
	}
	first := lower[0]
	firstUp := first
	if first >= 'a' && first <= 'z' {
		firstUp = first - 'a' + 'A'
	}
	for i := 0; i+n <= len(s); i++ {
		c := s[i]
		if c != first && c != firstUp {
			continue
		}
		j := 1
		for ; j < n; j++ {
			c := s[i+j]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lower[j] {
				break
			}
		}
		if j == n {
			return true
		}
	}
	return false
}

func searchPanes(ctx context.Context, c *Call, in *searchPanesIn) (SearchOut, error) {
	match, err := compilePattern(in.Pattern, in.Regex, in.MatchCase)
	if err != nil {
		return SearchOut{}, err
	}
	if in.Limit != nil && *in.Limit < 1 {
		return SearchOut{}, fail("Pass a positive limit, or null for every matching pane.", "limit must be at least 1 (got %d)", *in.Limit)
	}
	if err := checkIDs(nil, nil, in.SessionID); err != nil {
		return SearchOut{}, err
	}
	ts, snap, err := c.snapshot(ctx, in.SocketName)
	if err != nil {
		return SearchOut{}, err
	}
	sessionID := ""
	if in.SessionID != nil || in.SessionName != nil {
		sess, err := resolveSession(snap, in.SessionID, in.SessionName)
		if err != nil {
			return SearchOut{}, err
		}
		sessionID = sess.SessionID
	}
	out := SearchOut{Matches: []PaneMatch{}, TruncatedPanes: []string{}, Offset: in.Offset, Limit: in.Limit}
	start := in.ContentStart
	if start == nil && in.ContentEnd == nil {
		start = new(int)
		*start = -searchHistory
	}
	add := out.matcher(snap, match, in.ContentEnd, in.MaxMatchedLinesPerPane)
	if err := capturePanes(ctx, ts, searchedPanes(snap, sessionID), start, in.ContentEnd, add); err != nil {
		return SearchOut{}, err
	}
	out.page(in.Offset, in.Limit)
	return out, nil
}

// matcher returns what a search does with each pane's captured lines (ending at row end):
// adds the pane's matching lines to out, the last perPane of them.
func (out *SearchOut) matcher(snap *tmux.Snapshot, match func(string) bool, end *int, perPane int) func(tmux.Pane, []string) {
	windowNames := map[string]string{}
	for _, w := range snap.Windows {
		windowNames[w.WindowID] = w.WindowName
	}
	return func(p tmux.Pane, lines []string) {
		var hits []string
		var nums []int
		last := searchLastLine(p, end)
		for i, l := range lines {
			if l = strings.TrimRight(l, " "); match(l) {
				hits = append(hits, l)
				nums = append(nums, last-(len(lines)-1-i))
			}
		}
		if len(hits) == 0 {
			return
		}
		if len(hits) > perPane {
			hits, nums = hits[len(hits)-perPane:], nums[len(nums)-perPane:]
			out.Truncated = true
		}
		out.Matches = append(out.Matches, PaneMatch{
			PaneID: p.PaneID, SessionID: p.SessionID, SessionName: p.SessionName,
			WindowID: p.WindowID, WindowName: windowNames[p.WindowID], MatchedLines: hits, LineNumbers: nums,
		})
	}
}

// searchHistory is how many lines of scrollback a search reads by default (besides the screen).
const searchHistory = 2000

// searchLastLine is the capture_pane line number of the last line a search captured: the end
// asked for, which tmux clamps to the bottom of the screen (capture-pane prints the screen's
// blank rows too, so lines are counted back from there).
func searchLastLine(p tmux.Pane, end *int) int {
	bottom := p.PaneHeight - 1
	if end == nil || *end > bottom {
		return bottom
	}
	return *end
}

// searchedPanes are the panes a search reads: each pane once (a window linked into several
// sessions lists its panes for each), of one session when sessionID is set, numerically by id.
func searchedPanes(snap *tmux.Snapshot, sessionID string) []tmux.Pane {
	var panes []tmux.Pane
	seen := map[string]bool{}
	for _, p := range snap.Panes {
		if (sessionID != "" && p.SessionID != sessionID) || seen[p.PaneID] {
			continue
		}
		seen[p.PaneID] = true
		panes = append(panes, p)
	}
	sort.Slice(panes, func(i, j int) bool { return idNum(panes[i].PaneID) < idNum(panes[j].PaneID) })
	return panes
}

// page keeps the matches from offset, limit of them (nil: all), and names the panes after
// them in truncated_panes.
func (out *SearchOut) page(offset int, limit *int) {
	out.TotalPanesMatched = len(out.Matches)
	all := out.Matches
	from := min(offset, len(all))
	to := len(all)
	if limit != nil && from+*limit < to {
		to = from + *limit
	}
	out.Matches = all[from:to]
	for _, m := range all[to:] {
		out.TruncatedPanes = append(out.TruncatedPanes, m.PaneID)
	}
	if len(out.TruncatedPanes) > 0 {
		out.Truncated = true
	}
}

// capturePanes captures the panes' text, captureBatch panes per command
// list with two lists in flight, so tmux works on the next while this side matches the last,
// and calls fn for each pane in order. A pane that vanished meanwhile is skipped.
func capturePanes(ctx context.Context, ts *tmux.Server, panes []tmux.Pane, start, end *int, fn func(tmux.Pane, []string)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var batches [][]tmux.Pane
	for i := 0; i < len(panes); i += captureBatch {
		batches = append(batches, panes[i:min(i+captureBatch, len(panes))])
	}
	replies := make([]chan captured, len(batches))
	for i := range replies {
		replies[i] = make(chan captured, 1)
	}
	slots := make(chan struct{}, 2)
	go func() {
		for i, b := range batches {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			go func() { replies[i] <- captureBatchOf(ctx, ts, b, start, end) }()
		}
	}()
	for i, batch := range batches {
		var r captured
		select {
		case r = <-replies[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		<-slots
		if err := r.each(ctx, ts, batch, start, end, fn); err != nil {
			return err
		}
	}
	return nil
}

// captured is one command list's captures, in the order of its panes; those after a pane that
// failed were not read.
type captured struct {
	ops []*tmux.Capture
	err error
}

// captureBatchOf captures a batch of panes in one command list, rows as capture_pane counts
// them (no -J), so line numbers are its own.
func captureBatchOf(ctx context.Context, ts *tmux.Server, batch []tmux.Pane, start, end *int) captured {
	ops := make([]*tmux.Capture, len(batch))
	list := make([]tmux.Op, len(batch))
	for i, p := range batch {
		ops[i] = &tmux.Capture{Pane: p.PaneID, Start: start, End: end}
		list[i] = ops[i]
	}
	return captured{ops, ts.Batch(ctx, list...)}
}

// each calls fn for each pane captured; a pane tmux could not find is skipped, and the rest
// of its batch captured again.
func (r captured) each(ctx context.Context, ts *tmux.Server, batch []tmux.Pane, start, end *int, fn func(tmux.Pane, []string)) error {
	for {
		var ce *tmux.CommandError
		switch {
		case r.err == nil:
			for i, op := range r.ops {
				fn(batch[i], op.Lines)
			}
			return nil
		case !(errors.As(r.err, &ce) && errors.Is(r.err, tmux.ErrNotFound)):
			return r.err
		}
		n := 0 // the captures read: capture-pane prints a row for every row of a screen
		for n < len(r.ops) && r.ops[n].Lines != nil {
			fn(batch[n], r.ops[n].Lines)
			n++
		}
		if n+1 >= len(batch) {
			return nil
		}
		batch = batch[n+1:]
		r = captureBatchOf(ctx, ts, batch, start, end)
	}
}
