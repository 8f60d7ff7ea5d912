// Command tmux-mcp-bench measures tmux-mcp end to end: it starts a private tmux server, drives
// the built binary over stdio with the go-sdk client, and prints medians and p95s next to the raw
// tmux floors measured in the same run, with the ratios.
//
//	go run ./cmd/tmux-mcp-bench [-n 1000] [-runs 30] [-idle 10s] [-scale=false] [-bin path/to/tmux-mcp] [-compare before=path/to/other/tmux-mcp]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == noopServerArg {
		serveNoop()
		return
	}
	var cfg config
	flag.IntVar(&cfg.n, "n", 1000, "timed calls of each cheap read (and of its control-mode floor)")
	flag.IntVar(&cfg.runs, "runs", 30, "calls of run_shell_command")
	flag.StringVar(&cfg.bin, "bin", "", "tmux-mcp binary (built from this checkout when empty)")
	flag.DurationVar(&cfg.idle, "idle", 10*time.Second, "idle measurement window (0 skips it)")
	flag.BoolVar(&cfg.scale, "scale", true, "measure list_panes over 1,000 panes and search_panes over 200 panes × 2,000 lines")
	flag.BoolVar(&cfg.remote, "remote", true, "measure a host over loopback ssh (a private sshd on 127.0.0.1; needs openssh-server)")
	compare := flag.String("compare", "", "other tmux-mcp binaries (comma list of label=path) whose start-up and list_sessions are measured beside this one's, in turns")
	flag.BoolVar(&cfg.compareOnly, "compare-only", false, "with -compare: only the comparison rows")
	only := flag.String("only", "", "only these groups of rows (comma list of "+strings.Join(stepNames(), ", ")+"); all when empty")
	flag.Parse()
	if *only != "" {
		cfg.only = strings.Split(*only, ",")
	}
	var err error
	if cfg.compare, err = parseBuilds(*compare); err == nil {
		err = run(cfg)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tmux-mcp-bench:", err)
		os.Exit(1)
	}
}

// config is what the flags ask for.
type config struct {
	bin           string
	n, runs       int
	idle          time.Duration
	scale, remote bool
	compare       []build // other builds measured beside this one (-compare)
	compareOnly   bool
	only          []string // names of the steps to run (all when empty)
}

// row is one line of the report.
type row struct {
	what, value, floor, ratio, target string
	// met says whether the target is met: "yes", "no", or "by ratio" when only the target
	// scaled by its reference floor is: each speed target is a ratio to a floor measured in the
	// same run, and the reference floors were measured on a faster machine than this one.
	met string
}

// Reference floors of the project's first speed targets, which scale those absolute targets to
// this machine.
const (
	refControl = 30 * time.Microsecond  // a control-mode round trip
	refEcho    = 200 * time.Microsecond // send-keys of echo and its output back
)

// Reference floors of the targets at scale, measured with them on a faster machine: they scale
// those absolute targets to this one in the same way.
const (
	refStart     = 3350 * time.Microsecond // tmux-mcp's process start (tmux-mcp version)
	refListPanes = 22 * time.Millisecond   // control-mode list-panes -a over 1,000 panes
	refHistory   = 700 * time.Microsecond  // control-mode capture-pane -S of 2,000 lines
)

