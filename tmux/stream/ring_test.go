package stream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestRingReadWrite(t *testing.T) {
	tests := []struct {
		name       string
		size       int
		writes     []string
		off        int64
		max        int
		want       string
		wantNext   int64
		wantMissed int64
	}{
		{"empty", 8, nil, 0, 0, "", 0, 0},
		{"all", 8, []string{"abc", "de"}, 0, 0, "abcde", 5, 0},
		{"from middle", 8, []string{"abcde"}, 2, 0, "cde", 5, 0},
		{"max", 8, []string{"abcde"}, 1, 2, "bc", 3, 0},
		{"at end", 8, []string{"abcde"}, 5, 0, "", 5, 0},
		{"overflow", 4, []string{"abc", "def"}, 0, 0, "cdef", 6, 2},
		{"overflow exact cap", 4, []string{"abcd"}, 0, 0, "abcd", 4, 0},
		{"write larger than cap", 4, []string{"ab", "0123456789"}, 0, 0, "6789", 12, 8},
		{"wrap many", 5, []string{"ab", "cd", "ef", "gh", "ij", "k"}, 7, 0, "hijk", 11, 0},
		{"wrap many missed", 5, []string{"ab", "cd", "ef", "gh", "ij", "k"}, 3, 0, "ghijk", 11, 3},
		{"skip orphan continuation", 4, []string{"a", "é€"}, 0, 0, "€", 6, 3},
		{"no skip at exact start", 4, []string{"a", "é€"}, 2, 0, "\xa9€", 6, 0},
		{"binary head kept", 4, []string{"\x80\x80\x80\x80\x80x"}, 0, 0, "x", 6, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRing(tt.size)
			for _, w := range tt.writes {
				r.Write([]byte(w))
			}
			data, next, missed, err := r.Read(tt.off, tt.max)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if string(data) != tt.want || next != tt.wantNext || missed != tt.wantMissed {
				t.Fatalf("Read(%d,%d) = %q, %d, %d; want %q, %d, %d",
					tt.off, tt.max, data, next, missed, tt.want, tt.wantNext, tt.wantMissed)
			}
		})
	}
}

func TestRingOffsets(t *testing.T) {
	r := NewRing(4)
	r.Write([]byte("abcdef"))
	if r.End() != 6 || r.Start() != 2 {
		t.Fatalf("End, Start = %d, %d; want 6, 2", r.End(), r.Start())
	}
	if _, _, _, err := r.Read(7, 0); !errors.Is(err, ErrOffsetAhead) {
		t.Fatalf("ahead: err = %v", err)
	}
	if _, _, _, err := r.Read(-1, 0); !errors.Is(err, ErrOffsetNegative) {
		t.Fatalf("negative: err = %v", err)
	}
	if err := r.Wait(context.Background(), 7); !errors.Is(err, ErrOffsetAhead) {
		t.Fatalf("Wait ahead: err = %v", err)
	}
}

func TestRingEnd(t *testing.T) {
	reason := errors.New("gone")
	r := NewRing(16)
	r.Write([]byte("abc"))
	r.Close(reason)
	r.Close(errors.New("second reason ignored"))
	r.Write([]byte("ignored"))
	if err := r.Wait(context.Background(), 0); err != nil {
		t.Fatalf("Wait with unread data = %v, want nil", err)
	}
	data, next, _, err := r.Read(0, 0)
	if string(data) != "abc" || err != nil {
		t.Fatalf("Read = %q, %v; want abc, nil", data, err)
	}
	if _, _, _, err := r.Read(next, 0); err != reason {
		t.Fatalf("Read at end = %v, want %v", err, reason)
	}
	if err := r.Wait(context.Background(), next); err != reason {
		t.Fatalf("Wait at end = %v, want %v", err, reason)
	}
	if r.Err() != reason {
		t.Fatalf("Err = %v", r.Err())
	}
	r2 := NewRing(4)
	r2.Close(nil)
	if err := r2.Wait(context.Background(), 0); !errors.Is(err, ErrEnded) {
		t.Fatalf("nil reason: %v", err)
	}
}

