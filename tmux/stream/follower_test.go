package stream

import (
	"context"
	"errors"
	"testing"
)

// TestFollowerReopens: a Follower reads in order, counts what the ring dropped, and at the
// stream's end goes on in the stream its reopen function gives, counting a gap.
func TestFollowerReopens(t *testing.T) {
	h := NewHub(HubOptions{})
	defer h.Close()
	first := &Watch{hub: h, ps: &paneStream{id: "%1", ring: NewRing(8)}}
	second := &Watch{hub: h, ps: &paneStream{id: "%1", ring: NewRing(64)}}
	first.ps.ring.Write([]byte("0123456789")) // 2 bytes dropped
	reopens := 0
	f := NewFollower(first, 0).OnEnd(func(_ context.Context, ended error) (*Watch, error) {
		if reopens > 0 {
			return nil, ended
		}
		reopens++
		return second, nil
	})
	ch, err := f.Read(context.Background(), 0)
	if err != nil || string(ch.Data) != "23456789" || ch.Missed != 2 || ch.At != 2 || f.Offset() != 10 {
		t.Fatalf("first read: %+v %v", ch, err)
	}
	first.ps.ring.Close(ErrSessionGone)
	second.ps.ring.Write([]byte("old"))
	if ch, err = f.Read(context.Background(), 0); err != nil || len(ch.Data) != 0 || ch.Gaps != 1 || f.Watch() != second || f.Offset() != 3 {
		t.Fatalf("reopen: %+v %v", ch, err)
	}
	second.ps.ring.Write([]byte("new"))
	if ch, err = f.Read(context.Background(), 0); string(ch.Data) != "new" || err != nil {
		t.Fatalf("after the reopen: %+v %v", ch, err)
	}
	second.ps.ring.Close(ErrPaneGone)
	if _, err = f.Read(context.Background(), 0); !errors.Is(err, ErrPaneGone) {
		t.Fatalf("final end: %v", err)
	}
}
