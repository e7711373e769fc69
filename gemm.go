package kiln

import "fmt"

// Sgemm computes C = alpha·op(A)·op(B) + beta·C on row-major float32
// matrices, with BLAS semantics: op(X) is X or Xᵀ as transX says, op(A) is
// m×k, op(B) is k×n, C is m×n, and lda, ldb, ldc are the distances between
// consecutive rows of the stored matrices. When beta is 0, C is written and
// never read (NaN and Inf in C are ignored); when alpha is 0 or k is 0, A and
// B are not read.
//
// Sgemm panics on programmer errors, like gonum's BLAS: a negative size, a
// leading dimension smaller than the stored row, or a slice too short for
// the shape. The message names the argument, what was needed and what was found.
// It runs on up to Threads() goroutines and does not allocate in steady state.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkGemm("Sgemm", transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	gemm(kernels().sgemm, transA, transB, m, n, k, alpha, a, lda, b, ldb, nil, nil, beta, c, ldc, epilogue[float32]{})
}

// SgemmEpilogue is Sgemm followed, in the micro-kernel's store, by the
// epilogue: C(i,j) = act(alpha·(op(A)·op(B))(i,j) + beta·C(i,j) + ep.Bias[j]).
func SgemmEpilogue(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, ep Epilogue) {
	checkGemm("SgemmEpilogue", transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	checkEpilogue("SgemmEpilogue", n, ep)
	gemm(kernels().sgemm, transA, transB, m, n, k, alpha, a, lda, b, ldb, nil, nil, beta, c, ldc, epilogue32(ep))
}

// Dgemm is Sgemm for float64.
func Dgemm(transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	checkGemm("Dgemm", transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	gemm(kernels().dgemm, transA, transB, m, n, k, alpha, a, lda, b, ldb, nil, nil, beta, c, ldc, epilogue[float64]{})
}

func epilogue32(ep Epilogue) epilogue[float32] {
	return epilogue[float32]{bias: ep.Bias, act: ep.Act, actFn: activations[ep.Act].apply32, cancel: ep.Cancel}
}

// checkGemm panics with a precise message when the arguments cannot describe
// the matrices (see Sgemm).
func checkGemm(fn string, transA, transB bool, m, n, k, lenA, lda, lenB, ldb, lenC, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic(fmt.Sprintf("kiln: %s: sizes must not be negative, found m=%d n=%d k=%d", fn, m, n, k))
	}
	rowsA, colsA := m, k
	if transA {
		rowsA, colsA = k, m
	}
	rowsB, colsB := k, n
	if transB {
		rowsB, colsB = n, k
	}
	checkMatrix(fn, "a", "lda", rowsA, colsA, lenA, lda)
	checkMatrix(fn, "b", "ldb", rowsB, colsB, lenB, ldb)
	checkMatrix(fn, "c", "ldc", m, n, lenC, ldc)
}

func checkMatrix(fn, name, ldName string, rows, cols, length, ld int) {
	if ld < max(1, cols) {
		panic(fmt.Sprintf("kiln: %s: %s must be at least max(1, %d), the stored row of %s, found %d", fn, ldName, cols, name, ld))
	}
	if rows == 0 || cols == 0 {
		return
	}
	if need := (rows-1)*ld + cols; length < need {
		panic(fmt.Sprintf("kiln: %s: len(%s) must be at least %d for a %d×%d matrix with %s=%d, found %d", fn, name, need, rows, cols, ldName, ld, length))
	}
}

func checkEpilogue(fn string, n int, ep Epilogue) {
	if ep.Bias != nil && len(ep.Bias) < n {
		panic(fmt.Sprintf("kiln: %s: len(ep.Bias) must be at least n=%d, found %d", fn, n, len(ep.Bias)))
	}
	if int(ep.Act) >= len(activations) {
		panic(fmt.Sprintf("kiln: %s: unknown activation %d, want one of 0..%d", fn, ep.Act, len(activations)-1))
	}
}
