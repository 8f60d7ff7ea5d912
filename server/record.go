package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/record"
	"github.com/tmux-mcp/tmux-mcp/runner"
	"github.com/tmux-mcp/tmux-mcp/server/policy"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// recordTools: start_recording, stop_recording, list_recordings.
//
// Tiers: starting a recording writes a file, as pipe_pane does, so it is mutating; its
// annotations say destructive (overwrite=true replaces a file) and not idempotent (a second
// start on the same path is refused). Stopping is mutating and idempotent (stopping an ended
// recording returns its summary again). Listing only reads.
func recordTools() []*Tool {
	return []*Tool{
		define(spec{Name: "start_recording", Title: "Record a tmux Pane", Tier: policy.Mutating, Toolsets: []string{policy.Execute}, Ann: annDESTR,
			Description: "Record a pane to an asciicast v2 file, with run markers. Ends with the pane, at max_bytes, or by stop_recording.",
			Input:       edits(def("overwrite", false), def("max_bytes", record.DefaultMaxBytes), minimum("max_bytes", minRecordBytes), maximum("max_bytes", maxRecordBytes))},
			startRecording),
		define(spec{Name: "stop_recording", Title: "Stop Recording a tmux Pane", Tier: policy.Mutating, Toolsets: []string{policy.Execute}, Ann: annMUT,
			Description: "Stop a recording (output_path and/or pane_id)."},
			stopRecording),
		define(spec{Name: "list_recordings", Title: "List tmux Pane Recordings", Tier: policy.ReadOnly, Ann: annRO,
			Description: "List this server's recordings, running and recently ended."},
			listRecordings),
	}
}

// Recording sizes (max_bytes).
const (
	minRecordBytes = 4096
	maxRecordBytes = 1 << 30
	// keptEnded is how many ended recordings list_recordings and stop_recording remember.
	keptEnded = 32
)

type startRecordingIn struct {
	OutputPath string `json:"output_path" jsonschema:"Absolute; below LIBTMUX_MCP_PIPE_ROOT when set"`
	PaneTarget
	Overwrite bool    `json:"overwrite,omitempty"`
	MaxBytes  int64   `json:"max_bytes,omitempty"`
	Title     *string `json:"title,omitempty" jsonschema:"Default: the pane's command"`
	Socket
}

// RecordingStarted is start_recording's result.
type RecordingStarted struct {
	PaneID     string `json:"pane_id"`
	OutputPath string `json:"output_path"`
	Width      int    `json:"width"`
	Height     int    `json:"height"`
	Title      string `json:"title"`
	MaxBytes   int64  `json:"max_bytes"`
	StartedAt  string `json:"started_at" jsonschema:"RFC 3339"`
	Watch      string `json:"watch" jsonschema:"the command that plays the file (what was recorded so far)"`
}

// Text says what is recorded and how to watch it.
func (o RecordingStarted) Text() string {
	return fmt.Sprintf("Recording pane %s (%d×%d) to %s, at most %d bytes. Watch it with: %s (it plays what was recorded so far). Stop it with stop_recording.",
		o.PaneID, o.Width, o.Height, o.OutputPath, o.MaxBytes, o.Watch)
}

// RecordingSummary describes a recording.
type RecordingSummary struct {
	PaneID          string  `json:"pane_id"`
	OutputPath      string  `json:"output_path"`
	Title           string  `json:"title"`
	Running         bool    `json:"running"`
	Ended           string  `json:"ended" jsonschema:"how it ended: stopped, pane exited, tmux server exited, size limit reached, a write error; empty while running"`
	LimitReached    bool    `json:"limit_reached" jsonschema:"the recording stopped at max_bytes"`
	DurationSeconds float64 `json:"duration_seconds"`
	Bytes           int64   `json:"bytes"`
	MaxBytes        int64   `json:"max_bytes"`
	Events          int     `json:"events"`
	OutputEvents    int     `json:"output_events"`
	ResizeEvents    int     `json:"resize_events"`
	MarkerEvents    int     `json:"marker_events"`
	Width           int     `json:"width" jsonschema:"the pane's size at the last event"`
	Height          int     `json:"height"`
	Play            string  `json:"play"`
}

func summaryOut(s record.Summary) RecordingSummary {
	return RecordingSummary{PaneID: s.Pane, OutputPath: s.Path, Title: s.Title, Running: s.Ended == "", Ended: s.Ended, LimitReached: s.LimitReached,
		DurationSeconds: s.Duration.Seconds(), Bytes: s.Bytes, MaxBytes: s.MaxBytes, Events: s.Events, OutputEvents: s.Outputs,
		ResizeEvents: s.Resizes, MarkerEvents: s.Markers, Width: s.Width, Height: s.Height, Play: playCommand(s.Path)}
}

// playCommand is the shell command that plays a file.
func playCommand(path string) string { return "asciinema play " + shellQuote(path) }

// recordings are the recordings this server made: running ones by path, and the last ended.
// The zero value is ready.
type recordings struct {
	mu      sync.Mutex
	running map[string]*recEntry
	ended   []record.Summary // oldest first
	closed  bool
}

