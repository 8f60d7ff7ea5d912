package cmdhist

import (
	"context"
	"strings"

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
