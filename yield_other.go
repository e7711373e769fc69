//go:build !linux

package kiln

// osYield gives the thread's CPU to another runnable thread; only Linux
// has the call wired in.
func osYield() {}
