package shellrun

import (
	"crypto/rand"
	"encoding/hex"
)

// IDPrefix starts every run id.
const IDPrefix = "tmx"

// idHexLen is the number of lowercase hex digits after IDPrefix.
const idHexLen = 12

// IDLen is the length of a run id: IDPrefix plus 12 lowercase hex digits.
const IDLen = len(IDPrefix) + idHexLen

// NewID mints a random run id: "tmx" followed by 12 lowercase hex digits
// (48 bits from crypto/rand).
func NewID() string {
	var b [idHexLen / 2]byte
	// crypto/rand.Read never returns an error since Go 1.24 (it crashes the
	// program instead of handing out predictable bytes).
	_, _ = rand.Read(b[:])
	return IDPrefix + hex.EncodeToString(b[:])
}

// ValidID reports whether id has the shape NewID mints.
func ValidID(id string) bool {
	return len(id) == IDLen && id[:len(IDPrefix)] == IDPrefix && isHex12(id[len(IDPrefix):])
}

// isHex12 reports whether s is exactly 12 lowercase hex digits.
func isHex12(s string) bool {
	if len(s) != idHexLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isLowerHex(s[i]) {
			return false
		}
	}
	return true
}

func isLowerHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f'
}
