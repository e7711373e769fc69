package kiln

import (
	"fmt"
	"math"
)

// Reductions of float32 slices: of a whole slice (Sum, Max, …), of each row
// of a row-major [rows, n] matrix (RowSum, …) and of its columns, across the
// rows (ColSum, …).
//
// Sums (Sum, SumSquares and their row and column forms, and the sums inside
// Softmax and LayerNorm) are accurate for any length: the kernels add in
// float32 lanes — at most reduceFlush terms per lane — and fold the lanes
// into a float64 total, so the error of Sum is at most
//
//	(reduceFlush + 3 + log2(lanes))·2^-24·Σ|x[i]| + n·2^-53·Σ|x[i]|
//
// plus the final rounding to float32 (lanes is the lane count of the
// level's vectors times its unrolling, at most 64). For 16M elements this is
// below 3e-6·Σ|x[i]|, where a plain float32 loop can lose every digit.
// Max and Min follow XLA's max and min (NaN if any element is NaN, -0 < +0);
// Prod multiplies in float32 lanes (its rounding error grows with n, as
// XLA's does). The reductions of an empty slice give the identity: 0, -Inf,
// +Inf, 1.

// Sum returns the sum of the elements of x.
func Sum(x []float32) float32 {
	return float32(sum64(kernels().reduce, x))
}

func sum64(k *reduceKernels, x []float32) float64 {
	m := vectorPart(len(x), k.lanes)
	s := 0.0
	if m > 0 {
		s = k.sumF32(x[:m])
	}
	if m < len(x) {
		s += sumF32Go(x[m:])
	}
	return s
}

// SumSquares returns the sum of x[i]².
func SumSquares(x []float32) float32 {
	k := kernels().reduce
	m := vectorPart(len(x), k.lanes)
	s := 0.0
	if m > 0 {
		s = k.sumSquaresF32(x[:m])
	}
	if m < len(x) {
		s += sumSquaresF32Go(x[m:])
	}
	return float32(s)
}

// lanewiseReduce runs a reduction kernel on the whole vectors and its twin on
// the rest, and combines the two with op.
func lanewiseReduce(k, twin func(x []float32) float32, op func(a, b float32) float32, lanes int, x []float32) float32 {
	m := vectorPart(len(x), lanes)
	if m == len(x) && m > 0 {
		return k(x)
	}
	r := twin(x[m:])
	if m > 0 {
		r = op(k(x[:m]), r)
	}
	return r
}

// Max returns the largest element of x (XLA's max: NaN if any element is
// NaN, and +0 above -0); -Inf for an empty slice.
func Max(x []float32) float32 {
	k := kernels().reduce
	r := lanewiseReduce(k.reduceMaxF32, reduceMaxF32Go, maxXLA32, k.lanes, x)
	if r == 0 {
		// The kernels leave a zero result's sign to the order of the
		// elements; XLA's max prefers +0, which a second, exact pass finds.
		r = reduceMaxF32Go(x)
	}
	return r
}

// Min returns the smallest element of x (XLA's min); +Inf for an empty slice.
func Min(x []float32) float32 {
	k := kernels().reduce
	r := lanewiseReduce(k.reduceMinF32, reduceMinF32Go, minXLA32, k.lanes, x)
	if r == 0 {
		r = reduceMinF32Go(x) // the sign of zero, as in Max
	}
	return r
}

// Prod returns the product of the elements of x; 1 for an empty slice.
func Prod(x []float32) float32 {
	k := kernels().reduce
	return lanewiseReduce(k.reduceProdF32, reduceProdF32Go, func(a, b float32) float32 { return a * b }, k.lanes, x)
}

// maxAbs returns the largest |x[i]|, NaN if any element is NaN.
func maxAbs(x []float32) float32 {
	k := kernels().reduce
	return lanewiseReduce(k.maxAbsF32, maxAbsF32Go, maxXLA32, k.lanes, x)
}

// argChunk bounds the elements one argmax kernel call sees, so that its
// int32 lane indices cannot overflow.
const argChunk = 1 << 30

// ArgMax returns the index of the largest element of x, the first one when
// several are equal (-0 and +0 are equal); a NaN counts as larger than any
// number, so the first NaN's index is returned when there is one. It returns
// -1 for an empty slice.
func ArgMax(x []float32) int { return argExtreme(x, true) }

// ArgMin returns the index of the smallest element of x, with ArgMax's rules
// (a NaN counts as smaller than any number); -1 for an empty slice.
func ArgMin(x []float32) int { return argExtreme(x, false) }

func argExtreme(x []float32, greater bool) int {
	if len(x) == 0 {
		return -1
	}
	k := kernels().reduce
	kern, twin := k.argMinF32, argMinF32Go
	if greater {
		kern, twin = k.argMaxF32, argMaxF32Go
	}
	best, bi := float32(0), -1
	consider := func(v float32, i int) {
		if bi < 0 || betterArg(v, i, best, bi, greater) {
			best, bi = v, i
		}
	}
	for base := 0; base < len(x); base += argChunk {
		c := x[base:min(len(x), base+argChunk)]
		m := vectorPart(len(c), k.lanes)
		if m > 0 {
			vals, idx := kern(c[:m])
			for l := 0; l < k.lanes; l++ {
				if idx[l] != math.MaxInt32 {
					consider(vals[l], base+int(idx[l]))
				}
			}
		}
		if m < len(c) {
			vals, idx := twin(c[m:])
			if idx[0] != math.MaxInt32 {
				consider(vals[0], base+m+int(idx[0]))
			}
		}
	}
	return bi
}

// checkRowsOf panics unless x is a row-major [len(dst), n] matrix.
func checkRowsOf(fn string, lenDst, lenX, n int) {
	if n < 0 || lenX != lenDst*n {
		panic(fmt.Sprintf("kiln: %s: len(x) must be len(dst)·n = %d·%d, found %d", fn, lenDst, n, lenX))
	}
}

// RowSum sets dst[r] to the sum of row r of x, a row-major [len(dst), n]
// matrix, with Sum's accuracy. len(x) must be len(dst)·n; rows of no elements
// (n = 0) reduce to the identity (here 0).
func RowSum(dst, x []float32, n int) {
	checkRowsOf("RowSum", len(dst), len(x), n)
	k := kernels().reduce
	for r := range dst {
		dst[r] = float32(sum64(k, x[r*n:r*n+n]))
	}
}

// RowSumSquares sets dst[r] to the sum of squares of row r of x ([len(dst), n]).
func RowSumSquares(dst, x []float32, n int) {
	checkRowsOf("RowSumSquares", len(dst), len(x), n)
	for r := range dst {
		dst[r] = SumSquares(x[r*n : r*n+n])
	}
}

// RowMax sets dst[r] to the largest element of row r of x ([len(dst), n]), as Max.
func RowMax(dst, x []float32, n int) {
	checkRowsOf("RowMax", len(dst), len(x), n)
	for r := range dst {
		dst[r] = Max(x[r*n : r*n+n])
	}
}

// RowMin sets dst[r] to the smallest element of row r of x ([len(dst), n]), as Min.
func RowMin(dst, x []float32, n int) {
	checkRowsOf("RowMin", len(dst), len(x), n)
	for r := range dst {
		dst[r] = Min(x[r*n : r*n+n])
	}
}

// RowProd sets dst[r] to the product of row r of x ([len(dst), n]), as Prod.
func RowProd(dst, x []float32, n int) {
	checkRowsOf("RowProd", len(dst), len(x), n)
	for r := range dst {
		dst[r] = Prod(x[r*n : r*n+n])
	}
}

// RowArgMax sets dst[r] to the index within row r of x ([len(dst), n]) of
// its largest element, as ArgMax (-1 when n is 0).
func RowArgMax(dst []int32, x []float32, n int) {
	checkRowsOf("RowArgMax", len(dst), len(x), n)
	for r := range dst {
		dst[r] = int32(ArgMax(x[r*n : r*n+n]))
	}
}