// recEntry is a running recording; rec is nil while it starts.
type recEntry struct {
	ts   *tmux.Server
	pane string
	rec  *record.Recording
}

func startRecording(ctx context.Context, c *Call, in *startRecordingIn) (RecordingStarted, error) {
	path, err := c.srv.recordPath(in.OutputPath)
	if err != nil {
		return RecordingStarted{}, err
	}
	t, err := c.pane(ctx, in.PaneTarget, in.SocketName)
	if err != nil {
		return RecordingStarted{}, err
	}
	rs := &c.srv.rec
	if err := rs.claim(path, t.ts, t.pane.PaneID); err != nil {
		return RecordingStarted{}, err
	}
	// Unlocked while it starts (it may wait for a stream connection): runs must not wait.
	o := record.Options{Path: path, Overwrite: in.Overwrite, MaxBytes: in.MaxBytes, Title: str(in.Title)}
	rec, err := record.Start(ctx, t.ts, t.pane.PaneID, o)
	if err == nil && !rs.started(path, rec) {
		rec.Stop()
		err = errors.New("the server is shutting down")
	}
	switch {
	case err == nil:
	case errors.Is(err, record.ErrExists):
		rs.unclaim(path)
		return RecordingStarted{}, fail("Pass overwrite=true to replace it, or choose another output_path.", "start_recording: %s exists", path)
	case errors.Is(err, tmux.ErrNotFound):
		rs.unclaim(path)
		return RecordingStarted{}, fail("List the live panes with list_panes and record one of them.", "start_recording: pane %s is gone or dead", t.pane.PaneID)
	default:
		rs.unclaim(path)
		return RecordingStarted{}, fmt.Errorf("start_recording: %w", err)
	}
	go rs.reap(path, rec)
	s := rec.Summary()
	return RecordingStarted{PaneID: s.Pane, OutputPath: path, Width: s.Width, Height: s.Height, Title: s.Title, MaxBytes: s.MaxBytes,
		StartedAt: s.Started.UTC().Format(time.RFC3339), Watch: playCommand(path)}, nil
}

// claim reserves a path and a pane for a recording about to start, refusing either when a
// recording has it.
func (rs *recordings) claim(path string, ts *tmux.Server, pane string) error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.closed {
		return errors.New("start_recording: the server is shutting down")
	}
	if _, busy := rs.running[path]; busy {
		return fail("Stop it with stop_recording, or choose another output_path.", "start_recording: %s is being recorded already", path)
	}
	for p, e := range rs.running {
		if e.ts == ts && e.pane == pane {
			return fail("Stop that recording first (stop_recording), or record another pane.", "start_recording: pane %s is being recorded already, to %s", pane, p)
		}
	}
	if rs.running == nil {
		rs.running = map[string]*recEntry{}
	}
	rs.running[path] = &recEntry{ts: ts, pane: pane}
	return nil
}

// started fills in a claimed entry; false when the server closed meanwhile.
func (rs *recordings) started(path string, rec *record.Recording) bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	e := rs.running[path]
	if rs.closed || e == nil {
		return false
	}
	e.rec = rec
	return true
}

func (rs *recordings) unclaim(path string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if e := rs.running[path]; e != nil && e.rec == nil {
		delete(rs.running, path)
	}
}

// reap moves a recording that ended by itself (or was stopped) to the ended list.
func (rs *recordings) reap(path string, rec *record.Recording) {
	<-rec.Done()
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if e := rs.running[path]; e != nil && e.rec == rec {
		delete(rs.running, path)
		rs.endedLocked(rec.Summary())
	}
}

// endedLocked remembers an ended recording, the last keptEnded of them.
func (rs *recordings) endedLocked(s record.Summary) {
	rs.ended = append(rs.ended, s)
	if len(rs.ended) > keptEnded {
		rs.ended = rs.ended[len(rs.ended)-keptEnded:]
	}
}

// recordPath checks output_path: absolute, then pipe_pane's checks (the pipe root with
// symlinks resolved, an existing directory, not a directory itself).
func (s *Server) recordPath(p string) (string, error) {
	if p == "" {
		return "", fail("Give the absolute path of the .cast file to write, e.g. "+filepath.Join(os.TempDir(), "pane.cast")+".", "output_path is empty")
	}
	if !strings.ContainsRune(p, 0) && !filepath.IsAbs(p) {
		return "", fail("Give an absolute path, e.g. "+filepath.Join(os.TempDir(), "pane.cast")+".", "output_path %q is relative; start_recording takes absolute paths only", truncate(p, 200))
	}
	return s.pipePath(p)
}

type stopRecordingIn struct {
	OutputPath *string `json:"output_path,omitempty"`
	PaneID     *string `json:"pane_id,omitempty"`
	Socket
}