// verdict compares a value with an absolute target and, when the machine's floor is known,
// with the target scaled by floor/ref.
func verdict(value, target, floor, ref time.Duration) string {
	switch {
	case value <= target:
		return "yes"
	case floor > 0 && ref > 0 && float64(value)/float64(floor) <= float64(target)/float64(ref):
		return "by ratio"
	}
	return "no"
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

func run(cfg config) error {
	dir, err := os.MkdirTemp("", "tmb")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if cfg.bin == "" {
		if cfg.bin, err = buildHere(dir); err != nil {
			return err
		}
	}
	tmx, err := newTmux(dir)
	if err != nil {
		return err
	}
	defer tmx.kill()
	ctx := context.Background()
	var rows []row
	if len(cfg.compare) > 0 {
		builds := append([]build{{label: "this build", bin: cfg.bin}}, cfg.compare...)
		more, err := compareRows(ctx, builds, tmx, cfg.n)
		if err != nil {
			return err
		}
		rows = append(rows, more...)
		if cfg.compareOnly {
			printRows(rows)
			return nil
		}
	}
	cl, err := connect(ctx, cfg.bin, tmx)
	if err != nil {
		return err
	}
	defer cl.close()
	b := &bench{ctx: ctx, cfg: cfg, dir: dir, tmx: tmx, cl: cl}
	for _, step := range steps {
		if len(cfg.only) > 0 && !slices.Contains(cfg.only, step.name) {
			continue
		}
		more, err := step.rows(b)
		if err != nil {
			return err
		}
		rows = append(rows, more...)
	}
	printRows(rows)
	return nil
}

// buildHere builds tmux-mcp from this checkout into dir: static, as the README's install
// command builds it.
func buildHere(dir string) (string, error) {
	bin := filepath.Join(dir, "tmux-mcp")
	build := exec.Command("go", "build", "-o", bin, "./cmd/tmux-mcp")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("building tmux-mcp (run from the repository root, or pass -bin): %w", err)
	}
	return bin, nil
}

// bench is what every step of a run shares: the tmux server and the client of the server
// under test.
type bench struct {
	ctx context.Context
	cfg config
	dir string
	tmx *benchTmux
	cl  *client
	// ls and rs are the local list_sessions and run_shell_command samples, which the remote
	// rows compare with.
	ls, rs samples
}

// startupRows times starts of the server, each beside the floor of a start: the same binary
// doing nothing (tmux-mcp version), the cost of starting a Go program of this size here. Starts
// and floors alternate, so that a noisy moment weighs on both alike.
func startupRows(b *bench) ([]row, error) {
	startups, listed, startFloor := samples{b.cl.startup}, samples{b.cl.listed}, samples{}
	var bareListed samples
	for i := 0; i < 10; i++ {
		t0 := time.Now()
		if err := exec.Command(b.cfg.bin, "version").Run(); err != nil {
			return nil, err
		}
		startFloor = append(startFloor, time.Since(t0))
		c, err := connect(b.ctx, b.cfg.bin, b.tmx)
		if err != nil {
			return nil, err
		}
		c.close()
		startups = append(startups, c.startup)
		listed = append(listed, c.listed)
		_, li, err := rawStartup(b.tmx.serverCmd(b.cfg.bin))
		if err != nil {
			return nil, err
		}
		bareListed = append(bareListed, li)
	}
	floor := "tmux-mcp version (process start) " + stat(startFloor)
	rows := []row{
		{what: fmt.Sprintf("startup to initialize reply (n=%d)", len(startups)), value: stat(startups), floor: floor, ratio: ratio(startups, startFloor), target: "≤ 20 ms",
			met: yesNo(startups.pct(0.5) <= 20*time.Millisecond)},
		// The go-sdk client's own work on a 57 KB list (it decodes every tool's schemas) is in
		// this row; the next, with a bare client, has the server's alone.
		{what: "startup to tools/list reply, go-sdk client", value: stat(listed), floor: floor, ratio: ratio(listed, startFloor)},
		{what: fmt.Sprintf("startup to tools/list reply, bare JSON-RPC client (n=%d)", len(bareListed)), value: stat(bareListed), floor: floor, ratio: ratio(bareListed, startFloor),
			target: "≤ 10 ms", met: verdict(bareListed.pct(0.5), 10*time.Millisecond, startFloor.pct(0.5), refStart)},
	}
	sizes, err := toolsListRows(b.cfg.bin, b.tmx)
	return append(rows, sizes...), err
}

// cheapReadRows times list_sessions with its floors: the go-sdk client, a bare client and a
// bare control-mode client, each for n calls in a row. Back to back, as the reference
// floors were measured: on these VMs a call after an idle moment is slower in every process
// involved (docs/performance.md, Running the benchmark).
func cheapReadRows(b *bench) ([]row, error) {
	raw, err := startRaw(b.cfg.bin, b.tmx)
	if err != nil {
		return nil, err
	}
	defer raw.close()
	floor, err := b.tmx.controlFloor()
	if err != nil {
		return nil, err
	}
	defer floor.close()
	n := b.cfg.n
	timeN := func(f func() error) (samples, error) { return timeSamples(warmup, n, f) }
	ls, err := timeN(func() error { _, err := b.cl.call(b.ctx, "list_sessions", map[string]any{}); return err })
	if err != nil {
		return nil, err
	}
	b.ls = ls
	bare, err := timeN(func() error { return raw.callTool("list_sessions") })
	if err != nil {
		return nil, err
	}
	ctlFloor, err := timeN(floor.listSessions)
	if err != nil {
		return nil, err
	}
	sdkFloor, bareSDKFloor, err := noopFloors(b.ctx, timeN)
	if err != nil {
		return nil, err
	}
	spawnFloor, err := b.tmx.timeSpawned(n/10+1, "list-sessions")
	if err != nil {
		return nil, err
	}
	return []row{
		{what: fmt.Sprintf("list_sessions over stdio, go-sdk client (n=%d)", n), value: stat(ls), floor: "spawned tmux list-sessions " + stat(spawnFloor), ratio: ratio(ls, spawnFloor), target: "median ≤ 0.3 ms (10× a 0.03 ms round trip)",
			met: verdict(ls.pct(0.5), 300*time.Microsecond, ctlFloor.pct(0.5), refControl)},
		{what: "", floor: "control-mode round trip " + stat(ctlFloor), ratio: ratio(ls, ctlFloor)},
		{what: "", floor: "go-sdk server, no-op tool " + stat(sdkFloor), ratio: ratio(ls, sdkFloor)},
		{what: fmt.Sprintf("list_sessions over stdio, bare JSON-RPC client (n=%d)", n), value: stat(bare), floor: "control-mode round trip " + stat(ctlFloor), ratio: ratio(bare, ctlFloor)},
		{what: "", floor: "go-sdk server, no-op tool " + stat(bareSDKFloor), ratio: ratio(bare, bareSDKFloor)},
	}, nil
}

// runRows times run_shell_command beside send-keys of echo and its output seen back, a bash
// subshell typed by hand and the run's own wrapper script typed by hand.
func runRows(b *bench) ([]row, error) {
	if !b.cl.has("run_shell_command") {
		return nil, nil
	}
	runs := b.cfg.runs
	rs, echo, sub, wrap, err := runSamples(b, runs)
	if err != nil {
		return nil, err
	}
	b.rs = rs
	// The target is judged on the echo floor alone; the subshell and the wrapper typed by hand
	// say how much of a run is the shell's own work, which the design's subshell cannot avoid.
	return []row{{what: fmt.Sprintf("run_shell_command true, bash (n=%d)", runs), value: stat(rs), floor: "send-keys echo + output back " + stat(echo), ratio: ratio(rs, echo), target: "median ≤ 3 ms, p95 ≤ 6 ms (15×, 30× a 0.2 ms echo)",
		met: worse(verdict(rs.pct(0.5), 3*time.Millisecond, echo.pct(0.5), refEcho), verdict(rs.pct(0.95), 6*time.Millisecond, echo.pct(0.5), refEcho))},
		{what: "", floor: "bash ( true ) typed by hand " + stat(sub), ratio: ratio(rs, sub)},
		{what: "", floor: "the wrapper typed by hand " + stat(wrap), ratio: ratio(rs, wrap)},
		{what: "  tmux-mcp's own share (run minus the wrapper typed by hand)", value: ms(rs.pct(0.5) - wrap.pct(0.5))},
	}, nil
}

