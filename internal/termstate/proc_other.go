//go:build !linux && !darwin && !freebsd

package termstate

func available() bool { return false }

func readProc(int) (Proc, bool) { return Proc{}, false }

func children(int) (map[int]bool, bool) { return nil, false }

func readChars(int) (int64, bool) { return 0, false }
