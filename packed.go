package kiln

import "fmt"

// PackedB is a k×n float32 matrix packed once into the layout of the chosen
// micro-kernel, for use as the B operand of many SgemmPacked calls (constant
// weights packed at compile time). It is immutable and safe for concurrent use.
type PackedB struct {
	k, n int
	// data is op(B) row-major with leading dimension ld: the transpose is
	// applied and the columns are padded with zeros to a multiple of the
	// kernels' tile width, so every panel is full and read in place.
	data []float32
	ld   int
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
	// Padding to a multiple of every tile width of the build keeps the
	// packed matrix valid whichever level SetISA selects later.
	nr := packPad
	p := &PackedB{k: k, n: n, ld: (max(n, 1) + nr - 1) / nr * nr}
	p.data = make([]float32, k*p.ld)
	for i := 0; i < k; i++ {
		row := p.data[i*p.ld : i*p.ld+n]
		if !transB {
			copy(row, b[i*ldb:i*ldb+n])
			continue
		}
		for j := range row {
			row[j] = b[j*ldb+i]
		}
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
	g := active.Load().s
	if b.ld%g.nr != 0 {
		panic(fmt.Sprintf("kiln: SgemmPacked: B is padded to %d columns, not a multiple of the %d-column tile in use", b.ld, g.nr))
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
	gemm(g, transA, false, m, b.n, b.k, alpha, a, lda, nil, b.n, b.data, b.ld, beta, c, ldc, epilogue32(ep))
}
