package kiln

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// The packed-rows path: one to four rows of A times a B prepacked by PackB,
// the shape of the dense layers of batch-1 inference. Such a product reads
// every element of B once for a handful of FMAs, so its speed is the speed at
// which B streams from the caches or memory. PackB's panels (nr columns, k×nr
// row-major, one after another) are already one sequential stream; the
// packed-rows kernels (gen/gemv_packed.go) sweep a run of whole panels per
// call, each down all of K with eight independent FMA chains and its
// epilogue in registers.
//
// Threads split the panels into chunks, run by the caller and by the
// worker pool's workers (which poll for work briefly between calls). Part p owns a contiguous range of
// chunks and takes them from the front; a part that runs out takes chunks
// from the back of the others' ranges. When the threads keep pace, each one
// therefore streams the same columns of B on every call, which stay in its
// own core's L2 between calls when they fit; when a worker starts late (it
// had to be woken, or the machine is busy), the caller does its share
// instead of waiting for it.

// packedRowsMax is the largest M of the packed-rows path.
const packedRowsMax = 4

// packedRowsChunk is about how many bytes of B one claim covers: large
// enough that claiming (a compare-and-swap on a shared word) costs nothing
// beside the stream, small enough to balance two threads.
var packedRowsChunk = 64 << 10

// minPackedRowsSplit is the least size of B, in bytes, worth a second
// thread: below it, waking a worker costs more than streaming its half.
var minPackedRowsSplit = 256 << 10

// maxPackedRowsParts bounds the parts of one call (the ranges live in a
// fixed array, so that a late worker never reads a slice being replaced).
const maxPackedRowsParts = 64

// packedRowsKernel computes, for panels ≥ 1 consecutive full panels of a
// prepacked B starting at b (panel q at b + q·k·nr, each k×nr row-major),
// C(i, q·nr+j) = act(alpha·Σp A(i,p)·B(p, q·nr+j) + beta·C(i, q·nr+j) + bias[q·nr+j])
// for the rows of A (A(i,p) = a[i*lda+p], C(i,j) = c[i*ldc+j]), with the
// epilogue terms selected by flags as in microKernel (no flagPartial: the
// last panel, when it holds fewer columns of C, goes through a scratch
// tile). k ≥ 1.
type packedRowsKernel[T float] func(k int, a *T, lda int, b *T, panels int, c *T, ldc int, alpha, beta T, bias *T, flags uint)

// packedRowsTwin returns the pure-Go twin of the packed-rows kernel of the
// given rows and panel width: the generic level's kernel and the oracle of
// the assembly ones. It is the micro-kernel twin applied panel by panel.
func packedRowsTwin[T float](rows, nr int) packedRowsKernel[T] {
	return func(k int, a *T, lda int, b *T, panels int, c *T, ldc int, alpha, beta T, bias *T, flags uint) {
		bs := unsafe.Slice(b, panels*k*nr)
		cs := unsafe.Slice(c, (rows-1)*ldc+panels*nr)
		var biases []T
		if flags&flagBias != 0 {
			biases = unsafe.Slice(bias, panels*nr)
		}
		for q := 0; q < panels; q++ {
			var bq *T
			if biases != nil {
				bq = &biases[q*nr]
			}
			microTwin(rows, nr, true, k, a, lda, &bs[q*k*nr], nr, &cs[q*nr], ldc, alpha, beta, bq, nil, flags)
		}
	}
}

// packedRowsTwins returns twins for every row count (index 0 unused).
func packedRowsTwins[T float](nr int) []packedRowsKernel[T] {
	ks := make([]packedRowsKernel[T], packedRowsMax+1)
	for r := 1; r <= packedRowsMax; r++ {
		ks[r] = packedRowsTwin[T](r, nr)
	}
	return ks
}

// usePackedRows reports whether a call takes the packed-rows path: B
// prepacked, M ≤ packedRowsMax, A's rows contiguous (A untransposed, or a
// single row stored as a column with lda 1), and the level has the kernels.
func usePackedRows[T float](g *gemmKernels[T], transA bool, m, lda int, pb []T) bool {
	return pb != nil && m <= packedRowsMax && g.packedRows != nil && (!transA || m == 1 && lda == 1)
}

