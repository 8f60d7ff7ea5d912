package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tmux-mcp/tmux-mcp/shellrun"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// timeWrapper is the floor of run_shell_command's design: the wrapper tmux-mcp makes bash
// source for `true`, written and typed by hand over control mode, timed until its end marker
// comes back. No tmux-mcp in between: what no implementation of the design can beat.
func (t *benchTmux) timeWrapper(ctx context.Context, n int) (samples, error) {
	ts := tmux.NewServer(tmux.Config{SocketPath: t.sock, Env: t.env})
	defer ts.Close()
	dir, err := ts.MkdirTemp(ctx, "tmb-wrap") // where the runner makes its script directory
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	return t.timeTyped(ctx, n, "wrapper floor", func(c *ctl, i int) (time.Duration, error) {
		return c.wrapperOnce(ctx, t.pane, filepath.Join(dir, fmt.Sprintf("r%d", i)))
	})
}

// timeTyped times n calls of once on a control client of its own, 20 ms apart (the prompt
// settles between them, as in timeEcho).
func (t *benchTmux) timeTyped(ctx context.Context, n int, what string, once func(c *ctl, i int) (time.Duration, error)) (samples, error) {
	c, err := t.control(ctx, t.session)
	if err != nil {
		return nil, err
	}
	defer c.close()
	var s samples
	for i := 0; i < n; i++ {
		d, err := once(c, i)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		s = append(s, d)
		time.Sleep(20 * time.Millisecond)
	}
	return s, nil
}

// wrapperOnce writes the wrapper of `true` to path under a fresh id, types its line into pane
// and waits for its end marker; the script and its scratch files are removed after.
func (c *ctl) wrapperOnce(ctx context.Context, pane, path string) (time.Duration, error) {
	id := shellrun.NewID()
	script, err := shellrun.Script(shellrun.Bash, id, "true", path, shellrun.Options{})
	if err != nil {
		return 0, err
	}
	defer os.Remove(path) // the wrapper keeps its scratch in the script itself
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		return 0, err
	}
	// The script prints the id through octal escapes, so the plain id on the stream is the
	// marker's and never the typed line's echo.
	d, out, err := c.typed(ctx, pane, shellrun.Line(shellrun.Bash, path), "\x1b]6973;"+id+";E;")
	if err != nil {
		return 0, err
	}
	if p := shellrun.Parse(out, id); !p.Done || p.Status != 0 {
		return 0, fmt.Errorf("`true` did not end with status 0: %+v in %q", p, out)
	}
	return d, nil
}

// timeSubshell is the floor of a bash subshell: `( true ); echo` typed by hand, its output seen
// back; beside the echo floor, what the subshell alone costs on this machine.
func (t *benchTmux) timeSubshell(ctx context.Context, n int) (samples, error) {
	return t.timeTyped(ctx, n, "subshell floor", func(c *ctl, i int) (time.Duration, error) {
		tok := fmt.Sprintf("s%dx", i)
		// The last letter quoted, as in timeEcho: the typed line's echo never matches.
		d, _, err := c.typed(ctx, t.pane, "( true ); echo "+tok[:len(tok)-1]+`"x"`, tok+"\r\n")
		return d, err
	})
}

// typed sends line and Enter to pane in one command list and returns how long until needle
// was seen in the pane's output, and that output.
func (c *ctl) typed(ctx context.Context, pane, line, needle string) (time.Duration, []byte, error) {
	seen := c.expect(needle)
	start := time.Now()
	if _, err := c.conn.Do(ctx, []string{"send-keys", "-t", pane, "-l", line}, []string{"send-keys", "-t", pane, "Enter"}); err != nil {
		return 0, nil, err
	}
	select {
	case at := <-seen:
		return at.Sub(start), c.output(), nil
	case <-time.After(5 * time.Second):
		return 0, nil, fmt.Errorf("%q not seen in %q", needle, c.output())
	}
}

// output is a copy of the pane output seen since the last expect.
func (c *ctl) output() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]byte(nil), c.out.Bytes()...)
}
