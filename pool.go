package kiln

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// threads is the intra-op parallelism of the kernels (SetThreads).
var threads atomic.Int32

func init() { threads.Store(int32(runtime.GOMAXPROCS(0))) }

// SetThreads sets how many goroutines a kernel call may use and returns the
// previous value. n < 1 restores the default, GOMAXPROCS at the time of the call.
func SetThreads(n int) int {
	if n < 1 {
		n = runtime.GOMAXPROCS(0)
	}
	return int(threads.Swap(int32(n)))
}

// Threads returns the current intra-op parallelism (see SetThreads).
func Threads() int { return int(threads.Load()) }

// parallelJob is a kernel call split into parts that run independently.
type parallelJob interface {
	runPart(part int)
}

// workItem is one part of a job, queued to the worker pool. done, when not
// nil, counts the part off after it has run.
type workItem struct {
	job  parallelJob
	part int
	done *pending
}

// pending counts the parts of a call that the workers have yet to finish.
type pending struct{ left atomic.Int32 }

// wait returns once every part has finished. The caller spins rather than
// sleeps: a sleeping caller is woken by the worker that finishes last, which
// readies it on its own P, where it waits until the scheduler moves it to the
// idle one — tens of microseconds in a virtual machine, as long as a whole
// part of a small GEMM (a 32×784×512 product ran no faster on two threads
// than on one). Once the queue is empty its parts are all running, so the
// wait is short; it yields the CPU to the kernel now and then, in case the worker's thread
// waits for it, and lets other goroutines run when the wait is long or
// there is no other P for the worker.
//
// While it waits it runs parts still in the queue — its own call's, when a
// worker is late to take them, or other calls' — so that a part of a
// parallel call that itself splits work (the compiler's parallel steps run
// kernels) never waits for workers that are all waiting too.
func (p *pending) wait() {
	alone := runtime.GOMAXPROCS(0) < 2
	for spins := 0; p.left.Load() != 0; spins++ {
		select {
		case it := <-pool.queue:
			it.run()
			continue
		default:
		}
		if alone {
			runtime.Gosched()
		} else {
			pause(spins)
		}
	}
}

// pause is one step of a wait for work another thread is finishing: spin,
// then now and then let the kernel run that thread should it wait for this
// CPU (osYield), and let other goroutines run once the wait is long.
func pause(spins int) {
	switch {
	case spins > 1<<14:
		runtime.Gosched()
	case spins > 1<<8 && spins%64 == 0:
		osYield()
	}
}

// workerPool is a set of long-lived goroutines that run job parts, so that a
// parallel kernel call costs a channel send per part instead of a goroutine
// start. A caller waiting for its parts runs queued parts meanwhile
// (pending.wait), so callers that are themselves parts of another call —
// even all the workers at once — cannot deadlock the pool.
//
// After a part, a worker keeps polling the queue for workerPoll before it
// blocks. Waking a blocked worker costs a few microseconds (in a virtual
// machine, tens when its virtual CPU sleeps too), as much as a whole
// batch-1 product; a model runs such kernels one after another, and a
// polling worker takes each part within a fraction of a microsecond. A
// polling worker keeps its P: were it to yield (runtime.Gosched), the caller
// yielding in turn could pick it up on its own P, leaving the other P to
// sleep and both goroutines to share one core. With GOMAXPROCS 1 there is no
// other P, and workers do not poll. It does yield its thread's CPU to the
// kernel every few dozen polls (sched_yield): on a machine with more busy
// threads than cores, the kernel may put the worker on the caller's core,
// and a worker that polled through its time slices would halve the
// caller's.
type workerPool struct {
	mu      sync.Mutex
	workers atomic.Int32
	queue   chan workItem
}

var pool = workerPool{queue: make(chan workItem, 256)}

func (p *workerPool) ensure(n int) {
	if int(p.workers.Load()) >= n {
		return
	}
	p.mu.Lock()
	for int(p.workers.Load()) < n {
		go p.work()
		p.workers.Add(1)
	}
	p.mu.Unlock()
}

// workerPoll is how long an idle worker polls the queue before it blocks.
const workerPoll = 200 * time.Microsecond

func (p *workerPool) work() {
	for {
		it, ok := p.poll()
		if !ok {
			it = <-p.queue
		}
		it.run()
	}
}

// run runs the item's part and counts it off.
func (it workItem) run() {
	it.job.runPart(it.part)
	if it.done != nil {
		it.done.left.Add(-1)
	}
}

// poll takes the next item from the queue, or gives up after workerPoll.
func (p *workerPool) poll() (workItem, bool) {
	if runtime.GOMAXPROCS(0) < 2 {
		return workItem{}, false
	}
	start := time.Now()
	for spins := 1; ; spins++ {
		select {
		case it := <-p.queue:
			return it, true
		default:
		}
		if spins%64 == 0 {
			if time.Since(start) > workerPoll {
				return workItem{}, false
			}
			osYield()
		}
	}
}

// post queues part of job without waiting for it (see workItem).
func (p *workerPool) post(job parallelJob, part int) {
	p.queue <- workItem{job: job, part: part}
}

// runParallel runs job.runPart(0), …, job.runPart(parts-1), part 0 on the
// calling goroutine and the others on the pool, and returns when all are done.
func runParallel(job parallelJob, parts int, done *pending) {
	if parts <= 1 {
		job.runPart(0)
		return
	}
	pool.ensure(parts - 1)
	done.left.Store(int32(parts - 1))
	for i := 1; i < parts; i++ {
		pool.queue <- workItem{job: job, part: i, done: done}
	}
	job.runPart(0)
	done.wait()
}
