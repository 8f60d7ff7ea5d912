// Package cli is the tmux-mcp command line: serving MCP over stdio or HTTP, and the tools,
// call, doctor and version subcommands. main only calls Run, so all of it is testable.
package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
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
  tmux-mcp tools [NAME] [flags]         list the tools a client would be offered, with their tier (NAME: its arguments)
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

// command is one subcommand of the command line.
type command struct {
	name   string
	server bool // runs on a server built from the flags (invocation.srv)
	args   bool // takes arguments (call: the tool and its JSON); the others take none
	run    func(ctx context.Context, in *invocation) int
}

var commands = []command{
	{name: "serve", server: true, run: serve},
	{name: "tools", server: true, args: true, run: func(_ context.Context, in *invocation) int { return listTools(in.srv, in.args, in.sio) }},
	{name: "call", server: true, args: true, run: func(ctx context.Context, in *invocation) int { return call(ctx, in.srv, in.args, in.sio) }},
	{name: "doctor", server: true, run: func(ctx context.Context, in *invocation) int { return doctor(ctx, in.srv, in.st, in.opts, in.sio) }},
	{name: "version", run: func(_ context.Context, in *invocation) int {
		fmt.Fprintln(in.sio.Stdout, "tmux-mcp", version())
		return 0
	}},
	{name: "help", run: func(_ context.Context, in *invocation) int {
		in.fs.Usage()
		return 0
	}},
}

// invocation is one run of the command line: what the flags said, and the server built.
type invocation struct {
	sio      IO
	fs       *flag.FlagSet
	st       *settings
	args     []string // the command's arguments
	opts     server.Options
	srv      *server.Server
	stdin    io.Reader // sio.Stdin, or the poller's view of it (TuneForStdio)
	resumeGC func()    // turns the collector back on (pauseGC)
	restore  func()    // undoes TuneForStdio
}

// Run runs the command line and returns the exit status.
func Run(ctx context.Context, args []string, sio IO) int {
	in := &invocation{sio: sio, fs: flag.NewFlagSet("tmux-mcp", flag.ContinueOnError)}
	in.fs.SetOutput(sio.Stderr)
	in.st = addFlags(in.fs, sio.Env)
	in.fs.Usage = func() {
		fmt.Fprint(sio.Stderr, usage)
		in.fs.PrintDefaults()
	}
	name, cmdArgs, err := parseArgs(in.fs, in.st, args)
	var misuse misuseError
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &misuse):
		fmt.Fprintln(sio.Stderr, "tmux-mcp:", err)
		return 2
	case err != nil: // the flag package has said what was wrong
		return 2
	}
	i := slices.IndexFunc(commands, func(c command) bool { return c.name == name })
	switch {
	case i < 0:
		fmt.Fprintf(sio.Stderr, "tmux-mcp: unknown command %q\n\n", name)
		in.fs.Usage()
		return 2
	case !commands[i].server:
		return commands[i].run(ctx, in)
	case !commands[i].args && len(cmdArgs) > 0:
		fmt.Fprintf(sio.Stderr, "tmux-mcp: %s takes no arguments, got %q; `tmux-mcp --help` shows the usage\n", name, cmdArgs)
		return 2
	}
	in.args = cmdArgs
	defer in.cleanup()
	if code := in.build(name); code >= 0 {
		return code
	}
	return commands[i].run(ctx, in)
}

// cleanup undoes what build did, the server first.
func (in *invocation) cleanup() {
	for _, f := range []func(){in.closeServer, in.resumeGC, in.restore} {
		if f != nil {
			f()
		}
	}
}

func (in *invocation) closeServer() {
	if in.srv != nil {
		in.srv.Close()
	}
}

