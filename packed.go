package kiln

import (
	"fmt"
	"runtime"
	"sync/atomic"
)

// PackedB is a k×n float32 matrix packed once into the layout of the chosen
// micro-kernel, for use as the B operand of many SgemmPacked calls (constant
// weights packed at compile time). It is immutable and safe for concurrent
// use. It is tied to the kernel set in use when it was packed (see SetISA).
type PackedB struct {
	k, n  int
	nr    int
	level isaLevel
	// data holds op(B) as panels of nr columns, each k×nr row-major, one
	// after another: the layout the micro-kernels stream, contiguous so that
	// no two rows compete for a cache set. The last panel, when n is not a
	// multiple of nr, is only lastPanelWidth(n) columns wide (the columns
	// left, rounded up to whole vectors, the rest zeroed): a 10-column
	// classifier packed in 64-column panels would stream 6.4 times its size.
	// nr zeros follow, so that the kernels, which load whole nr-column rows
	// of a panel and mask the columns past n, never read past the end.
	data []float32
	// sweeps counts the calls on the packed-rows path (M ≤ 4), which stream
	// all of B for a few FMAs per element: every second call sweeps each
	// thread's panels back to front, so that it starts on the panels the
	// previous call read last, which are still in the caches when B (or the
	// model's weights in turn) is a little larger than they are. On the
	// example MLP's 2.7 MB of weights that reads a quarter more bytes per
	// second than sweeping front to back every time.
	sweeps atomic.Uint32
}

// PackB packs op(B), a k×n matrix (B itself, or Bᵀ when transB), with leading
// dimension ldb. It panics on the programmer errors Sgemm panics on.
func PackB(transB bool, k, n int, b []float32, ldb int) *PackedB {
	if k < 0 || n < 0 {
		panic(fmt.Sprintf("kiln: PackB: sizes must not be negative, found k=%d n=%d", k, n))
	}
	rows, cols := k, n
	if transB {
		rows, cols = n, k
	}
	checkMatrix("PackB", "b", "ldb", rows, cols, len(b), ldb)
	set := kernels()
	nr := set.sgemm.nr
	p := &PackedB{k: k, n: n, nr: nr, level: set.level}
	size := n/nr*k*nr + nr
	if n%nr != 0 {
		size += k * set.sgemm.lastPanelWidth(n)
	}
	p.data = hugeAlloc(size, p)
	if k > 0 && n > 0 {
		j := &packJob{dst: p.data, b: b, ldb: ldb, transB: transB, k: k, n: n, nr: nr, last: set.sgemm.lastPanelWidth(n)}
		j.parts = min(Threads(), (n+nr-1)/nr, max(1, 4*k*n/minPackPart))
		runParallel(j, j.parts, &j.done)
	}
	return p
}

// minPackPart is the least size of B, in bytes, worth one more goroutine in
// PackB: packing is bound by memory and by the first touch of the packed
// matrix's pages (the kernel zeroing each huge page as it is faulted in),
// which two cores get through faster than one.
var minPackPart = 1 << 20

// packJob packs B on several goroutines, each a contiguous run of panels.
type packJob struct {
	dst, b          []float32
	ldb             int
	transB          bool
	k, n, nr, parts int
	last            int // the last panel's width
	done            pending
}

func (j *packJob) runPart(p int) {
	panels := (j.n + j.nr - 1) / j.nr
	q0, q1 := p*panels/j.parts, (p+1)*panels/j.parts
	full := j.n / j.nr
	if c0, c1 := q0*j.nr, min(q1, full)*j.nr; c1 > c0 {
		packB(j.dst[q0*j.k*j.nr:], j.b, j.ldb, j.transB, 0, j.k, c0, c1-c0, j.nr)
	}
	if q1 > full {
		packB(j.dst[full*j.k*j.nr:], j.b, j.ldb, j.transB, 0, j.k, full*j.nr, j.n-full*j.nr, j.last)
	}
}

// K returns the number of rows of the packed matrix (the GEMM's depth).
func (p *PackedB) K() int { return p.k }

// N returns the number of columns of the packed matrix.
func (p *PackedB) N() int { return p.n }

// SgemmPacked computes C = alpha·op(A)·B + beta·C where B was packed by
// PackB: op(A) is m×K(), C is m×N(). Semantics and panics are Sgemm's.
func SgemmPacked(transA bool, m int, alpha float32, a []float32, lda int, b *PackedB, beta float32, c []float32, ldc int) {
	SgemmPackedEpilogue(transA, m, alpha, a, lda, b, beta, c, ldc, Epilogue{})
}

// SgemmPackedEpilogue is SgemmPacked followed by the epilogue (see SgemmEpilogue).
func SgemmPackedEpilogue(transA bool, m int, alpha float32, a []float32, lda int, b *PackedB, beta float32, c []float32, ldc int, ep Epilogue) {
	if b == nil {
		panic("kiln: SgemmPacked: packed B is nil")
	}
	set := kernels()
	g := set.sgemm
	if b.nr != g.nr {
		panic(fmt.Sprintf("kiln: SgemmPacked: B was packed for the %d-column tiles of the %s kernels, the %s kernels use %d; pack it again after SetISA", b.nr, b.level, set.level, g.nr))
	}
	rowsA, colsA := m, b.k
	if transA {
		rowsA, colsA = b.k, m
	}
	if m < 0 {
		panic(fmt.Sprintf("kiln: SgemmPacked: m must not be negative, found %d", m))
	}
	checkMatrix("SgemmPacked", "a", "lda", rowsA, colsA, len(a), lda)
	checkMatrix("SgemmPacked", "c", "ldc", m, b.n, len(c), ldc)
	checkEpilogue("SgemmPacked", b.n, ep)
	gemm(g, transA, false, m, b.n, b.k, alpha, a, lda, nil, b.n, b.data, &b.sweeps, beta, c, ldc, epilogue32(ep))
	// b.data may live outside the Go heap (hugeAlloc), released by b's
	// finalizer: b must stay reachable until the kernels are done with it.
	runtime.KeepAlive(b)
}
