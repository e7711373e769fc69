package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	goruntime "runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kilnml/kiln/ir"
)

// limitFlags are the flags of the commands that run a module: how long they
// may take and how much memory a module may need.
type limitFlags struct {
	timeout     time.Duration
	memoryLimit byteSize
}

func (l *limitFlags) register(fs *flag.FlagSet) {
	fs.DurationVar(&l.timeout, "timeout", 0, "stop after this long (e.g. 1s, 2m); 0: no limit. A stopped command exits with status 124")
	l.memoryLimit = byteSize(defaultMemoryLimit())
	fs.Var(&l.memoryLimit, "memory-limit",
		"refuse a module whose constants and one run, or any one value, need more than this many bytes (256MiB, 2G, …; 0: no limit); the default is half of this machine's memory")
}

// stopped is the error of a command stopped by its timeout or a signal: its
// message says which, and status is the exit status.
type stopped struct {
	msg    string
	status int
}

func (s *stopped) Error() string { return s.msg }

// exitStatus is the status a command's error exits with: a stopped
// command's own, 1 otherwise.
func exitStatus(err error) int {
	var s *stopped
	if errors.As(err, &s) {
		return s.status
	}
	return 1
}

// stopGrace is how long a stopped command has to return on its own (a run
// checks its context between steps and in every loop iteration) before the
// tool exits anyway.
const stopGrace = 300 * time.Millisecond

// runLimited runs body under the limits: its context is cancelled at the
// timeout and on SIGINT or SIGTERM, and the memory limit bounds every
// literal read or evaluated (ir.MaxLiteralBytes) and the collector's target
// (debug.SetMemoryLimit) while it runs. A cancelled body that does not
// return within stopGrace is left behind: the command returns the stop.
func (l *limitFlags) runLimited(body func(ctx context.Context) error) error {
	if l.memoryLimit > 0 {
		defer func(old int) { ir.MaxLiteralBytes = old }(ir.MaxLiteralBytes)
		ir.MaxLiteralBytes = int(min(int64(l.memoryLimit), int64(ir.MaxLiteralBytes)))
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(int64(l.memoryLimit)))
	}
	start := time.Now()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	if l.timeout > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeoutCause(ctx, l.timeout,
			&stopped{msg: fmt.Sprintf("stopped: --timeout %v reached", l.timeout), status: 124})
		defer stop()
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		select {
		case sig := <-sigs:
			status := 130
			if sig == syscall.SIGTERM {
				status = 143
			}
			cancel(&stopped{msg: "interrupted by " + signalName(sig), status: status})
		case <-ctx.Done():
		}
	}()
	done := make(chan error, 1)
	go func() { done <- body(ctx) }()
	select {
	case err := <-done:
		if err == nil {
			return nil
		}
		if ctx.Err() == nil {
			// A run that reads the clock may see the deadline pass before
			// the context's timer fires; the timer's cause, due now, is
			// the stop to report.
			d, ok := ctx.Deadline()
			if !ok || time.Now().Before(d) || !errors.Is(err, context.DeadlineExceeded) {
				return err
			}
			<-ctx.Done()
		}
	case <-ctx.Done():
		select {
		case err := <-done:
			if err == nil {
				return nil
			}
		case <-time.After(stopGrace):
		}
	}
	cause := context.Cause(ctx)
	var s *stopped
	if errors.As(cause, &s) {
		return &stopped{msg: fmt.Sprintf("%s (after %v)", s.msg, time.Since(start).Round(time.Millisecond)), status: s.status}
	}
	return cause
}

func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// defaultMemoryLimit is half of the machine's memory, or of the control
// group's limit where that is lower (Linux); 0 where neither is known.
func defaultMemoryLimit() int64 {
	total := machineMemory()
	if cg := cgroupMemoryLimit(); cg > 0 && (total == 0 || cg < total) {
		total = cg
	}
	return total / 2
}

// machineMemory reads MemTotal from /proc/meminfo.
func machineMemory() int64 {
	if goruntime.GOOS != "linux" {
		return 0
	}
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// cgroupMemoryLimit reads a cgroup v2 memory.max ("max" or absent: none).
func cgroupMemoryLimit() int64 {
	data, err := os.ReadFile("/sys/fs/cgroup/memory.max")
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		return 0
	}
	return n
}
