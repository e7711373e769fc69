package kiln

import (
	"fmt"
	"runtime"
)

// PackedB is a k×n float32 matrix packed once into the layout of the chosen
// micro-kernel, for use as the B operand of many SgemmPacked calls (constant
// weights packed at compile time). It is immutable and safe for concurrent
// use. It is tied to the kernel set in use when it was packed (see SetISA).
type PackedB struct {
	k, n  int
	nr    int
	level isaLevel
	// data holds op(B) as panels of nr columns, each k×nr row-major with the
	// columns past n zeroed, one after another: the layout the micro-kernels
	// stream, contiguous so that no two rows compete for a cache set.
	data []float32
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
	set := active.Load()
	nr := set.s.nr
	p := &PackedB{k: k, n: n, nr: nr, level: set.level}
	p.data = hugeAlloc(k*((n+nr-1)/nr*nr), p)
	if k > 0 && n > 0 {
		packB(p.data, b, ldb, transB, 0, k, 0, n, nr)
	}
	return p
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
	set := active.Load()
	g := set.s
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
	gemm(g, transA, false, m, b.n, b.k, alpha, a, lda, nil, b.n, b.data, beta, c, ldc, epilogue32(ep))
	// b.data may live outside the Go heap (hugeAlloc), released by b's
	// finalizer: b must stay reachable until the kernels are done with it.
	runtime.KeepAlive(b)
}
