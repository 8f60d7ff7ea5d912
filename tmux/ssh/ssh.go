// Package ssh runs programs on other hosts through the OpenSSH client, so that the user's own
// ssh configuration, agent and known_hosts decide how a host is reached and trusted. Every
// process for one Host shares one connection (OpenSSH connection sharing: ControlMaster, with
// its socket in a private directory), so a second command costs a channel on a live connection,
// not a new handshake. Nothing ever prompts: ssh runs in batch mode.
package ssh

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultConnectTimeout bounds the TCP connect to a host (ssh -o ConnectTimeout).
const DefaultConnectTimeout = 10 * time.Second

// ControlPersist is how long the shared connection outlives its last session. Close ends it at
// once; this only bounds how long it lingers after a process that never called Close.
const ControlPersist = "60"

// ExitSSH is the exit status of an ssh client that failed itself (could not connect, refused
// key, host key mismatch), as opposed to the remote command's own status.
const ExitSSH = 255

// Host is one machine reached through OpenSSH. Set the fields, then share the value: every
// Command of a Host goes over its one shared connection. It is safe for concurrent use.
type Host struct {
	Name           string        // the operator's name for the host, used in messages
	Destination    string        // what ssh takes: user@host, a ~/.ssh/config alias, ssh://user@host:port
	Bin            string        // the ssh executable; "ssh" from PATH when empty
	ConfigFile     string        // ssh -F; empty uses the user's ~/.ssh/config
	ConnectTimeout time.Duration // DefaultConnectTimeout when 0
	Env            []string      // environment of the ssh processes; nil means this process's

	mu     sync.Mutex
	dir    string // private directory of the ControlMaster socket, made on first use
	closed bool
}

// ErrClosed means the Host was closed.
var ErrClosed = errors.New("ssh host closed")

// CheckName reports whether name can name a host: letters, digits, '.', '_' and '-'.
func CheckName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("host name %q must be 1 to 64 characters", name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return fmt.Errorf("host name %q may hold only letters, digits, '.', '_' and '-'", name)
		}
	}
	return nil
}

// CheckDestination refuses what ssh would read as something else than a destination: an
// option (a leading '-'), blanks or control characters.
func CheckDestination(dest string) error {
	switch {
	case dest == "":
		return errors.New("the destination is empty")
	case strings.HasPrefix(dest, "-"):
		return fmt.Errorf("destination %q starts with '-', which ssh would read as an option", dest)
	}
	for _, r := range dest {
		if r <= ' ' || r == 0x7f {
			return fmt.Errorf("destination %q holds a blank or a control character", dest)
		}
	}
	return nil
}

// Command returns the ssh process that runs argv on the host, over the shared connection.
// With a nil ctx the process is not tied to a context (a long-lived session).
func (h *Host) Command(ctx context.Context, argv ...string) (*exec.Cmd, error) {
	args, err := h.Args(argv...)
	if err != nil {
		return nil, err
	}
	var cmd *exec.Cmd
	if ctx == nil {
		cmd = exec.Command(h.bin(), args...)
	} else {
		cmd = exec.CommandContext(ctx, h.bin(), args...)
	}
	cmd.Env = h.Env
	return cmd, nil
}

// Args returns the arguments of the ssh process that runs argv on the host.
func (h *Host) Args(argv ...string) ([]string, error) {
	if err := CheckDestination(h.Destination); err != nil {
		return nil, err
	}
	args, err := h.options()
	if err != nil {
		return nil, err
	}
	return append(args, "--", h.Destination, CommandLine(argv)), nil
}

