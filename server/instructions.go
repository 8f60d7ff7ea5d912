package server

import (
	"fmt"
	"strings"
)

// maxInstructions is the handshake budget for the instructions text.
const maxInstructions = 2048

// instructions is the handshake text: the hierarchy, which tool for which job, the tier, and
// the server's own pane when it runs inside tmux.
func (s *Server) instructions() string {
	var b strings.Builder
	b.WriteString("tmux hierarchy: server (socket_name) > session ($id) > window (@id) > pane (%id). Prefer ids over names; ids are stable, names and indexes are not.\n")
	b.WriteString("Targets: the most specific argument wins (pane_id, then window_id or window_index, then session_id, then session_name; with none, the session of lowest id; others given with an id must agree with it), and a window or session stands for its active pane or window. socket_name picks the tmux server (tmux -L).\n")
	b.WriteString("Find: list_sessions, list_windows, list_panes (filters narrow them: {field[__op]: value}, ANDed; op: exact (default), iexact, [i]contains, [i]startswith, [i]endswith, in, nin (comma list), [i]regex), get_pane_info.\n")
	if s.offers("run_shell_command") {
		b.WriteString("Run a shell command and get its exit status and only its output: run_shell_command (or run_command). It frames the command; do not use send_keys + capture_pane for that. " +
			"A run that timed out keeps running: wait_for_run returns its status and output later (never run it again); answer its questions with send_keys to_running_command=true.\n")
	}
	if s.offers("send_keys") {
		b.WriteString("Type into programs that are not shells (editors, REPLs, prompts): send_keys (C-c, Enter...), paste_text. They return a cursor taken before the input: pass it to wait_for_text so nothing printed in between is missed.\n")
	}
	if s.offers("type_secret") {
		b.WriteString("Never ask for a password or another secret in the chat: when a pane waits for hidden input (input_hidden), type_secret has the person type it on a one-time page.\n")
	}
	b.WriteString("Read: snapshot_pane (screen, cursor, mode in one call), capture_pane (history ranges), capture_since (only what is new since a cursor), search_panes.\n")
	b.WriteString("Wait, do not poll: wait_for_text blocks until new output matches, or with quiet_ms until the pane goes quiet (woken by tmux, not by polling); capture_since with wait_ms does the same for reads.\n")
	b.WriteString("Panes a person has on screen refuse runs: work in a window of your own (create_window); a person can follow it read-only (tmux attach -r).\n")
	fmt.Fprintf(&b, "Safety tier: %s. Tools above it are not offered.\n", s.opts.Safety)
	if c := s.caller; c != nil && c.PaneID != "" {
		fmt.Fprintf(&b, "This MCP server runs inside tmux pane %s (is_caller=true in results): never type into it or kill it; work in other panes.\n", c.PaneID)
	}
	out := b.String()
	if len(out) > maxInstructions {
		out = out[:maxInstructions]
	}
	return out
}

func (s *Server) offers(tool string) bool {
	_, ok := s.tools[tool]
	return ok
}
