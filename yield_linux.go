package kiln

import "golang.org/x/sys/unix"

// osYield gives the thread's CPU to another runnable thread, if the kernel
// has one waiting for it (sched_yield).
func osYield() { unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }
