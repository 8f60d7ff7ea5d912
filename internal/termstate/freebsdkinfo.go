package termstate

import "encoding/binary"

// FreeBSD's struct kinfo_proc (sys/user.h) on its 64-bit platforms (KINFO_PROC_SIZE 1088):
// golang.org/x/sys/unix does not define it for FreeBSD, so the fields used are read at their
// offsets. A record whose ki_structsize differs (another layout) is not read. This file has no
// build tag so that the decoder is unit-tested everywhere.
const (
	freebsdKinfoSize = 1088
	fbPID            = 72
	fbPPID           = 76
	fbPGID           = 80
	fbTPGID          = 84
	fbWmesg          = 411 // char ki_wmesg[WMESGLEN+1], after ki_tdname[TDNAMLEN+1] at 394
	fbWmesgLen       = 9
	fbComm           = 447 // char ki_comm[COMMLEN+1], after ki_login and ki_lockname
	fbCommLen        = 20
)

// decodeFreeBSD reads one kinfo_proc record.
func decodeFreeBSD(b []byte) (Proc, bool) {
	if len(b) < freebsdKinfoSize || binary.LittleEndian.Uint32(b) != freebsdKinfoSize {
		return Proc{}, false
	}
	i32 := func(off int) int { return int(int32(binary.LittleEndian.Uint32(b[off:]))) }
	comm := cString(b[fbComm : fbComm+fbCommLen])
	return Proc{PID: i32(fbPID), PPID: i32(fbPPID), PGID: i32(fbPGID), TPGID: i32(fbTPGID),
		Name: comm, Comm: comm, Wait: cString(b[fbWmesg : fbWmesg+fbWmesgLen])}, true
}

// decodeFreeBSDAll reads the records of a kern.proc.proc answer, one after the other.
func decodeFreeBSDAll(b []byte) []Proc {
	var out []Proc
	for len(b) >= freebsdKinfoSize {
		if p, ok := decodeFreeBSD(b[:freebsdKinfoSize]); ok {
			out = append(out, p)
		}
		b = b[freebsdKinfoSize:]
	}
	return out
}

// cString is the text of a NUL-terminated byte array.
func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
