package cursor

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

func TestCursorRoundTrip(t *testing.T) {
	for _, c := range []Cursor{
		{},
		{Pane: 7, DaemonPID: 1234, DaemonStart: 1700000000, PanePID: 99, Gen: 3, Offset: 1 << 40},
		{Pane: 1<<32 - 1, DaemonPID: 1<<32 - 1, DaemonStart: -1, PanePID: 1<<32 - 1, Gen: 1<<64 - 1, Offset: 1<<63 - 1},
	} {
		tok := c.Encode()
		if strings.ContainsAny(tok, "+/=") {
			t.Errorf("%q is not base64url without padding", tok)
		}
		got, err := Decode(tok)
		if err != nil || got != c {
			t.Errorf("round trip %+v: %+v, %v", c, got, err)
		}
	}
}

func TestCursorTampering(t *testing.T) {
	tok := Cursor{Pane: 3, DaemonPID: 10, DaemonStart: 20, PanePID: 30, Gen: 1, Offset: 500}.Encode()
	raw, _ := base64.RawURLEncoding.DecodeString(tok)
	for i := range raw {
		b := append([]byte(nil), raw...)
		b[i] ^= 0x40
		_, err := Decode(base64.RawURLEncoding.EncodeToString(b))
		if err == nil {
			t.Fatalf("flipping byte %d went unnoticed", i)
		}
		if i > 0 && i < payloadLen && !errors.Is(err, ErrForged) {
			t.Errorf("byte %d: %v, want forged", i, err)
		}
	}
	for _, bad := range []string{"", tok[:len(tok)-1], tok + "A", strings.Repeat("!", len(tok)), "AQ"} {
		if _, err := Decode(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("%q: %v, want malformed", bad, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(Cursor{Pane: 1, Offset: 5}.Encode())
	f.Add("")
	f.Add(strings.Repeat("A", 71))
	f.Add("AQAAAAAAADTYAAAAAGsM4mIAADTZAAAAAAAAAAEAAAAAAAAAAIepe01aYL-NXfrptkwueFs")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Decode(s)
		if err != nil {
			return
		}
		// Only what this process signed decodes, and it encodes back to the same token.
		if c.Encode() != s || c.Offset < 0 {
			t.Fatalf("decoded %+v from %q", c, s)
		}
	})
}