// options are the ssh options of every process: the shared connection, never a prompt, no
// terminal, no escape character (control-mode lines are data), none of the config's port
// forwardings (each session would try to bind them again), and keepalives that notice a dead
// network within about 15 s. Options given here win over the user's ssh config; the rest of it
// (user, port, identity, agent, proxy, host key checking) applies as for any ssh command.
func (h *Host) options() ([]string, error) {
	dir, err := h.controlDir()
	if err != nil {
		return nil, err
	}
	timeout := h.ConnectTimeout
	if timeout <= 0 {
		timeout = DefaultConnectTimeout
	}
	secs := max(1, int((timeout+time.Second-1)/time.Second))
	var args []string
	if h.ConfigFile != "" {
		args = append(args, "-F", h.ConfigFile)
	}
	return append(args, "-T", "-e", "none",
		"-o", "BatchMode=yes",
		"-o", "ConnectTimeout="+strconv.Itoa(secs),
		"-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3",
		"-o", "ClearAllForwardings=yes",
		"-o", "ControlMaster=auto",
		"-o", "ControlPath="+strings.ReplaceAll(filepath.Join(dir, "cm"), "%", "%%"),
		"-o", "ControlPersist="+ControlPersist,
	), nil
}

func (h *Host) bin() string {
	if h.Bin == "" {
		return "ssh"
	}
	return h.Bin
}

// controlDir makes the private directory (mode 0700) that holds the shared connection's socket:
// nobody else may reach the connection through it.
func (h *Host) controlDir() (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return "", ErrClosed
	}
	if h.dir == "" {
		dir, err := os.MkdirTemp("", "tmux-mcp-ssh-")
		if err != nil {
			return "", fmt.Errorf("making the ssh control directory: %w", err)
		}
		h.dir = dir
	}
	return h.dir, nil
}

// Close ends the shared connection (ssh -O exit) and removes its directory. Sessions still
// open on it end with it.
func (h *Host) Close() {
	h.mu.Lock()
	dir := h.dir
	h.dir, h.closed = "", true
	h.mu.Unlock()
	if dir == "" {
		return
	}
	sock := filepath.Join(dir, "cm")
	if _, err := os.Stat(sock); err == nil {
		var args []string
		if h.ConfigFile != "" {
			args = append(args, "-F", h.ConfigFile)
		}
		args = append(args, "-o", "BatchMode=yes", "-o", "ControlPath="+strings.ReplaceAll(sock, "%", "%%"), "-O", "exit", "--", h.Destination)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		cmd := exec.CommandContext(ctx, h.bin(), args...)
		cmd.Env = h.Env
		_ = cmd.Run()
		cancel()
	}
	os.RemoveAll(dir)
}

// ControlPath returns the shared connection's socket path, "" before the first Command.
func (h *Host) ControlPath() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dir == "" {
		return ""
	}
	return filepath.Join(h.dir, "cm")
}

// CommandLine is argv as the one string ssh sends: "exec" and every word quoted (see Quote).
// exec leaves no shell between sshd and the program, so signals and exit statuses are its own.
func CommandLine(argv []string) string {
	var b strings.Builder
	b.WriteString("exec")
	for _, w := range argv {
		b.WriteByte(' ')
		b.WriteString(Quote(w))
	}
	return b.String()
}

// Quote makes w one literal word for the remote user's login shell.
//
// ssh does not carry an argv: it joins its command arguments with spaces into one string, and
// the remote sshd runs that string with the user's login shell (`$SHELL -c <string>`), which
// splits, expands and globs it again. So every word is single-quoted, which keeps everything
// literal in sh, dash, bash, zsh, ksh and fish, LF included, with two exceptions handled outside
// the quotes: a single quote would end them, so it is written as close-quote, backslash-quote,
// reopen; and fish reads a backslash before a backslash or a quote as an escape even inside
// single quotes, so a backslash is written as close-quote, two backslashes, reopen. Every one
// of those shells reads both forms as the one character.
func Quote(w string) string {
	var b strings.Builder
	b.Grow(len(w) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(w); i++ {
		switch c := w[i]; c {
		case '\'':
			b.WriteString(`'\''`)
		case '\\':
			b.WriteString(`'\\'`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// Failed reports whether err, from a finished ssh process, is ssh's own failure (exit status
// 255) rather than the remote command's.
func Failed(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && ee.ExitCode() == ExitSSH
}
