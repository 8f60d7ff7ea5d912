package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/tmux-mcp/tmux-mcp/tmux/ssh"
)

// Files on the machine tmux runs on, for what a pane's shell must read there (a wrapper
// script). On this machine they are the os package's; on another host each is one session
// over the host's shared ssh connection running a fixed POSIX sh script, its arguments passed
// as $1, $2 (never as script text), except WriteFile, which goes through the tmux server.
// A session costs tens of milliseconds (the ssh client starting, the remote sshd starting the
// session's shell), where a control-mode request costs a fraction of a millisecond.

// MkdirTemp makes a new private directory (mode 0700) on the server's machine, named pattern
// plus a random suffix, and returns its path. pattern must not hold a '/'. It is made where
// tmux keeps its sockets, $TMUX_TMPDIR (of the configured environment) else /tmp, and in
// TMPDIR only when neither can take it: a pane's shell is given files there by a typed path,
// which should stay short. macOS's TMPDIR (/var/folders/…/T/, 49 bytes) would make bash's
// typed line 120 characters and zsh's 212, wrapped over two or three rows of an 80-column
// pane, and scrolled sideways by mksh, which leaves its start on the screen.
func (s *Server) MkdirTemp(ctx context.Context, pattern string) (string, error) {
	if strings.ContainsRune(pattern, '/') {
		return "", fmt.Errorf("MkdirTemp: pattern %q holds a '/'", pattern)
	}
	if s.cfg.Host == nil {
		return mkdirTempIn([]string{s.cfg.tmuxTmpdir(), os.TempDir()}, pattern)
	}
	// mktemp -d makes the directory 0700.
	out, err := s.runRemote(ctx, nil, `mktemp -d "${TMUX_TMPDIR:-/tmp}/$1XXXXXXXX" 2>/dev/null || exec mktemp -d "${TMPDIR:-/tmp}/$1XXXXXXXX"`, pattern)
	if err != nil {
		return "", fmt.Errorf("making a temporary directory: %w", err)
	}
	dir := strings.TrimSuffix(out, "\n")
	if !strings.HasPrefix(dir, "/") || strings.ContainsRune(dir, '\n') {
		return "", fmt.Errorf("making a temporary directory on host %q: mktemp printed %q", s.cfg.Host.Name, dir)
	}
	return dir, nil
}

// mkdirTempIn makes the directory in the first of bases where it can.
func mkdirTempIn(bases []string, pattern string) (dir string, err error) {
	for _, b := range bases {
		if dir, err = os.MkdirTemp(b, pattern); err == nil {
			return dir, nil
		}
	}
	return "", err
}

// WriteFile writes data to path on the server's machine with mode perm, replacing the file.
// The file is never readable by others while it is written (umask 077 until the final chmod).
func (s *Server) WriteFile(ctx context.Context, path string, data []byte, perm os.FileMode) error {
	if s.cfg.Host == nil {
		return os.WriteFile(path, data, perm)
	}
	mode := strconv.FormatUint(uint64(perm.Perm()), 8)
	if _, err := s.runRemote(ctx, data, `umask 077 && cat >"$1" && chmod "$2" "$1"`, path, mode); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// SaveText writes text to path on the server's machine, replacing the file, for a file that a
// pane's shell reads there soon after. On this machine it is WriteFile with mode 0600. On
// another host the tmux server's buffer is saved by its client process there (tmux -C over
// ssh), in one command list over the control connection, with no ssh session of its own (a
// run's script then costs a round trip instead of an ssh session); the file's mode is what that
// client's umask gives (path belongs in a directory of mode 0700, as MkdirTemp makes), and
// the client writes it a moment after SaveText returns. Text tmux cannot be sent (NUL, byte
// 0xFF) goes through WriteFile.
func (s *Server) SaveText(ctx context.Context, path, text string) error {
	if s.cfg.Host == nil || strings.IndexByte(text, 0) >= 0 || strings.IndexByte(text, 0xff) >= 0 {
		return s.WriteFile(ctx, path, []byte(text), 0o600)
	}
	name := "tmux-mcp-w" + strconv.FormatUint(bufSeq.Add(1), 10)
	if _, err := s.Exec(ctx, []string{"set-buffer", "-b", name, "--", text},
		[]string{"save-buffer", "-b", name, path}, []string{"delete-buffer", "-b", name}); err != nil {
		s.Exec(context.WithoutCancel(ctx), []string{"delete-buffer", "-b", name})
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// bufSeq numbers the buffers WriteFile goes through.
var bufSeq atomic.Uint64

// RemoveAll removes each path and what it holds on the server's machine (on another host in
// one ssh session); a missing path is no error.
func (s *Server) RemoveAll(ctx context.Context, paths ...string) error {
	if s.cfg.Host == nil {
		var errs []error
		for _, p := range paths {
			errs = append(errs, os.RemoveAll(p))
		}
		return errors.Join(errs...)
	}
	if len(paths) == 0 {
		return nil
	}
	if _, err := s.runRemote(ctx, nil, `exec rm -rf -- "$@"`, paths...); err != nil {
		return fmt.Errorf("removing %s: %w", strings.Join(paths, ", "), err)
	}
	return nil
}

// SocketNames lists the sockets in the tmux socket directory of the server's user on its
// machine ($TMUX_TMPDIR/tmux-<uid>, else /tmp/tmux-<uid>), by name (tmux -L): the servers that
// may be running there. A socket may be stale: only asking its server tells.
func (s *Server) SocketNames(ctx context.Context) ([]string, error) {
	if s.cfg.Host == nil {
		cfg := s.cfg
		cfg.SocketPath, cfg.SocketName = "", "default"
		entries, err := os.ReadDir(filepath.Dir(cfg.socketPath()))
		if err != nil {
			if os.IsNotExist(err) {
				return nil, nil
			}
			return nil, err
		}
		var names []string
		for _, e := range entries {
			if e.Type()&os.ModeSocket != 0 {
				names = append(names, e.Name())
			}
		}
		return names, nil
	}
	out, err := s.runRemote(ctx, nil, `d="${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)"
for f in "$d"/*; do if [ -S "$f" ]; then printf '%s\n' "${f##*/}"; fi; done`)
	if err != nil {
		return nil, fmt.Errorf("listing tmux sockets: %w", err)
	}
	return splitLines(out), nil
}

// runRemote runs a POSIX sh script on the host with args as $1, $2, ... and stdin, within the
// request deadline, and returns its standard output.
func (s *Server) runRemote(ctx context.Context, stdin []byte, script string, args ...string) (string, error) {
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	cmd, err := s.remoteCommand(ctx, script, args...)
	if err != nil {
		return "", err
	}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", s.timeoutError(ctx, [][]string{{"sh"}})
		}
		if !ssh.Failed(err) {
			// The script's own failure, not the host's or its tmux's (processError).
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return "", fmt.Errorf("on host %q: %s", s.cfg.Host.Name, strings.TrimSpace(stderr.String()))
			}
		}
		return "", s.processError(err, stderr.String())
	}
	return stdout.String(), nil
}
