package tmux

import (
	"bytes"
	"context"
)

// SpawnRaw runs one command in its own tmux process, feeding it stdin when not nil, and
// returns its standard output byte for byte (Spawn splits it into lines, which loses whether
// it ended with a newline). At most max bytes are kept, from the end: the rest is counted in
// dropped. Like Spawn, it counts as a mutation (see attachGate).
func (s *Server) SpawnRaw(ctx context.Context, stdin []byte, max int, args ...string) (out []byte, dropped int64, err error) {
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	if notifies(args) {
		if err := s.gate.lockShared(ctx); err != nil {
			return nil, 0, s.timeoutError(ctx, [][]string{args})
		}
		defer s.gate.unlockShared()
	}
	cmd, err := s.command(ctx, args...)
	if err != nil {
		return nil, 0, err
	}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	stdout := &countingTail{tail: tailBuffer{max: max}}
	var stderr bytes.Buffer
	cmd.Stdout = stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		// Only stderr names a failure here: stdout is the data asked for.
		return nil, 0, s.spawnError(ctx, args, err, stderr.String(), "")
	}
	b := []byte(stdout.String())
	return b, stdout.total - int64(len(b)), nil
}

// countingTail keeps the last bytes written to it and counts them all.
type countingTail struct {
	tail  tailBuffer
	total int64
}

func (c *countingTail) Write(p []byte) (int, error) {
	c.total += int64(len(p))
	return c.tail.Write(p)
}

func (c *countingTail) String() string { return c.tail.String() }
