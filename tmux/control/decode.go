package control

import (
	"bytes"
	"slices"
)

// DecodeOutput appends to dst the bytes that the data of a %output or
// %extended-output line stands for and returns the extended slice.
//
// tmux writes bytes below 0x20 and `\` as `\ooo` (exactly three octal
// digits) and every other byte raw. Only `\` followed by three octal digits
// whose value fits a byte (\000-\377) is an escape; anything else, such as
// `\8`, `\01` at the end or `\400`, passes through unchanged, so no input is
// ever rejected.
func DecodeOutput(dst []byte, data []byte) []byte {
	// The result is never longer than the input: grow once, then write by
	// index.
	w := len(dst)
	out := slices.Grow(dst, len(data))[:w+len(data)]
	for i := 0; i < len(data); {
		if data[i] != '\\' {
			// Short runs between escapes are copied inline; long ones
			// with IndexByte and copy (vectorised).
			k := i
			for k < len(data) && k-i < 16 && data[k] != '\\' {
				k++
			}
			if k-i == 16 {
				if j := bytes.IndexByte(data[k:], '\\'); j < 0 {
					k = len(data)
				} else {
					k += j
				}
			}
			w += copy(out[w:], data[i:k])
			i = k
			continue
		}
		if i+3 < len(data) {
			a, b, c := data[i+1]-'0', data[i+2]-'0', data[i+3]-'0'
			// Unsigned wrap-around makes one comparison per digit enough.
			if a <= 3 && b <= 7 && c <= 7 {
				out[w] = a<<6 | b<<3 | c
				w++
				i += 4
				continue
			}
		}
		out[w] = '\\'
		w++
		i++
	}
	return out[:w]
}