// packedRowsJob is one packed-rows call. Jobs are recycled, and a worker
// handed a job may run after the call that posted it has returned, even
// while the job serves a later call: it only ever claims chunks through the
// atomic ranges, and reads the call's arguments only after a claim, which
// the call cannot outlive.
type packedRowsJob[T float] struct {
	kern                *gemmKernels[T]
	fn, lastFn          packedRowsKernel[T] // full panels, the last panel
	last                int                 // the last panel's width
	m, n, k             int
	alpha, beta         T
	a, pb, c            []T
	lda, ldc            int
	ep                  epilogue[T]
	flags               uint
	goAct               bool
	panels, chunkPanels int
	tile                []T // the partial panel's scratch tile

	parts atomic.Int32
	// backward: own chunks from the back (see PackedB.sweeps). Atomic, as a
	// late worker may read it while a later call sets it.
	backward atomic.Bool
	// ranges[p] is part p's unclaimed chunks [lo, hi) as lo | hi<<32.
	ranges [maxPackedRowsParts]atomic.Uint64
	left   atomic.Int64 // chunks of the call not yet finished
	// posted counts the job's parts queued to the worker pool that have not
	// started: while one waits, queueing another would only lengthen the
	// queue (a part that starts late joins whatever call is running).
	posted atomic.Int32
}

// packedRowsJobs is the free list of packed-rows jobs.
type packedRowsJobs[T float] struct {
	mu   sync.Mutex
	free []*packedRowsJob[T]
}

func (l *packedRowsJobs[T]) get() *packedRowsJob[T] {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.free); n > 0 {
		j := l.free[n-1]
		l.free = l.free[:n-1]
		return j
	}
	return new(packedRowsJob[T])
}

func (l *packedRowsJobs[T]) put(j *packedRowsJob[T]) {
	j.a, j.pb, j.c, j.ep, j.fn, j.lastFn = nil, nil, nil, epilogue[T]{}, nil, nil
	l.mu.Lock()
	l.free = append(l.free, j)
	l.mu.Unlock()
}

// gemmPackedRows runs C = act(alpha·A·B + beta·C + bias) on the packed-rows
// path (see usePackedRows); m, n, k ≥ 1 and alpha ≠ 0.
// With backward, each part claims its own chunks from the back (and the
// others' from the front).
func gemmPackedRows[T float](g *gemmKernels[T], m, n, k int, alpha T, a []T, lda int, pb []T, backward bool, beta T, c []T, ldc int, ep epilogue[T]) {
	j := g.rowJobs.get()
	j.backward.Store(backward)
	nr := g.nr
	j.kern, j.fn = g, g.packedRows[nr][m]
	j.last = g.lastPanelWidth(n)
	j.lastFn = g.packedRows[j.last][m]
	j.m, j.n, j.k = m, n, k
	j.alpha, j.beta = alpha, beta
	j.a, j.lda, j.pb, j.c, j.ldc, j.ep = a, lda, pb, c, ldc, ep
	j.flags, j.goAct = ep.kernelFlags()
	if beta != 0 {
		j.flags |= flagLoadC
	}
	j.panels = (n + nr - 1) / nr
	panelBytes := k * nr * int(unsafe.Sizeof(alpha))
	j.chunkPanels = max(1, packedRowsChunk/panelBytes)
	chunks := (j.panels + j.chunkPanels - 1) / j.chunkPanels
	parts := min(Threads(), maxPackedRowsParts, chunks, max(1, j.panels*panelBytes/minPackedRowsSplit))
	if n%nr != 0 {
		j.tile = grow(j.tile, m*j.last)
	}
	j.left.Store(int64(chunks))
	for p := 0; p < parts; p++ {
		lo, hi := p*chunks/parts, (p+1)*chunks/parts
		j.ranges[p].Store(uint64(lo) | uint64(hi)<<32)
	}
	j.parts.Store(int32(parts))
	if parts > 1 {
		pool.ensure(parts - 1)
		for p := 1; p < parts && j.posted.Load() < int32(parts-1); p++ {
			j.posted.Add(1)
			pool.post(j, p)
		}
	}
	j.runPart(0)
	for spins := 0; j.left.Load() != 0; spins++ {
		// A chunk claimed by a worker is still running, at most one chunk's
		// stream away (a few microseconds).
		pause(spins)
	}
	g.rowJobs.put(j)
}

