// Package asciicast writes and reads asciicast v2 recordings, the format asciinema records and
// plays: a JSON header object on the first line, then one event a line, each a JSON array
// [time, code, data]: time in seconds since the start, code "o" (output), "i" (input), "r"
// (resize, data "COLSxROWS") or "m" (marker, data a label).
package asciicast

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// Event codes.
const (
	Output = "o"
	Input  = "i"
	Resize = "r"
	Marker = "m"
)

// Header is the first line of a recording.
type Header struct {
	Version   int               `json:"version"`
	Width     int               `json:"width"`
	Height    int               `json:"height"`
	Timestamp int64             `json:"timestamp,omitempty"` // unix seconds of the start
	Title     string            `json:"title,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
}

// Event is one event line.
type Event struct {
	Time float64 // seconds since the start
	Code string
	Data string
}

// ErrLimit means an event would take the recording past its size limit; it was not written.
var ErrLimit = errors.New("asciicast: size limit reached")

// finalRoom is what a limited Writer keeps free for Close's closing marker.
const finalRoom = 512

// Writer writes a recording. It is not safe for concurrent use.
type Writer struct {
	w      *bufio.Writer
	limit  int64 // 0: none
	bytes  int64
	events int
	last   float64
	line   []byte
}

// NewWriter writes the header (Version is set to 2) and returns a Writer whose file stays
// within limit bytes (0 for no limit; at least the header and one closing marker are written).
func NewWriter(w io.Writer, h Header, limit int64) (*Writer, error) {
	h.Version = 2
	b, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("asciicast header: %w", err)
	}
	aw := &Writer{w: bufio.NewWriterSize(w, 32<<10), limit: limit}
	if _, err := aw.w.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	aw.bytes = int64(len(b) + 1)
	return aw, nil
}

// Write writes one event at t since the start. Times never go backwards: an earlier t is
// written as the time of the event before. It returns ErrLimit, writing nothing, when the
// event would leave less than room for a closing marker under the limit.
func (w *Writer) Write(t time.Duration, code, data string) error {
	return w.write(t, code, data, finalRoom)
}

func (w *Writer) write(t time.Duration, code, data string, room int64) error {
	secs := max(t.Seconds(), w.last)
	line := w.line[:0]
	line = append(line, '[')
	line = strconv.AppendFloat(line, secs, 'f', 6, 64)
	line = append(line, ", "...)
	line = appendJSONString(line, code)
	line = append(line, ", "...)
	line = appendJSONString(line, data)
	line = append(line, "]\n"...)
	w.line = line
	if w.limit > 0 && w.bytes+int64(len(line))+room > w.limit {
		return ErrLimit
	}
	if _, err := w.w.Write(line); err != nil {
		return err
	}
	w.bytes += int64(len(line))
	w.events++
	w.last = secs
	return nil
}

// appendJSONString appends s as a JSON string; invalid UTF-8 becomes U+FFFD, as
// encoding/json writes it.
func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}

// Close writes a closing marker (when label is not ""), whatever the limit, and flushes.
func (w *Writer) Close(t time.Duration, label string) error {
	if label != "" {
		if len(label) > finalRoom-64 {
			label = label[:finalRoom-64]
		}
		if err := w.write(t, Marker, label, 0); err != nil {
			return err
		}
	}
	return w.Flush()
}

// Flush writes the buffered events out.
func (w *Writer) Flush() error { return w.w.Flush() }

// Bytes is the size of the recording so far (flushed or not).
func (w *Writer) Bytes() int64 { return w.bytes }

// Events is how many events were written.
func (w *Writer) Events() int { return w.events }

// Read parses a whole recording, checking it line by line: a version 2 header with a size,
// then events with non-decreasing times, a known code and string data.
func Read(r io.Reader) (Header, []Event, error) {
	var h Header
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return h, nil, err
		}
		return h, nil, errors.New("asciicast: empty file")
	}
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
		return h, nil, fmt.Errorf("asciicast: header: %w", err)
	}
	if h.Version != 2 || h.Width <= 0 || h.Height <= 0 {
		return h, nil, fmt.Errorf("asciicast: header has version %d and size %dx%d; want version 2 and a size", h.Version, h.Width, h.Height)
	}
	var evs []Event
	last := 0.0
	for n := 2; sc.Scan(); n++ {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		ev, err := parseEvent(sc.Bytes())
		if err != nil {
			return h, evs, fmt.Errorf("asciicast: line %d: %w", n, err)
		}
		if ev.Time < last {
			return h, evs, fmt.Errorf("asciicast: line %d: time %g goes back from %g", n, ev.Time, last)
		}
		last = ev.Time
		evs = append(evs, ev)
	}
	return h, evs, sc.Err()
}

func parseEvent(line []byte) (Event, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return Event{}, err
	}
	if len(raw) != 3 {
		return Event{}, fmt.Errorf("an event has 3 elements, not %d", len(raw))
	}
	var ev Event
	if err := json.Unmarshal(raw[0], &ev.Time); err != nil || ev.Time < 0 {
		return ev, fmt.Errorf("bad time %s", raw[0])
	}
	if err := json.Unmarshal(raw[1], &ev.Code); err != nil {
		return ev, fmt.Errorf("bad code %s", raw[1])
	}
	if err := json.Unmarshal(raw[2], &ev.Data); err != nil {
		return ev, fmt.Errorf("bad data: %v", err)
	}
	switch ev.Code {
	case Output, Input, Marker:
	case Resize:
		if _, _, err := ParseSize(ev.Data); err != nil {
			return ev, err
		}
	default:
		return ev, fmt.Errorf("unknown event code %q", ev.Code)
	}
	return ev, nil
}

// ParseSize reads a resize event's "COLSxROWS".
func ParseSize(s string) (cols, rows int, err error) {
	c, r, ok := strings.Cut(s, "x")
	cols, err1 := strconv.Atoi(c)
	rows, err2 := strconv.Atoi(r)
	if !ok || err1 != nil || err2 != nil || cols <= 0 || rows <= 0 {
		return 0, 0, fmt.Errorf("resize data %q is not COLSxROWS", s)
	}
	return cols, rows, nil
}

// SizeData is a resize event's data.
func SizeData(cols, rows int) string { return strconv.Itoa(cols) + "x" + strconv.Itoa(rows) }

// ReadFile reads and checks the recording in a file (see Read).
func ReadFile(path string) (Header, []Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, nil, err
	}
	defer f.Close()
	return Read(f)
}

// OutputText joins the data of the output events: what a player prints.
func OutputText(evs []Event) string {
	var b strings.Builder
	for _, e := range evs {
		if e.Code == Output {
			b.WriteString(e.Data)
		}
	}
	return b.String()
}