func stopRecording(ctx context.Context, c *Call, in *stopRecordingIn) (RecordingSummary, error) {
	if in.OutputPath == nil && in.PaneID == nil {
		return RecordingSummary{}, fail("Pass output_path or pane_id (list_recordings shows both).", "stop_recording needs output_path or pane_id")
	}
	if err := checkIDs(in.PaneID, nil, nil); err != nil {
		return RecordingSummary{}, err
	}
	var ts *tmux.Server
	if in.PaneID != nil {
		var err error
		if ts, err = c.tmuxFor(in.SocketName); err != nil {
			return RecordingSummary{}, err
		}
	}
	var paths []string // the path as given, and as start_recording resolved it
	if in.OutputPath != nil {
		paths = append(paths, filepath.Clean(*in.OutputPath))
		if p, err := c.srv.recordPath(*in.OutputPath); err == nil {
			paths = append(paths, p)
		}
	}
	// Both given: they must name the same recording.
	match := func(s record.Summary, sts *tmux.Server) bool {
		if in.OutputPath != nil && !slices.Contains(paths, s.Path) {
			return false
		}
		return in.PaneID == nil || s.Pane == *in.PaneID && (sts == nil || sts == ts)
	}
	rs := &c.srv.rec
	rs.mu.Lock()
	var found *record.Recording
	for path, e := range rs.running {
		if e.rec != nil && match(e.rec.Summary(), e.ts) {
			found = e.rec
			delete(rs.running, path)
			break
		}
	}
	if found == nil {
		defer rs.mu.Unlock()
		for i := len(rs.ended) - 1; i >= 0; i-- {
			if match(rs.ended[i], nil) {
				return summaryOut(rs.ended[i]), nil
			}
		}
		return RecordingSummary{}, fail("list_recordings shows the recordings of this server.", "stop_recording: no recording of %s", strings.TrimSpace(str(in.OutputPath)+" "+str(in.PaneID)))
	}
	rs.mu.Unlock()
	s := found.Stop()
	rs.mu.Lock()
	rs.endedLocked(s)
	rs.mu.Unlock()
	return summaryOut(s), nil
}

type listRecordingsIn struct{}

// RecordingList is list_recordings' result.
type RecordingList struct {
	Recordings []RecordingSummary `json:"recordings"`
}

func listRecordings(ctx context.Context, c *Call, in *listRecordingsIn) (RecordingList, error) {
	rs := &c.srv.rec
	rs.mu.Lock()
	defer rs.mu.Unlock()
	out := RecordingList{Recordings: []RecordingSummary{}}
	var running []RecordingSummary
	for _, e := range rs.running {
		if e.rec != nil {
			running = append(running, summaryOut(e.rec.Summary()))
		}
	}
	sort.Slice(running, func(i, j int) bool { return running[i].OutputPath < running[j].OutputPath })
	out.Recordings = append(out.Recordings, running...)
	for i := len(rs.ended) - 1; i >= 0; i-- {
		out.Recordings = append(out.Recordings, summaryOut(rs.ended[i]))
	}
	return out, nil
}

// runBegan places a marker in the recording of a pane (if any) where a run_* command is about
// to be typed, and returns what places the marker of its end. A run still going when its call
// returns (timed out, waiting for input) is marked so then, and again with its exit status when
// it ends (rec, its record), if the recording still runs then.
func (rs *recordings) runBegan(ts *tmux.Server, pane, tool, command string) func(res runner.Result, err error, rec *runner.Record) {
	rs.mu.Lock()
	var recs []*record.Recording
	for _, e := range rs.running {
		if e.ts == ts && e.pane == pane && e.rec != nil {
			recs = append(recs, e.rec)
		}
	}
	rs.mu.Unlock()
	if len(recs) == 0 {
		return func(runner.Result, error, *runner.Record) {}
	}
	var releases []func()
	for _, r := range recs {
		r.Mark(fmt.Sprintf("%s began: %s", tool, truncate(firstLine(command), 200)))
		// The typed wrapper line is not written until the run hid it (redrew the command).
		releases = append(releases, r.Hold())
	}
	return func(res runner.Result, err error, rec *runner.Record) {
		for _, release := range releases {
			release()
		}
		markEnd(recs, tool, res, err)
		if err == nil && res.StillRunning && rec != nil {
			// Marked as it ends, before a wait_for_run sees the end (and a stop_recording
			// after it closes the file).
			rec.OnEnd(func(final runner.Result) { markEnd(recs, tool, final, nil) })
		}
	}
}

// markEnd marks in recs how a run of tool ended, or that its call returned while it runs.
func markEnd(recs []*record.Recording, tool string, res runner.Result, err error) {
	label := tool + " ended: " + string(res.Outcome)
	switch {
	case err != nil:
		label = tool + " ended: failed: " + truncate(err.Error(), 200)
	case res.ExitStatus != nil:
		label = fmt.Sprintf("%s ended: exit %d", tool, *res.ExitStatus)
	case res.StillRunning && res.WaitingForInput:
		label = tool + " returned: the command still runs, waiting for input"
	case res.StillRunning:
		label = tool + " returned: the command still runs (" + string(res.Outcome) + ")"
	}
	for _, r := range recs {
		r.Mark(label)
	}
}

// closeAll stops every recording (the server is closing), leaving complete files.
func (rs *recordings) closeAll() {
	rs.mu.Lock()
	all := rs.running
	rs.running, rs.closed = nil, true
	rs.mu.Unlock()
	for _, e := range all {
		if e.rec != nil {
			e.rec.Stop()
		}
	}
}