// build makes the invocation's server for command name: the options, the tmux binary (but
// for tools), the process tuned for stdio, the server itself and its notes. It returns an
// exit status when that failed, else -1.
func (in *invocation) build(name string) int {
	sio := in.sio
	var err error
	if in.opts, err = in.st.options(sio.Env, version(), sio.Stderr); err != nil {
		fmt.Fprintln(sio.Stderr, "tmux-mcp:", err)
		return 2
	}
	if name != "tools" {
		bin := cmp.Or(in.opts.TmuxBin, "tmux")
		if _, err := exec.LookPath(bin); err != nil {
			fmt.Fprintf(sio.Stderr, "tmux-mcp: cannot find the tmux binary %q: %v\nInstall tmux 3.2a or newer, or set LIBTMUX_TMUX_BIN (--tmux-bin).\n", bin, err)
			return 1
		}
	}
	stdio := name == "serve" && in.st.http == ""
	in.stdin = sio.Stdin
	if stdio && sio.OwnProcess {
		// Before the server is built: changing GOMAXPROCS later costs a stop of the world
		// with every P's cached memory to hand back.
		in.stdin, in.restore = TuneForStdio(in.stdin, sio.Env)
	}
	// Start-up is mostly garbage (see pauseGC): over stdio the collector resumes once the first
	// request is answered, anywhere else once the server is built.
	in.resumeGC = sync.OnceFunc(pauseGC())
	srv, err := server.New(in.opts)
	if err != nil {
		fmt.Fprintln(sio.Stderr, "tmux-mcp:", err)
		return 2
	}
	in.srv = srv
	if !stdio {
		in.resumeGC()
	}
	if name != "doctor" { // doctor reports them itself
		for _, n := range in.srv.Notes() {
			fmt.Fprintln(sio.Stderr, "tmux-mcp: warning:", n)
		}
	}
	return -1
}

// serve serves MCP over HTTP (--http) or stdio.
func serve(ctx context.Context, in *invocation) int {
	sio, srv := in.sio, in.srv
	if in.st.http != "" {
		return serveHTTP(ctx, srv, in.st, sio)
	}
	if sio.StdinIsTerminal {
		fmt.Fprintln(sio.Stderr, "tmux-mcp speaks MCP (JSON-RPC) on stdin: add it to an MCP client rather than typing here; `tmux-mcp --help` shows the subcommands (Ctrl-D quits).")
	}
	fmt.Fprintf(sio.Stderr, "tmux-mcp %s: serving MCP on stdio; socket: %s; safety tier: %s\n", version(), in.st.socketLabel(), in.opts.Safety)
	// In a goroutine: the middleware runs before the reply is written.
	answered := sync.OnceFunc(func() { go in.resumeGC() })
	srv.MCP().AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			defer answered()
			return next(ctx, method, req)
		}
	})
	// wire.Transport, not the SDK's IOTransport, which ends the session on the first bad line.
	err := serveSession(ctx, srv.MCP(), &wire.Transport{Reader: in.stdin, Writer: sio.Stdout})
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

func listTools(srv *server.Server, args []string, sio IO) int {
	switch len(args) {
	case 0:
		for _, t := range srv.Tools() {
			fmt.Fprintf(sio.Stdout, "%-30s %-12s %-16s %s\n", t.Name, t.Tier, strings.Join(server.ToolsetsOf(t.Name), ","), t.Title)
		}
		return 0
	case 1:
		return describeTool(srv, args[0], sio)
	}
	fmt.Fprintln(sio.Stderr, "usage: tmux-mcp tools [NAME]")
	return 2
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
	printResult(sio.Stdout, res)
	if res.IsError {
		return 1
	}
	return 0
}

// printResult prints a result once: its structured content as indented JSON when it has one
// (the text block holds the same), else its text; other content is named, not dumped.
func printResult(w io.Writer, res *mcp.CallToolResult) {
	if res.StructuredContent != nil && !res.IsError {
		b, err := json.MarshalIndent(res.StructuredContent, "", "  ")
		if err == nil {
			fmt.Fprintln(w, string(b))
		}
	}
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			if res.StructuredContent == nil || res.IsError {
				fmt.Fprintln(w, c.Text)
			}
		case *mcp.ImageContent:
			fmt.Fprintf(w, "[%s image, %d bytes]\n", c.MIMEType, len(c.Data))
		default:
			fmt.Fprintf(w, "[%T content]\n", c)
		}
	}
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
// zeroed, where fresh ones are touched only as far as they are used), so the pause makes the
// initialize reply sooner and peak RSS lower (docs/performance.md).
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
