package e2e

import (
	"strconv"
	"strings"
	"syscall"
)

var (
	sigStop = syscall.SIGSTOP
	sigCont = syscall.SIGCONT
)

func atoi(s string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(s))
	return n
}
