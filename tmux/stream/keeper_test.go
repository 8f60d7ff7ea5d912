package stream

import (
	"context"
	"testing"
)

// TestKeeper: a Keeper shares one open stream per key between its users, keeps it after the
// last one gives it back, and opens a new one (a new generation) when it ended or was dropped.
func TestKeeper(t *testing.T) {
	h := NewHub(HubOptions{})
	defer h.Close()
	var opened []*Watch
	open := func(context.Context) (*Watch, error) {
		l := &link{dead: true, panes: map[string]*paneStream{}}
		ps := &paneStream{id: "%1", link: l, ring: NewRing(64), refs: 1}
		l.panes["%1"] = ps
		w := &Watch{hub: h, ps: ps}
		opened = append(opened, w)
		return w, nil
	}
	ctx := context.Background()
	var k Keeper[string]
	a, _ := k.Acquire(ctx, "p", open)
	b, _ := k.Acquire(ctx, "p", open)
	if a != b || len(opened) != 1 {
		t.Fatalf("two users of one key: %p %p, %d opened", a, b, len(opened))
	}
	k.Release(a)
	k.Release(b)
	if c, _ := k.Acquire(ctx, "p", open); c != a || len(opened) != 1 || a.Watch().Err() != nil {
		t.Fatalf("kept after the last release: %p, %d opened, %v", c, len(opened), a.Watch().Err())
	}
	k.Release(a)
	a.Watch().ps.ring.Close(ErrSessionGone)
	c, _ := k.Acquire(ctx, "p", open)
	if c == a || len(opened) != 2 || c.Gen() == a.Gen() {
		t.Fatalf("an ended stream is opened anew: %d opened, gens %d %d", len(opened), a.Gen(), c.Gen())
	}
	k.Drop(c)
	d, _ := k.Acquire(ctx, "p", open)
	if d == c || len(opened) != 3 {
		t.Fatalf("a dropped stream is opened anew: %d opened", len(opened))
	}
	k.Release(c)
	if c.Watch().Err() == nil {
		t.Error("the dropped stream's last release did not release its watch")
	}
	k.Release(d)
	k.CloseAll()
	if d.Watch().Err() == nil {
		t.Error("CloseAll left a stream open")
	}
}
