//go:build unix

package runtime

import (
	"syscall"
	"time"
)

// processCPUTime is the CPU time the process has used, user and system:
// on a shared machine a benchmark's own cost, which other tenants' load
// does not inflate as it does the wall-clock time.
func processCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
