package runtime

import (
	"context"
	"errors"
	"time"
)

// Cancellation within a run. Each tree of frames owns one kiln.Cancel,
// which watches the run's context (bind sets it to ctx.Done(), release
// clears it); program.run checks it between steps, parallelFor between
// parts, and long steps between blocks of their work — tiles of fused
// loops, runs of rows of reductions and row kernels, batches and panels of
// GEMMs (through kiln.Epilogue.Cancel), tiles of convolutions, attention
// blocks, slices of sorts, iterations of while loops — so a cancelled run
// returns within about a millisecond of work. A step stopped early returns
// no error: it leaves its output unfinished, and the check after it reports
// the context's error. The next run of the executable overwrites whatever
// the stopped one left.
//
// With no deadline or cancellation (ctx.Done() is nil, as for
// context.Background) a poll is an atomic load; with one, a non-blocking
// receive and a clock read too (kiln.Cancel). Nothing is allocated per run:
// no context.AfterFunc, no watcher goroutine.

// pollElements is how many elements a step that streams memory (a row
// kernel, an unfused reduction) processes between two polls: a few hundred
// microseconds at memory speed at most.
const pollElements = 1 << 16

// watch makes the frame tree's Cancel follow ctx for this run.
func (fr *frame) watch(ctx context.Context) { fr.cancel.Watch(ctx) }

// stopped reports whether the run is cancelled: a step's loops poll it
// between blocks of their work and return early when it is.
func (fr *frame) stopped() bool { return fr.cancel.Stopped() }

// errStopped is the error of a run stopped with no context error to give
// (the Cancel stopped by other means).
var errStopped = errors.New("runtime: the run was stopped")

// cancelled returns the run's context error once the run is cancelled, and
// nil before.
func (fr *frame) cancelled() error {
	if !fr.cancel.Stopped() {
		return nil
	}
	if fr.ctx != nil {
		if err := fr.ctx.Err(); err != nil {
			return err
		}
		// The deadline passed before the context's timer fired (the
		// Cancel reads the clock): the context's error is about to be
		// this one.
		if d, ok := fr.ctx.Deadline(); ok && !time.Now().Before(d) {
			return context.DeadlineExceeded
		}
	}
	return errStopped
}

// pollLoopElements is how many output elements a fused float32 loop (or
// the fused producer of a reduction) computes between two polls: 16 tiles,
// tens of microseconds. A multiple of loopTile.
const pollLoopElements = 16 * loopTile

// pollGenericElements is the same for the generic loops and elementwise
// steps over ir/ops' wide registers, several times slower per element. A
// multiple of their tiles.
const pollGenericElements = 16 * genericLoopTile

// pollFlops is how many multiply-adds a product the runtime splits itself
// (float64 GEMMs) runs between two polls: under a millisecond.
const pollFlops = 1 << 22

// pollBytes is how many bytes a copy moves between two polls.
const pollBytes = 1 << 20

// copyPolling copies src into dst in runs of pollBytes, stopping when the
// run is cancelled.
func copyPolling(fr *frame, dst, src []byte) {
	n := min(len(dst), len(src))
	for off := 0; off < n; off += pollBytes {
		if off > 0 && fr.stopped() {
			return
		}
		end := min(off+pollBytes, n)
		copy(dst[off:end], src[off:end])
	}
}
