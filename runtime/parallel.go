package runtime

import (
	"sync/atomic"

	"github.com/kilnml/kiln"
)

// partsJob is work split into numbered parts that any worker may run.
type partsJob interface {
	// part runs part p on worker w (0 ≤ w < the task's workers); each worker
	// owns its scratch area in the frame.
	part(fr *frame, p, w int)
}

// task is one parallel run of a partsJob. A frame owns one task per nesting
// level it needs, so starting parallel work allocates nothing. Its helpers
// are the kernels' workers (kiln.RunParts): run i of the task (0 on the
// caller) is worker i, and every run claims parts until none are left, so a
// helper that starts late finds less to do instead of holding the caller up.
type task struct {
	job   partsJob
	fr    *frame
	parts int32
	next  atomic.Int32
	done  kiln.Pending
}

// RunPart is worker w's run: it takes parts until none are left.
func (t *task) RunPart(w int) {
	for {
		p := t.next.Add(1) - 1
		if p >= t.parts || t.fr.stopped() {
			return
		}
		t.job.part(t.fr, int(p), w)
	}
}

// parallelFor runs parts 0..parts-1 of job on up to `threads` workers (the
// calling goroutine is worker 0) and waits for them. With one thread or one
// part it runs inline.
func parallelFor(fr *frame, t *task, job partsJob, parts, threads int) {
	workers := min(threads, parts)
	if workers <= 1 {
		for p := 0; p < parts && !fr.stopped(); p++ {
			job.part(fr, p, 0)
		}
		return
	}
	t.job, t.fr, t.parts = job, fr, int32(parts)
	t.next.Store(0)
	kiln.RunParts(t, workers, &t.done)
	t.job, t.fr = nil, nil
}