// runPart claims and runs chunks: first part p's own, from the front (the
// back when the call sweeps backward), then the other parts' from the other
// end.
func (j *packedRowsJob[T]) runPart(p int) {
	if p > 0 {
		j.posted.Add(-1)
	}
	parts := int(j.parts.Load())
	backward := j.backward.Load()
	// The poller reads the call's cancel, so only after a claim: a late
	// worker that claims nothing must not read the job's fields while a
	// later call sets them.
	var poll workPoller
	polling := false
	if p < parts {
		for {
			ch, ok := j.claim(p, backward)
			if !ok {
				break
			}
			if !polling {
				poll, polling = workPoller{cancel: j.ep.cancel}, true
			}
			j.runChunk(ch, &poll)
		}
	}
	for i := 1; i < parts; i++ {
		q := (p + i) % parts
		for {
			ch, ok := j.claim(q, !backward)
			if !ok {
				break
			}
			if !polling {
				poll, polling = workPoller{cancel: j.ep.cancel}, true
			}
			j.runChunk(ch, &poll)
		}
	}
}

// claim takes the first (or, from the back, the last) unclaimed chunk of
// part p's range.
func (j *packedRowsJob[T]) claim(p int, back bool) (int, bool) {
	r := &j.ranges[p]
	for {
		v := r.Load()
		lo, hi := uint32(v), uint32(v>>32)
		if lo >= hi {
			return 0, false
		}
		next, ch := uint64(lo+1)|uint64(hi)<<32, int(lo)
		if back {
			next, ch = uint64(lo)|uint64(hi-1)<<32, int(hi-1)
		}
		if r.CompareAndSwap(v, next) {
			return ch, true
		}
	}
}

// runChunk computes the columns of chunk ch: its full panels in one kernel
// call, and the partial last panel, if the chunk holds it, through the
// scratch tile.
func (j *packedRowsJob[T]) runChunk(ch int, poll *workPoller) {
	// A stopped call still counts its chunks off: the caller waits for all.
	if poll.stopped(j.m * j.chunkPanels * j.kern.nr * j.k) {
		j.left.Add(-1)
		return
	}
	nr, k := j.kern.nr, j.k
	q0 := ch * j.chunkPanels
	q1 := min(q0+j.chunkPanels, j.panels)
	full := min(q1, j.n/nr)
	if full > q0 {
		var bias *T
		if j.flags&flagBias != 0 {
			bias = &j.ep.bias[q0*nr]
		}
		j.fn(k, &j.a[0], j.lda, &j.pb[q0*k*nr], full-q0, &j.c[q0*nr], j.ldc, j.alpha, j.beta, bias, j.flags)
	}
	if q1 > full {
		j.partialPanel(full)
	}
	if j.goAct {
		for i := 0; i < j.m; i++ {
			j.ep.applyAct(j.c[i*j.ldc+q0*nr : i*j.ldc+min(q1*nr, j.n)])
		}
	}
	j.left.Add(-1)
}

// partialPanel computes the last panel, q, which holds fewer than nr
// columns of C: the kernel of the panel's width writes its sums to the
// scratch tile, and the epilogue stores the columns that exist.
func (j *packedRowsJob[T]) partialPanel(q int) {
	nr, k, w := j.kern.nr, j.k, j.last
	t := j.tile
	j.lastFn(k, &j.a[0], j.lda, &j.pb[q*k*nr], 1, &t[0], w, 1, 0, nil, 0)
	j0 := q * nr
	for i := 0; i < j.m; i++ {
		row := j.c[i*j.ldc+j0 : i*j.ldc+j.n]
		for c, s := range t[i*w : i*w+len(row)] {
			v := j.alpha * s
			if j.flags&flagLoadC != 0 {
				v += j.beta * row[c]
			}
			if j.flags&flagBias != 0 {
				v += j.ep.bias[j0+c]
			}
			if j.flags&flagReLU != 0 && v < 0 {
				v = 0
			}
			row[c] = v
		}
	}
}
