package record

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/asciicast"
)

func testWriter(t *testing.T) (*writer, *bytes.Buffer) {
	var b bytes.Buffer
	aw, err := asciicast.NewWriter(&b, asciicast.Header{Width: 10, Height: 2}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return &writer{r: &Recording{w: aw, start: time.Now()}}, &b
}

// TestWriterEvents: a UTF-8 character split between chunks is written whole; marks land at
// the offset they were placed at; lost output is marked.
func TestWriterEvents(t *testing.T) {
	w, b := testWriter(t)
	w.r.marks = []mark{{at: 2, label: "at 2"}, {at: 9, label: "later"}}
	w.output([]byte("ab\xe4\xb8"), 0) // "ab", then half of 中
	w.output([]byte("\xadc"), 4)
	w.lost(100)
	w.pendingMarks(9)
	w.flush()
	_, evs, err := asciicast.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		got = append(got, e.Code+":"+e.Data)
	}
	want := "o:ab|m:at 2|o:中c|m:output lost: 100 bytes went by faster than they could be recorded|m:later"
	if strings.Join(got, "|") != want {
		t.Errorf("events\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
	if s := w.r.sum; s.Outputs != 2 || s.Markers != 3 {
		t.Errorf("counts %+v", s)
	}
}
