// Package cli is the tmux-mcp command line: serving MCP over stdio or HTTP, and the tools,
// call, doctor and version subcommands. main only calls Run, so all of it is testable.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/internal/wire"
	"github.com/tmux-mcp/tmux-mcp/server"
)

// Version is the program's version, set at link time (-X) or read from the build info.
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

const usage = `tmux-mcp: a Model Context Protocol server for tmux.

Usage:
  tmux-mcp [flags]                      serve MCP over stdio (what MCP clients run)
  tmux-mcp serve [--http ADDR] [flags]  serve stdio, or streamable HTTP on ADDR (loopback, bearer token)
  tmux-mcp tools [flags]                list the tools a client would be offered, with their tier
  tmux-mcp call TOOL ['{"json":"args"}'] run one tool in-process and print its result (exit 1 on a tool error)
  tmux-mcp doctor [flags]               check tmux, the socket, reachable servers, the caller pane and the tier
  tmux-mcp version                      print the version

Flags go before or after the command; most have an environment variable, and flags win:
`

// IO is the process's standard streams and environment.
type IO struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Env            []string
	// StdinIsTerminal says a person typed the command in a terminal.
	StdinIsTerminal bool
	// OwnProcess lets Run tune the process it runs in for serving over stdio (see
	// TuneForStdio): main sets it; tests, which share a process, do not.
	OwnProcess bool
}

// Run runs the command line and returns the exit status.
func Run(ctx context.Context, args []string, sio IO) int {
	fs := flag.NewFlagSet("tmux-mcp", flag.ContinueOnError)
	fs.SetOutput(sio.Stderr)
	st := addFlags(fs, sio.Env)
	fs.Usage = func() {
		fmt.Fprint(sio.Stderr, usage)
		fs.PrintDefaults()
	}
	cmd, cmdArgs, err := parseArgs(fs, st, args)
	var misuse misuseError
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &misuse):
		fmt.Fprintln(sio.Stderr, "tmux-mcp:", err)
		return 2
	case err != nil: // the flag package has said what was wrong
		return 2
	case cmd == "help":
		fs.Usage()
		return 0
	case cmd == "version":
		fmt.Fprintln(sio.Stdout, "tmux-mcp", version())
		return 0
	}
	switch cmd {
	case "serve", "tools", "call", "doctor":
	default:
		fmt.Fprintf(sio.Stderr, "tmux-mcp: unknown command %q\n\n", cmd)
		fs.Usage()
		return 2
	}
	if cmd != "call" && len(cmdArgs) > 0 {
		fmt.Fprintf(sio.Stderr, "tmux-mcp: %s takes no arguments, got %q; `tmux-mcp --help` shows the usage\n", cmd, cmdArgs)
		return 2
	}
	opts, err := st.options(sio.Env, version(), sio.Stderr)
	if err != nil {
		fmt.Fprintln(sio.Stderr, "tmux-mcp:", err)
		return 2
	}
	if cmd != "tools" {
		bin := opts.TmuxBin
		if bin == "" {
			bin = "tmux"
		}
		if _, err := exec.LookPath(bin); err != nil {
			fmt.Fprintf(sio.Stderr, "tmux-mcp: cannot find the tmux binary %q: %v\nInstall tmux 3.2a or newer, or set LIBTMUX_TMUX_BIN (--tmux-bin).\n", bin, err)
			return 1
		}
	}
	stdio := cmd == "serve" && st.http == ""
	stdin := sio.Stdin
	if stdio && sio.OwnProcess {
		// Before the server is built: changing GOMAXPROCS later costs a stop of the world
		// with every P's cached memory to hand back.
		var restore func()
		stdin, restore = TuneForStdio(stdin, sio.Env)
		defer restore()
	}
	// Start-up is mostly garbage (see pauseGC): over stdio the collector resumes once the first
	// request is answered, anywhere else once the server is built.
	resumeGC := sync.OnceFunc(pauseGC())
	defer resumeGC()
	srv, err := server.New(opts)
	if err != nil {
		fmt.Fprintln(sio.Stderr, "tmux-mcp:", err)
		return 2
	}
	defer srv.Close()
	if !stdio {
		resumeGC()
	}
	if cmd != "doctor" { // doctor reports them itself
		for _, n := range srv.Notes() {
			fmt.Fprintln(sio.Stderr, "tmux-mcp: warning:", n)
		}
	}
	switch cmd {
	case "tools":
		return listTools(srv, sio.Stdout)
	case "call":
		return call(ctx, srv, cmdArgs, sio)
	case "doctor":
		return doctor(ctx, srv, st, opts, sio)
	}
	if st.http != "" {
		return serveHTTP(ctx, srv, st, sio)
	}
	if sio.StdinIsTerminal {
		fmt.Fprintln(sio.Stderr, "tmux-mcp speaks MCP (JSON-RPC) on stdin: add it to an MCP client rather than typing here; `tmux-mcp --help` shows the subcommands (Ctrl-D quits).")
	}
	fmt.Fprintf(sio.Stderr, "tmux-mcp %s: serving MCP on stdio; socket: %s; safety tier: %s\n", version(), st.socketLabel(), opts.Safety)
	// In a goroutine: the middleware runs before the reply is written.
	answered := sync.OnceFunc(func() { go resumeGC() })
	srv.MCP().AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			defer answered()
			return next(ctx, method, req)
		}
	})
	// wire.Transport, not the SDK's IOTransport, which ends the session on the first bad line.
	err = serveSession(ctx, srv.MCP(), &wire.Transport{Reader: stdin, Writer: sio.Stdout})
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) && ctx.Err() == nil {
		fmt.Fprintln(sio.Stderr, "tmux-mcp:", err)
		return 1
	}
	return 0
}

