package hint

import (
	"errors"
	"testing"
)

func TestError(t *testing.T) {
	err := New("Pass a name.", "name %q is empty", "")
	var e *Error
	if !errors.As(err, &e) || e.Msg != `name "" is empty` || e.Hint != "Pass a name." {
		t.Fatalf("New: %#v", err)
	}
	if got, want := err.Error(), "name \"\" is empty\n\nPass a name."; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got := (&Error{Msg: "alone"}).Error(); got != "alone" {
		t.Errorf("without a hint: %q", got)
	}
}

func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{{"short", 10, "short"}, {"exactly", 7, "exactly"}, {"longer text", 6, "longer…"}} {
		if got := Truncate(tc.in, tc.n); got != tc.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
