package server

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/server/policy"
	"github.com/tmux-mcp/tmux-mcp/tmux/format"
)

// pipeTools: pipe_pane (seed 000).
func pipeTools() []*Tool {
	return []*Tool{
		define(spec{Name: "pipe_pane", Title: "Log tmux Pane Output to a File", Tier: policy.Mutating, Toolsets: []string{policy.Execute}, Ann: annSEED,
			Description: pipeDescription, InputJSON: pipeInputSchema, OutputJSON: pipeOutputSchema},
			pipePane),
	}
}

// pipeDescription is seed 000's description, verbatim as its document renders it (the seed wins
// over accuracy: its warning predates LIBTMUX_MCP_PIPE_ROOT, which this server also honours).
const pipeDescription = "Log a pane's live output to a file (or stop an active log).\n\n" +
	"Streams everything written to the pane (stdout plus terminal control sequences) into a file on disk — the common use is " +
	"`output_path=\"/tmp/pane.log\"` to capture scrollback continuously while the agent watches for errors. When `output_path` is given, " +
	"starts logging; when `output_path` is None, stops any active pipe for the pane.\n\n" +
	"Warning\n\n" +
	"This tool writes to arbitrary filesystem paths chosen by the MCP client. There is no allow-list; the server will create files " +
	"anywhere the server process has write access. Treat this as elevated-risk: it is the broadest-reach tool in `execute`. " +
	"If you run libtmux-mcp on untrusted input, consider `LIBTMUX_TOOLSETS=inspect` or run the server under a user with a scoped " +
	"home directory. See [topics/trust](https://libtmux-mcp.git-pull.com/topics/trust/) for the full footgun list."

// pipeInputSchema is seed 000's input schema, verbatim.
const pipeInputSchema = `{
  "additionalProperties": false,
  "properties": {
    "append": {
      "default": true,
      "description": "Whether to append to the file. Default True. If False, overwrites.",
      "type": "boolean"
    },
    "output_path": {
      "anyOf": [
        {
          "type": "string"
        },
        {
          "type": "null"
        }
      ],
      "default": null,
      "description": "File path to write output to. None stops piping."
    },
    "pane_id": {
      "anyOf": [
        {
          "type": "string"
        },
        {
          "type": "null"
        }
      ],
      "default": null,
      "description": "Pane ID (e.g. '%1')."
    },
    "session_id": {
      "anyOf": [
        {
          "type": "string"
        },
        {
          "type": "null"
        }
      ],
      "default": null,
      "description": "Session ID for pane resolution."
    },
    "session_name": {
      "anyOf": [
        {
          "type": "string"
        },
        {
          "type": "null"
        }
      ],
      "default": null,
      "description": "Session name for pane resolution."
    },
    "socket_name": {
      "anyOf": [
        {
          "type": "string"
        },
        {
          "type": "null"
        }
      ],
      "default": null,
      "description": "tmux socket name."
    },
    "window_id": {
      "anyOf": [
        {
          "type": "string"
        },
        {
          "type": "null"
        }
      ],
      "default": null,
      "description": "Window ID for pane resolution."
    }
  },
  "type": "object"
}`

// pipeOutputSchema is seed 000's output schema, verbatim.
const pipeOutputSchema = `{
  "properties": {
    "result": {
      "type": "string"
    }
  },
  "required": [
    "result"
  ],
  "type": "object",
  "x-fastmcp-wrap-result": true
}`

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
		if _, err := t.ts.Command(ctx, "pipe-pane", "-t", id); err != nil {
			return ResultOut{}, err
		}
		return ResultOut{Result: "Piping stopped for pane " + id}, nil
	}
	redirect := ">>"
	if !in.Append {
		redirect = ">"
	}
	// Without -o: a pipe already open for the pane is replaced.
	if _, err := t.ts.Command(ctx, "pipe-pane", "-t", id, pipeCommand(redirect, path)); err != nil {
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