// serveSession serves one session over t until the client leaves or ctx ends. It is the
// go-sdk's Server.Run without its log lines: Run logs a stop by signal as an error ("server
// run cancelled"), and the server's log (Options.Logger) is for what went wrong.
func serveSession(ctx context.Context, ms *mcp.Server, t mcp.Transport) error {
	ss, err := ms.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case <-ctx.Done():
		ss.Close()
		<-ended
		return ctx.Err()
	case err := <-ended:
		return err
	}
}

func listTools(srv *server.Server, w io.Writer) int {
	for _, t := range srv.Tools() {
		fmt.Fprintf(w, "%-30s %-12s %-16s %s\n", t.Name, t.Tier, strings.Join(server.ToolsetsOf(t.Name), ","), t.Title)
	}
	return 0
}

func call(ctx context.Context, srv *server.Server, args []string, sio IO) int {
	if len(args) < 1 || len(args) > 2 {
		fmt.Fprintln(sio.Stderr, "usage: tmux-mcp call TOOL ['{\"json\":\"args\"}']")
		return 2
	}
	raw := json.RawMessage("{}")
	if len(args) == 2 {
		raw = json.RawMessage(args[1])
	}
	res, err := srv.Call(ctx, args[0], raw)
	if err != nil {
		fmt.Fprintln(sio.Stderr, "tmux-mcp:", err)
		return 2
	}
	b, _ := json.MarshalIndent(res, "", "  ")
	fmt.Fprintln(sio.Stdout, string(b))
	if res.IsError {
		return 1
	}
	return 0
}

// IsTerminal reports whether f is a character device (a terminal).
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// gcPause counts the callers that have the collector paused, so that concurrent Runs (tests)
// restore the setting found before the first of them.
var gcPause struct {
	sync.Mutex
	n, prev int
}

// pauseGC turns the garbage collector off until the returned function is called. Building the
// server registers 57 tools, and the go-sdk re-encodes and re-decodes each schema, and decodes
// each message, with a fresh 32 KB decoder buffer: a few MB of short-lived garbage. Collecting
// it during start-up costs time and memory (collector threads, and recycled buffers that must be
// zeroed, where fresh ones are touched only as far as they are used): measured over stdio, the
// initialize reply comes ~15% sooner and peak RSS is ~1.3 MB lower with the pause.
func pauseGC() (resume func()) {
	gcPause.Lock()
	if gcPause.n == 0 {
		gcPause.prev = debug.SetGCPercent(-1)
	}
	gcPause.n++
	gcPause.Unlock()
	return func() {
		gcPause.Lock()
		gcPause.n--
		if gcPause.n == 0 {
			debug.SetGCPercent(gcPause.prev)
		}
		gcPause.Unlock()
	}
}
