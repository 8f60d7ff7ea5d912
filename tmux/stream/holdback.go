package stream

// Holdback keeps an incomplete UTF-8 sequence at the end of one chunk of a
// pane's output until the next chunk, so a character split across two
// %output notifications reaches the ring whole.
//
// Only a real lead byte (0xC2–0xF4) followed by valid continuation bytes
// starts a holdback, and at most 3 bytes are held, so binary or latin-1
// output never stalls: any byte that cannot continue the held prefix
// releases it. The zero value is ready to use; a Holdback is not safe for
// concurrent use.
type Holdback struct {
	buf [3]byte
	n   int
}

// Len returns how many bytes are held.
func (h *Holdback) Len() int { return h.n }

// Reset drops the held bytes.
func (h *Holdback) Reset() { h.n = 0 }

// Flush returns the held bytes (a copy) and clears them: use it when the
// stream ends and no further chunk will complete them.
func (h *Holdback) Flush() []byte {
	if h.n == 0 {
		return nil
	}
	out := append([]byte(nil), h.buf[:h.n]...)
	h.n = 0
	return out
}

// Append appends to dst the held bytes followed by p, except for an
// incomplete UTF-8 sequence at the very end, which it keeps for the next
// call. It returns the extended dst.
func (h *Holdback) Append(dst, p []byte) []byte {
	if h.n > 0 {
		dst = append(dst, h.buf[:h.n]...)
		h.n = 0
	}
	dst = append(dst, p...)
	k := incompleteTail(dst)
	h.n = copy(h.buf[:], dst[len(dst)-k:])
	return dst[:len(dst)-k]
}

// incompleteTail returns the length (0–3) of the valid but incomplete UTF-8
// sequence that ends p, if any.
func incompleteTail(p []byte) int {
	// A sequence is at most 4 bytes, so an incomplete one starts within the
	// last 3 bytes.
	for k := 1; k <= 3 && k <= len(p); k++ {
		b := p[len(p)-k]
		if b&0xC0 == 0x80 {
			continue // continuation: the lead is further back
		}
		need := seqLen(b)
		if need <= k || !validPrefix(p[len(p)-k:]) {
			return 0
		}
		return k
	}
	return 0
}

// seqLen returns the length of the UTF-8 sequence that lead byte b starts,
// or 0 when b cannot start a multi-byte sequence.
func seqLen(b byte) int {
	switch {
	case b >= 0xC2 && b <= 0xDF:
		return 2
	case b >= 0xE0 && b <= 0xEF:
		return 3
	case b >= 0xF0 && b <= 0xF4:
		return 4
	}
	return 0
}

// validPrefix reports whether p (a lead byte and 0–2 more) is a prefix of
// some valid UTF-8 encoding: the second byte's range depends on the lead
// (no overlongs, no surrogates, nothing above U+10FFFF).
func validPrefix(p []byte) bool {
	if len(p) == 0 || seqLen(p[0]) == 0 {
		return false
	}
	for i := 1; i < len(p); i++ {
		lo, hi := byte(0x80), byte(0xBF)
		if i == 1 {
			switch p[0] {
			case 0xE0:
				lo = 0xA0
			case 0xED:
				hi = 0x9F
			case 0xF0:
				lo = 0x90
			case 0xF4:
				hi = 0x8F
			}
		}
		if p[i] < lo || p[i] > hi {
			return false
		}
	}
	return true
}
