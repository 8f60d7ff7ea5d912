package asciicast

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestWriteRead(t *testing.T) {
	var b bytes.Buffer
	w, err := NewWriter(&b, Header{Width: 80, Height: 24, Timestamp: 1700000000, Title: "bash"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	ms := time.Millisecond
	for _, e := range []struct {
		t          time.Duration
		code, data string
	}{
		{10 * ms, Output, "$ ls\r\n\x1b[31mred\x1b[0m <&>\n"},
		{5 * ms, Output, "earlier\xff"}, // time clamps forward; invalid UTF-8 becomes U+FFFD
		{20 * ms, Resize, SizeData(100, 30)},
		{30 * ms, Marker, "run_shell_command began: make"},
	} {
		if err := w.Write(e.t, e.code, e.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(40*ms, "stopped"); err != nil {
		t.Fatal(err)
	}
	if w.Bytes() != int64(b.Len()) || w.Events() != 5 {
		t.Errorf("Bytes %d (file %d), Events %d", w.Bytes(), b.Len(), w.Events())
	}
	first := strings.SplitN(b.String(), "\n", 3)
	if first[0] != `{"version":2,"width":80,"height":24,"timestamp":1700000000,"title":"bash"}` || first[1] != `[0.010000, "o", "$ ls\r\n\u001b[31mred\u001b[0m \u003c\u0026\u003e\n"]` {
		t.Errorf("lines:\n%s\n%s", first[0], first[1])
	}
	h, evs, err := Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if h.Width != 80 || h.Title != "bash" || len(evs) != 5 || evs[1].Time != 0.01 || evs[1].Data != "earlier\ufffd" || evs[4] != (Event{0.04, Marker, "stopped"}) {
		t.Errorf("read back %+v %+v", h, evs)
	}
}

func TestLimit(t *testing.T) {
	var b bytes.Buffer
	w, _ := NewWriter(&b, Header{Width: 10, Height: 5}, 2000)
	var err error
	n := 0
	for err == nil {
		err = w.Write(time.Duration(n)*time.Millisecond, Output, strings.Repeat("x", 100))
		n++
	}
	if !errors.Is(err, ErrLimit) {
		t.Fatal(err)
	}
	if err := w.Close(time.Second, "size limit reached: "+strings.Repeat("y", 1000)); err != nil {
		t.Fatal(err)
	}
	if b.Len() > 2000 || int64(b.Len()) != w.Bytes() {
		t.Errorf("file of %d bytes over a 2000-byte limit (Bytes %d)", b.Len(), w.Bytes())
	}
	if _, evs, err := Read(&b); err != nil || evs[len(evs)-1].Code != Marker {
		t.Errorf("limited file: %v, %d events", err, len(evs))
	}
}

func TestReadRefuses(t *testing.T) {
	for _, in := range []string{
		"",
		`{"version":1,"width":80,"height":24}`,
		`{"version":2,"width":0,"height":24}`,
		"{\"version\":2,\"width\":8,\"height\":2}\n[1.0, \"o\"]",
		"{\"version\":2,\"width\":8,\"height\":2}\n[1.0, \"x\", \"a\"]",
		"{\"version\":2,\"width\":8,\"height\":2}\n[2.0, \"o\", \"a\"]\n[1.0, \"o\", \"b\"]",
		"{\"version\":2,\"width\":8,\"height\":2}\n[1.0, \"r\", \"80by24\"]",
		"{\"version\":2,\"width\":8,\"height\":2}\n[-1, \"o\", \"a\"]",
	} {
		if _, _, err := Read(strings.NewReader(in)); err == nil {
			t.Errorf("Read(%q) accepted it", in)
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add("{\"version\":2,\"width\":8,\"height\":2}\n[1.5, \"o\", \"a\\u001b[0m\"]\n[2, \"r\", \"9x3\"]\n[2, \"m\", \"\"]\n")
	f.Fuzz(func(t *testing.T, in string) {
		h, evs, err := Read(strings.NewReader(in))
		if err != nil {
			return
		}
		// What Read accepts, a Writer writes back, and Read reads the same.
		var b bytes.Buffer
		w, err := NewWriter(&b, h, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if err := w.Write(time.Duration(e.Time*float64(time.Second)), e.Code, e.Data); err != nil {
				t.Fatal(err)
			}
		}
		w.Flush()
		_, again, err := Read(&b)
		if err != nil || len(again) != len(evs) {
			t.Fatalf("round trip: %v, %d of %d events", err, len(again), len(evs))
		}
		for i := range evs {
			if again[i].Code != evs[i].Code || again[i].Data != strings.ToValidUTF8(evs[i].Data, "\ufffd") && again[i].Data != evs[i].Data {
				t.Fatalf("event %d: %+v became %+v", i, evs[i], again[i])
			}
		}
	})
}