// runSamples times n runs of true and n of each floor in rounds of ten, in turns: the load of
// these machines moves within a minute, and a floor timed after all the runs met another load.
func runSamples(b *bench, n int) (rs, echo, sub, wrap samples, err error) {
	args := map[string]any{"paneId": b.tmx.pane, "command": "true"}
	for done := 0; done < n && err == nil; done += 10 {
		k := min(10, n-done)
		var r, e, s, w samples
		if r, err = b.cl.timeCalls(b.ctx, "run_shell_command", args, k); err != nil {
			break
		}
		if e, err = b.tmx.timeEcho(b.ctx, k); err != nil {
			break
		}
		if s, err = b.tmx.timeSubshell(b.ctx, k); err != nil {
			break
		}
		w, err = b.tmx.timeWrapper(b.ctx, k)
		rs, echo, sub, wrap = append(rs, r...), append(echo, e...), append(sub, s...), append(wrap, w...)
	}
	return rs, echo, sub, wrap, err
}

func waitRows(b *bench) ([]row, error) {
	if !b.cl.has("wait_for_text") {
		return nil, nil
	}
	wake, err := b.cl.timeWake(b.ctx, b.tmx, 20)
	if err != nil {
		return nil, err
	}
	return []row{{what: "wait_for_text wake-up (print seen by tmux → result)", value: stat(wake), target: "median ≤ 1 ms", met: yesNo(wake.pct(0.5) <= time.Millisecond)}}, nil
}

func screenshotStep(b *bench) ([]row, error) {
	if !b.cl.has("screenshot_pane") {
		return nil, nil
	}
	return screenshotRows(b.ctx, b.cfg.bin, b.tmx, b.dir, b.cfg.runs)
}

func idleRows(b *bench) ([]row, error) {
	idle := b.cfg.idle
	if idle <= 0 || !b.cl.has("capture_since") {
		return nil, nil
	}
	cpu, watched, err := b.cl.idleCPU(b.ctx, b.tmx, idle)
	if err != nil {
		return nil, err
	}
	return []row{{what: fmt.Sprintf("idle CPU over %v, %d watched panes", idle, watched), value: ms(cpu), target: "≤ 5 ms", met: yesNo(cpu <= 5*time.Millisecond)}}, nil
}

func remoteStep(b *bench) ([]row, error) {
	if !b.cfg.remote {
		return nil, nil
	}
	return remoteRows(b.ctx, b.cfg.bin, b.dir, b.cfg.n, b.cfg.runs, b.ls, b.rs)
}

func rssRows(b *bench) ([]row, error) {
	rss := float64(b.cl.peakRSS()) / 1024
	return []row{{what: "peak RSS of the server", value: fmt.Sprintf("%.1f MB", rss), target: "≤ 15 MB", met: yesNo(rss <= 15)}}, nil
}

func memoryStep(b *bench) ([]row, error) {
	if !b.cl.has("run_shell_command") {
		return nil, nil
	}
	return memoryRows(b.ctx, b.cfg.bin, b.tmx)
}

func scaleStep(b *bench) ([]row, error) {
	if !b.cfg.scale {
		return nil, nil
	}
	return scaleRows(b.ctx, b.cfg.bin, b.dir)
}

// historyStep is the scale group's capture_pane of 2,000 lines alone (not run by default:
// scale has it).
func historyStep(b *bench) ([]row, error) {
	if !slices.Contains(b.cfg.only, "history") {
		return nil, nil
	}
	return historyOnlyRows(b.ctx, b.cfg.bin, b.dir)
}

// steps are the groups of rows, in the order they run, by the names -only takes.
var steps = []struct {
	name string
	rows func(*bench) ([]row, error)
}{
	{"startup", startupRows}, {"cheap", cheapReadRows}, {"run", runRows}, {"wait", waitRows},
	{"screenshot", screenshotStep}, {"idle", idleRows}, {"remote", remoteStep}, {"rss", rssRows},
	{"memory", memoryStep}, {"scale", scaleStep}, {"history", historyStep},
}