func TestRingWaitWakes(t *testing.T) {
	r := NewRing(16)
	errc := make(chan error, 1)
	go func() { errc <- r.Wait(context.Background(), 0) }()
	time.Sleep(10 * time.Millisecond)
	r.Write([]byte("x"))
	select {
	case err := <-errc:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Wait not woken by Write")
	}

	go func() { errc <- r.Wait(context.Background(), 1) }()
	time.Sleep(10 * time.Millisecond)
	r.Close(ErrPaneGone)
	if err := <-errc; err != ErrPaneGone {
		t.Fatalf("Wait after Close = %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	r3 := NewRing(16)
	go func() { errc <- r3.Wait(ctx, 0) }()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait cancelled = %v", err)
	}
}

func TestRingGaps(t *testing.T) {
	r := NewRing(64)
	r.Write([]byte("abc"))
	r.MarkGap()
	if n := r.Gaps(0, 10); n != 0 {
		t.Fatalf("pending gap counted before data: %d", n)
	}
	r.Write([]byte("def"))
	if n := r.Gaps(0, 3); n != 0 {
		t.Fatalf("Gaps(0,3) = %d, want 0", n)
	}
	if n := r.Gaps(3, 6); n != 1 {
		t.Fatalf("Gaps(3,6) = %d, want 1", n)
	}
	if n := r.Gaps(0, 6); n != 1 {
		t.Fatalf("Gaps(0,6) = %d, want 1", n)
	}
	for i := 0; i < 2*maxGaps; i++ {
		r.MarkGap()
		r.Write([]byte("x"))
	}
	if n := r.Gaps(0, r.End()); n != maxGaps {
		t.Fatalf("Gaps kept = %d, want %d", n, maxGaps)
	}
}

func TestRingLazyAlloc(t *testing.T) {
	r := NewRing(DefaultRingSize)
	r.Write([]byte("hello"))
	if len(r.buf) >= DefaultRingSize {
		t.Fatalf("ring allocated %d bytes for 5", len(r.buf))
	}
	// Growing keeps content and offsets.
	var want bytes.Buffer
	for i := 0; i < 5000; i++ {
		s := fmt.Sprintf("line %d\n", i)
		want.WriteString(s)
		r.Write([]byte(s))
	}
	data, _, missed, _ := r.Read(5, 0)
	if missed != 0 || !bytes.Equal(data, want.Bytes()) {
		t.Fatalf("content mismatch after growth (missed %d)", missed)
	}
}

// TestRingConcurrent checks readers see a consistent byte sequence while a
// writer appends: every byte read is the one written at that offset.
func TestRingConcurrent(t *testing.T) {
	r := NewRing(1000)
	const total = 200000
	byteAt := func(off int64) byte { return byte(off % 251) }
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var off int64
			ctx := context.Background()
			for {
				if err := r.Wait(ctx, off); err != nil {
					if err != ErrEnded {
						t.Errorf("Wait: %v", err)
					}
					return
				}
				data, next, missed, err := r.Read(off, 333)
				if err != nil {
					t.Errorf("Read: %v", err)
					return
				}
				off += missed
				for i, b := range data {
					if b != byteAt(off+int64(i)) {
						t.Errorf("byte at %d = %d, want %d", off+int64(i), b, byteAt(off+int64(i)))
						return
					}
				}
				off = next
			}
		}()
	}
	buf := make([]byte, 0, 97)
	for off := int64(0); off < total; {
		buf = buf[:0]
		for i := 0; i < 97; i++ {
			buf = append(buf, byteAt(off+int64(i)))
		}
		r.Write(buf)
		off += int64(len(buf))
	}
	r.Close(nil)
	wg.Wait()
}

func BenchmarkRingWrite(b *testing.B) {
	r := NewRing(DefaultRingSize)
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 256) // 4 KiB
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	for b.Loop() {
		r.Write(chunk)
	}
}

func BenchmarkRingWriteRead(b *testing.B) {
	r := NewRing(DefaultRingSize)
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 256)
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	var off int64
	for b.Loop() {
		r.Write(chunk)
		_, next, _, _ := r.Read(off, 0)
		off = next
	}
}

// FuzzRing checks the ring against a plain byte slice holding everything
// ever written: every read returns exactly the model's bytes at its offsets.
func FuzzRing(f *testing.F) {
	f.Add(uint8(7), []byte("\x03abc\x81\x05defgh\x82\x00"))
	f.Add(uint8(1), []byte("\x10\x10\x10\x83"))
	f.Fuzz(func(t *testing.T, size uint8, ops []byte) {
		capa := int(size)%32 + 1
		r := NewRing(capa)
		var model []byte
		var off int64
		for i := 0; i < len(ops); i++ {
			op := ops[i]
			if op&0x80 == 0 { // write op&0x7f bytes
				n := int(op & 0x7f)
				p := make([]byte, n)
				for j := range p {
					p[j] = byte(len(model) + j)
				}
				r.Write(p)
				model = append(model, p...)
				continue
			}
			max := int(op & 0x0f)
			data, next, missed, err := r.Read(off, max)
			if err != nil {
				t.Fatalf("Read(%d): %v", off, err)
			}
			start := int64(len(model) - min(len(model), capa))
			wantMissed := max0(start - off)
			if missed < wantMissed || missed > wantMissed+3 {
				t.Fatalf("missed %d, want %d(+3)", missed, wantMissed)
			}
			from := off + missed
			if !bytes.Equal(data, model[from:next]) {
				t.Fatalf("data at %d..%d differs", from, next)
			}
			if max > 0 && len(data) > max {
				t.Fatalf("read %d > max %d", len(data), max)
			}
			off = next
		}
		if r.End() != int64(len(model)) {
			t.Fatalf("End %d, want %d", r.End(), len(model))
		}
	})
}

func max0(x int64) int64 {
	if x < 0 {
		return 0
	}
	return x
}

func TestRingElide(t *testing.T) {
	r := NewRing(64)
	r.Write([]byte("$ typed line\r\necho hi\r\nhi\r\n"))
	r.Elide(2, 14) // "typed line\r\n"
	r.Elide(5, 5)  // empty: ignored
	data, next, _, _ := r.ReadText(0, 0)
	if next != 27 || string(Clean(data)[0]) != "$ echo hi" {
		t.Fatalf("ReadText: %q next %d; clean %q", data, next, Clean(data))
	}
	raw, _, _, _ := r.Read(0, 0)
	if string(raw) != "$ typed line\r\necho hi\r\nhi\r\n" {
		t.Fatalf("Read changed: %q", raw)
	}
	// A read that starts inside the range sees only its tail hidden.
	part, _, _, _ := r.ReadText(10, 6)
	if string(part) != "\x00\x00\x00\x00ec" {
		t.Fatalf("partial: %q", part)
	}
}
