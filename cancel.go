package kiln

import (
	"context"
	"sync/atomic"
	"time"
)

// Cancel asks long kernel calls to stop early. A GEMM or convolution given
// one (Epilogue.Cancel, ConvEpilogue.Cancel) polls it once per block of
// about a hundred microseconds of work (a few million multiply-adds), on
// every thread the call runs on; once it reports stopped, the call returns
// when the blocks in progress end, leaving its output partly written. A
// caller that cancels must therefore treat the output as garbage. A call
// too short to complete a block does not poll at all.
//
// A poll (Stopped) costs an atomic load; while a context is watched, also
// a non-blocking receive on its Done channel and, when it has a deadline,
// a read of the monotonic clock — tens of nanoseconds, nothing measurable
// once per block. The deadline is read directly because a context's timer
// fires only when the Go scheduler runs it, which, while every processor
// is busy in kernels, can be ten milliseconds late.
//
// The zero value runs until Stop; a nil *Cancel never stops.
type Cancel struct {
	stopped  atomic.Bool
	done     <-chan struct{}
	deadline time.Time
	timed    bool // deadline is set
}

// Watch resets c and makes it report stopped once ctx is done: cancelled,
// or past its deadline (nil, or a context that is never done: only Stop
// stops c). It must not run while a call polls c: a caller watches a new
// context between calls. It allocates nothing.
func (c *Cancel) Watch(ctx context.Context) {
	c.done, c.deadline, c.timed = nil, time.Time{}, false
	if ctx != nil {
		c.done = ctx.Done()
		c.deadline, c.timed = ctx.Deadline()
	}
	c.stopped.Store(false)
}

// Stop makes c report stopped until the next Watch. It may be called from
// any goroutine, during a call.
func (c *Cancel) Stop() { c.stopped.Store(true) }

// StopSeen reports whether c is known to be stopped: Stop was called, or a
// poll saw the context done. It reads no channel and no clock (an atomic
// load): a check for code that runs too often to poll, after which the
// caller polls in time anyway.
func (c *Cancel) StopSeen() bool { return c != nil && c.stopped.Load() }

// Stopped polls c: it reports whether the calls polling c should stop.
func (c *Cancel) Stopped() bool {
	if c == nil {
		return false
	}
	if c.stopped.Load() {
		return true
	}
	return c.done != nil && c.ctxDone()
}

// ctxDone reports whether the watched context is done, and makes c stop when
// it is, so that later polls need only the load.
func (c *Cancel) ctxDone() bool {
	if c.timed && time.Until(c.deadline) <= 0 {
		c.stopped.Store(true)
		return true
	}
	select {
	case <-c.done:
		c.stopped.Store(true)
		return true
	default:
		return false
	}
}

// pollWork is about how many multiply-adds (or elements streamed) a kernel
// call runs between two polls of its Cancel: about a hundred microseconds
// on one core at the best level, a few milliseconds in pure Go.
const pollWork = 1 << 22

// workPoller polls a Cancel once per pollWork of a call's work on one
// thread; each thread of a call has its own.
type workPoller struct {
	cancel *Cancel
	work   int // since the last poll
}

// stopped counts a block of n units of work about to run and reports
// whether the call should stop before it, polling the Cancel once the work
// since the last poll reaches pollWork (a call shorter than that never
// polls).
func (p *workPoller) stopped(n int) bool {
	if p.cancel == nil {
		return false
	}
	if p.work += n; p.work < pollWork {
		return p.cancel.StopSeen()
	}
	p.work = 0
	return p.cancel.Stopped()
}