// RowArgMin sets dst[r] to the index within row r of x ([len(dst), n]) of
// its smallest element, as ArgMin.
func RowArgMin(dst []int32, x []float32, n int) {
	checkRowsOf("RowArgMin", len(dst), len(x), n)
	for r := range dst {
		dst[r] = int32(ArgMin(x[r*n : r*n+n]))
	}
}

// colReduce folds the rows of x ([rows, n], n = len(dst)) into dst: dst is
// set to the identity, then eight rows at a time are combined as a balanced
// tree and folded into dst, the rest one at a time.
func colReduce(fn string, dst, x []float32, identity float32,
	acc8 func(k *reduceKernels) func(dst, r0, r1, r2, r3, r4, r5, r6, r7 []float32),
	twin8 func(dst, r0, r1, r2, r3, r4, r5, r6, r7 []float32),
	acc1 func(dst, x, y []float32)) {
	n := len(dst)
	if n == 0 && len(x) != 0 || n > 0 && len(x)%n != 0 {
		panic(fmt.Sprintf("kiln: %s: len(x) must be a multiple of len(dst) = n, found len(x) = %d, len(dst) = %d", fn, len(x), n))
	}
	for i := range dst {
		dst[i] = identity
	}
	if n == 0 {
		return
	}
	rows := len(x) / n
	k := kernels().reduce
	kern := acc8(k)
	m := vectorPart(n, k.lanes)
	row := func(i int) []float32 { return x[i*n : i*n+n] }
	r := 0
	for ; r+8 <= rows; r += 8 {
		if m > 0 {
			kern(dst[:m], row(r)[:m], row(r + 1)[:m], row(r + 2)[:m], row(r + 3)[:m], row(r + 4)[:m], row(r + 5)[:m], row(r + 6)[:m], row(r + 7)[:m])
		}
		if m < n {
			twin8(dst[m:], row(r)[m:], row(r + 1)[m:], row(r + 2)[m:], row(r + 3)[m:], row(r + 4)[m:], row(r + 5)[m:], row(r + 6)[m:], row(r + 7)[m:])
		}
	}
	for ; r < rows; r++ {
		acc1(dst, dst, row(r))
	}
}

// ColSum sets dst[j] to the sum of column j of x, a row-major [rows, n]
// matrix with n = len(dst): the sum over the rows. Rows are added eight at a
// time as a balanced tree, so the error is at most
// (rows/8 + 4)·2^-24·Σ|x[r][j]|.
func ColSum(dst, x []float32) {
	colReduce("ColSum", dst, x, 0, func(k *reduceKernels) func(dst, r0, r1, r2, r3, r4, r5, r6, r7 []float32) {
		return k.colAccSumF32
	}, colAccSumF32Go, Add)
}

// ColMax sets dst[j] to the largest element of column j of x ([rows, len(dst)]), as Max.
func ColMax(dst, x []float32) {
	colReduce("ColMax", dst, x, float32(math.Inf(-1)), func(k *reduceKernels) func(dst, r0, r1, r2, r3, r4, r5, r6, r7 []float32) {
		return k.colAccMaxF32
	}, colAccMaxF32Go, Maximum)
}

// ColMin sets dst[j] to the smallest element of column j of x ([rows, len(dst)]), as Min.
func ColMin(dst, x []float32) {
	colReduce("ColMin", dst, x, float32(math.Inf(1)), func(k *reduceKernels) func(dst, r0, r1, r2, r3, r4, r5, r6, r7 []float32) {
		return k.colAccMinF32
	}, colAccMinF32Go, Minimum)
}

// ColProd sets dst[j] to the product of column j of x ([rows, len(dst)]).
func ColProd(dst, x []float32) {
	colReduce("ColProd", dst, x, 1, func(k *reduceKernels) func(dst, r0, r1, r2, r3, r4, r5, r6, r7 []float32) {
		return k.colAccProdF32
	}, colAccProdF32Go, Mul)
}