func stepNames() []string {
	names := make([]string, len(steps))
	for i, s := range steps {
		names[i] = s.name
	}
	return names
}

func printRows(rows []row) {
	fmt.Printf("tmux-mcp benchmark (%s, GOMAXPROCS from %d CPUs)\n\n", tmuxVersion(), numCPU())
	w := [5]int{}
	for _, r := range append([]row{header}, rows...) {
		for i, s := range []string{r.what, r.value, r.floor, r.ratio, r.met} {
			w[i] = max(w[i], len([]rune(s)))
		}
	}
	for _, r := range append([]row{header}, rows...) {
		fmt.Printf("%s  %s  %s  %s  %s  %s\n", pad(r.what, w[0]), pad(r.value, w[1]), pad(r.floor, w[2]), pad(r.ratio, w[3]), pad(r.met, w[4]), r.target)
	}
}

var header = row{what: "what", value: "median / p95", floor: "floor in the same run", ratio: "ratio", met: "met", target: "target (docs/performance.md)"}

// pad pads s with spaces to n runes (fmt's widths count bytes, and the table holds × and ≤).
func pad(s string, n int) string {
	return s + strings.Repeat(" ", max(0, n-len([]rune(s))))
}

// worse is the weaker of two verdicts.
func worse(a, b string) string {
	for _, v := range []string{"no", "by ratio"} {
		if a == v || b == v {
			return v
		}
	}
	return a
}

// durations of repeated measurements.
type samples []time.Duration

// timeSamples times n calls of f after warm untimed ones.
func timeSamples(warm, n int, f func() error) (samples, error) {
	for i := 0; i < warm; i++ {
		if err := f(); err != nil {
			return nil, err
		}
	}
	var s samples
	for i := 0; i < n; i++ {
		start := time.Now()
		if err := f(); err != nil {
			return nil, err
		}
		s = append(s, time.Since(start))
	}
	return s, nil
}

// minus is s less floor, sample by sample (the two taken in turns).
func (s samples) minus(floor samples) samples {
	d := make(samples, min(len(s), len(floor)))
	for i := range d {
		d[i] = s[i] - floor[i]
	}
	return d
}

func (s samples) pct(p float64) time.Duration {
	if len(s) == 0 {
		return 0
	}
	c := append(samples(nil), s...)
	sort.Slice(c, func(i, j int) bool { return c[i] < c[j] })
	i := int(p*float64(len(c)-1) + 0.5)
	return c[i]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d.Microseconds())/1000) }

func stat(s samples) string {
	return fmt.Sprintf("%s / %s", strings.TrimSuffix(ms(s.pct(0.5)), " ms"), ms(s.pct(0.95)))
}

func ratio(a, floor samples) string {
	f := floor.pct(0.5)
	if f == 0 {
		return ""
	}
	return fmt.Sprintf("%.2f×", float64(a.pct(0.5))/float64(f))
}

// noopFloors times the go-sdk's own round trip (see noopServerArg) with the go-sdk client and
// with the bare one.
func noopFloors(ctx context.Context, timeN func(func() error) (samples, error)) (sdk, bare samples, err error) {
	cmd, err := noopCommand()
	if err != nil {
		return nil, nil, err
	}
	cl, err := connectCmd(ctx, cmd)
	if err != nil {
		return nil, nil, err
	}
	defer cl.close()
	if sdk, err = timeN(func() error { _, err := cl.call(ctx, "noop", map[string]any{}); return err }); err != nil {
		return nil, nil, err
	}
	if cmd, err = noopCommand(); err != nil {
		return nil, nil, err
	}
	raw, err := startRawCmd(cmd)
	if err != nil {
		return nil, nil, err
	}
	defer raw.close()
	bare, err = timeN(func() error { return raw.callTool("noop") })
	return sdk, bare, err
}
