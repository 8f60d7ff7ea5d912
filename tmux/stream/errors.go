package stream

import "errors"

// End reasons of a watched pane's stream. Readers receive them from Read and
// Wait once they have consumed everything the stream held.
var (
	// ErrPaneGone: the pane was killed, exited, or is dead (remain-on-exit).
	ErrPaneGone = errors.New("stream: pane is gone")
	// ErrServerGone: the control connection died and tmux could not be
	// reached (the server exited or was killed).
	ErrServerGone = errors.New("stream: tmux server is gone")
	// ErrSessionGone: the control connection ended because its session was
	// destroyed while the pane lives on (its window is linked into another
	// session); watch it again through that session.
	ErrSessionGone = errors.New("stream: session of the stream is gone")
	// ErrHubClosed: the Hub was closed.
	ErrHubClosed = errors.New("stream: hub closed")
	// ErrReleased: the Watch was released by its holder.
	ErrReleased = errors.New("stream: watch released")
)
