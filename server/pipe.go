package server

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
	"github.com/tmux-mcp/tmux-mcp/tmux"
	"github.com/tmux-mcp/tmux-mcp/tmux/format"
)

// pipeTools: pipe_pane (seed 000).
func pipeTools() []*Tool {
	return []*Tool{
		define(seeded(spec{Name: "pipe_pane", Title: "Log tmux Pane Output to a File", Tier: policy.Mutating, Toolsets: []string{policy.Execute}, Ann: annSEED}),
			pipePane),
	}
}

type pipeIn struct {
	OutputPath *string `json:"output_path"`
	Append     bool    `json:"append"`
	PaneTarget
	Socket
}

func pipePane(ctx context.Context, c *Call, in *pipeIn) (ResultOut, error) {
	var path string
	if in.OutputPath != nil {
		var err error
		if path, err = c.pipePath(*in.OutputPath); err != nil {
			return ResultOut{}, err
		}
	}
	t, err := c.pane(ctx, in.PaneTarget, in.SocketName)
	if err != nil {
		return ResultOut{}, err
	}
	id := t.pane.PaneID
	if in.OutputPath == nil {
		if err := t.ts.Do(ctx, &tmux.PipePane{Pane: id}); err != nil {
			return ResultOut{}, err
		}
		return ResultOut{Result: "Piping stopped for pane " + id}, nil
	}
	redirect := ">>"
	if !in.Append {
		redirect = ">"
	}
	// Without -o: a pipe already open for the pane is replaced.
	if err := t.ts.Do(ctx, &tmux.PipePane{Pane: id, Command: pipeCommand(redirect, path)}); err != nil {
		return ResultOut{}, err
	}
	return ResultOut{Result: fmt.Sprintf("Piping pane %s to %s", id, path)}, nil
}

// pipeCommand is the shell command tmux runs for a pipe: cat into the file, the path
// single-quoted for sh and then escaped for tmux, which expands the command as a format and
// with strftime before running it.
func pipeCommand(redirect, path string) string {
	return format.EscapeTime("cat " + redirect + shellQuote(path))
}

// shellQuote single-quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// pipePath checks output_path for the call's host: a path on this machine (pipePath), or on
// another host (remotePipePath).
func (c *Call) pipePath(p string) (string, error) {
	if h, _, err := c.srv.hostFor(c.host); err != nil {
		return "", err
	} else if h != nil {
		return c.srv.remotePipePath(p)
	}
	return c.srv.pipePath(p)
}

// remotePipePath checks output_path on another host, where tmux writes it: it must be
// absolute (there is no working directory to be relative to), and under
// LIBTMUX_MCP_PIPE_ROOT it must lie below the root as written, .. cleaned away (symlinks
// there cannot be resolved from here).
func (s *Server) remotePipePath(p string) (string, error) {
	if err := checkPipePath(p); err != nil {
		return "", err
	}
	if !path.IsAbs(p) {
		return "", fail("Give an absolute path on that host, e.g. /tmp/pane.log.", "output_path %q is relative: on another host it must be absolute", truncate(p, 200))
	}
	clean := path.Clean(p)
	if root := s.opts.PipeRoot; root != "" {
		r := path.Clean(root)
		if !strings.HasPrefix(clean, strings.TrimSuffix(r, "/")+"/") {
			return "", fail(fmt.Sprintf("LIBTMUX_MCP_PIPE_ROOT confines pipe_pane to %s; choose a file below it.", root),
				"output_path %s is outside LIBTMUX_MCP_PIPE_ROOT", clean)
		}
	}
	return clean, nil
}

func checkPipePath(p string) error {
	switch {
	case p == "":
		return fail("Give a file path to log to, or pass output_path=null to stop logging.", "output_path is empty")
	case strings.ContainsRune(p, 0):
		return fail("Give a file path without NUL bytes.", "output_path contains a NUL byte")
	case len(p) > 4096:
		return fail("Give a shorter path.", "output_path is %d bytes long; at most 4096 are taken", len(p))
	}
	return nil
}

// pipePath checks output_path and returns the absolute path to write to. Under
// LIBTMUX_MCP_PIPE_ROOT the path, with .. and the symlinks of its existing part resolved,
// must lie below the root, and that resolved path is returned.
func (s *Server) pipePath(p string) (string, error) {
	if err := checkPipePath(p); err != nil {
		return "", err
	}
	if !filepath.IsAbs(p) {
		return "", fail("Give an absolute path, e.g. /tmp/pane.log (~ is not expanded).", "output_path %q is a relative path; the log would land in whatever directory this MCP server was started in", truncate(p, 200))
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("output_path %q: %w", p, err)
	}
	if root := s.opts.PipeRoot; root != "" {
		resolved, err := withinRoot(root, abs)
		if err != nil {
			return "", err
		}
		abs = resolved
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return "", fail("Give the path of a file inside it, e.g. "+filepath.Join(abs, "pane.log")+".", "output_path %s is a directory", abs)
	}
	if fi, err := os.Stat(filepath.Dir(abs)); err != nil || !fi.IsDir() {
		return "", fail("Create the directory first, or choose a path in an existing one.", "the directory of output_path, %s, does not exist", filepath.Dir(abs))
	}
	return abs, nil
}

// withinRoot resolves abs (.. and the symlinks of its longest existing prefix) and refuses it
// unless it lies below root.
func withinRoot(root, abs string) (string, error) {
	hint := fmt.Sprintf("LIBTMUX_MCP_PIPE_ROOT confines the files pipe_pane and start_recording write to %s; choose a file below it.", root)
	rootAbs, err := filepath.Abs(root)
	if err == nil {
		rootAbs, err = filepath.EvalSymlinks(rootAbs)
	}
	if err != nil {
		return "", fail("Fix LIBTMUX_MCP_PIPE_ROOT: it must name an existing directory.", "LIBTMUX_MCP_PIPE_ROOT %s cannot be resolved: %v", root, err)
	}
	real, err := resolveExisting(abs)
	if err != nil {
		return "", fail(hint, "output_path %s cannot be resolved: %v", abs, err)
	}
	rel, err := filepath.Rel(rootAbs, real)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fail(hint, "output_path %s is outside LIBTMUX_MCP_PIPE_ROOT (it resolves to %s)", abs, real)
	}
	return real, nil
}

// resolveExisting resolves the symlinks of the longest existing prefix of the clean absolute
// path p and appends the rest. A dangling symlink anywhere fails.
func resolveExisting(p string) (string, error) {
	dir, rest := p, []string{}
	for {
		if _, err := os.Lstat(dir); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		rest = append(rest, filepath.Base(dir))
		dir = parent
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	for i := len(rest) - 1; i >= 0; i-- {
		real = filepath.Join(real, rest[i])
	}
	return real, nil
}
