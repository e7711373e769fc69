package runtime

import (
	"sync"
	"sync/atomic"
)

// partsJob is work split into numbered parts that any worker may run.
type partsJob interface {
	// part runs part p on worker w (0 ≤ w < the task's workers); each worker
	// owns its scratch area in the frame.
	part(fr *frame, p, w int)
}

// task is one parallel run of a partsJob. A frame owns one task per nesting
// level it needs, so starting parallel work allocates nothing.
type task struct {
	job    partsJob
	fr     *frame
	parts  int32
	next   atomic.Int32
	worker atomic.Int32
	wg     sync.WaitGroup
}

// workers is the process-wide pool of helper goroutines of the runtime.
var workers = &workerPool{}

type workerPool struct {
	mu    sync.Mutex
	n     int
	tasks chan *task
}

// ensure starts helpers until there are at least n.
func (p *workerPool) ensure(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tasks == nil {
		p.tasks = make(chan *task, 64)
	}
	for ; p.n < n; p.n++ {
		go p.loop()
	}
}

func (p *workerPool) loop() {
	for t := range p.tasks {
		t.run(int(t.worker.Add(1)))
		t.wg.Done()
	}
}

// run takes parts until none are left.
func (t *task) run(w int) {
	for {
		p := t.next.Add(1) - 1
		if p >= t.parts {
			return
		}
		t.job.part(t.fr, int(p), w)
	}
}

// parallelFor runs parts 0..parts-1 of job on up to `threads` workers (the
// calling goroutine is worker 0) and waits for them. With one thread or one
// part it runs inline.
func parallelFor(fr *frame, t *task, job partsJob, parts, threads int) {
	helpers := min(threads, parts) - 1
	if helpers <= 0 {
		for p := 0; p < parts; p++ {
			job.part(fr, p, 0)
		}
		return
	}
	workers.ensure(helpers)
	t.job, t.fr, t.parts = job, fr, int32(parts)
	t.next.Store(0)
	t.worker.Store(0)
	t.wg.Add(helpers)
	for i := 0; i < helpers; i++ {
		workers.tasks <- t
	}
	t.run(0)
	t.wg.Wait()
	t.job, t.fr = nil, nil
}
