package cmdhist

import (
	"bytes"
	"context"
	"strings"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/tmux/marks"
	"github.com/tmux-mcp/tmux-mcp/tmux/stream"
)

// Commands returns a copy of the pane's commands, oldest first, once the history caught up
// with what the pane printed so far, and whether the pane ever showed marks.
func (f *Pane) Commands(ctx context.Context) (cmds []marks.Command, sawMarks bool) {
	f.caughtUp(ctx)
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.h.Commands(f.w.Offset()), f.h.SawMarks()
}

// Output returns a command's output as clean lines (a full-screen program's screens left
// out), the newest maxLines kept (all when maxLines <= 0); dropped counts the older lines
// left out, lost says part of the output is no longer held (the stream keeps its last MiB)
// or was lost from the stream.
func (f *Pane) Output(cm marks.Command, maxLines int) (lines []string, dropped int, lost bool) {
	body, lost := f.output(cm)
	body = trimPromptSP(body)
	fl := stream.Filter{SkipAlternate: true, KeepLast: maxLines}
	fl.Write(body)
	fl.Flush()
	lines = fl.Lines()
	if p := fl.Partial(); strings.TrimSpace(p) != "" {
		lines = append(lines, p) // a blank one is a prompt's leftovers (zsh's PROMPT_SP)
	}
	dropped = fl.Dropped()
	if maxLines > 0 && len(lines) > maxLines {
		dropped += len(lines) - maxLines
		lines = lines[len(lines)-maxLines:]
	}
	return lines, dropped, lost || cm.Lost || fl.Truncated() > 0
}

// output reads a command's output from the pane's stream; lost says part of it is gone.
func (f *Pane) output(cm marks.Command) (body []byte, lost bool) {
	f.mu.Lock()
	w, cur := f.w, f.stream
	f.mu.Unlock()
	if cm.Stream != cur {
		return nil, true
	}
	n := cm.OutEnd - cm.OutStart
	if n <= 0 {
		return nil, false
	}
	data, _, missed, _ := w.Read(cm.OutStart, int(n))
	if missed > 0 {
		// Read counted from the oldest byte kept: drop what lies past the command's end.
		if keep := n - missed; keep < int64(len(data)) {
			data = data[:max(keep, 0)]
		}
	}
	return data, missed > 0 || w.Gaps(cm.OutStart, cm.OutEnd) > 0
}

// trimPromptSP removes the end zsh's PROMPT_SP gives a command's output, printed before its
// precmd hooks (and so before the D mark): the end-of-line mark (a bold reverse % or #),
// spaces to the line's end, then "\r \r". Its CR would restart the output's last line, and
// lose it, when the output did not end with a newline (printf, curl). A mark without SGR
// around it (a user's PROMPT_EOL_MARK) stays: only the pad is sure to be zsh's.
func trimPromptSP(b []byte) []byte {
	t, ok := bytes.CutSuffix(b, []byte("\r \r"))
	if !ok {
		return b
	}
	n := len(t)
	for n > 0 && t[n-1] == ' ' {
		n--
	}
	if len(t)-n < 8 { // the pad reaches the line's end: a pane is wider than 9 columns
		return b
	}
	t = t[:n]
	if m := trimSGR(t); len(m) < len(t) && len(m) > 0 && m[len(m)-1] != '\n' {
		if _, size := utf8.DecodeLastRune(m); len(trimSGR(m[:len(m)-size])) < len(m)-size {
			return trimSGR(m[:len(m)-size]) // the mark, between SGRs
		}
	}
	return t
}

// trimSGR removes the SGR sequences (ESC [ digits ; m) that end b.
func trimSGR(b []byte) []byte {
	for {
		i := bytes.LastIndex(b, []byte("\x1b["))
		if i < 0 || !bytes.HasSuffix(b, []byte("m")) {
			return b
		}
		for _, c := range b[i+2 : len(b)-1] {
			if (c < '0' || c > '9') && c != ';' {
				return b
			}
		}
		b = b[:i]
	}
}
