package kiln

import (
	"fmt"
	"math"
	"sync"
)

// Reductions, Softmax and LayerNorm of bfloat16 and binary16 rows (their
// bits, []uint16). The kernels widen each element to float32 in registers
// and compute as the float32 functions do — the sums in float32 lanes
// folded into float64, the extremes exactly — so that SumBF16(x) is
// Sum of the widened x, with its accuracy: the form JAX's exported modules
// take (convert to float32, then reduce). The reductions return float32
// (the caller rounds, as the module's convert back does); Softmax and
// LayerNorm round each output element once, to nearest even.

// narrowSet is one narrow type's reduce kernels at one level, or their
// twins, with the type's exact widening and XLA's narrowing.
type narrowSet struct {
	lanes           int
	widen           func(uint16) float32
	narrow          func(float32) uint16
	sum, sumSquares func([]uint16) float64
	sumDev          func([]uint16, float32) float64
	sumSqDev        func([]uint16, float32, float32) float64
	sumExpSub       func([]uint16, float32) float64
	expSubScale     func(dst, x []uint16, m, s float32)
	reduceMax       func([]uint16) float32
	reduceMin       func([]uint16) float32
	argMax, argMin  func([]uint16) ([16]float32, [16]int32)
	normalize       func(dst, x []uint16, meanHi, meanLo, rstd float32)
	layerNormAffine func(dst, x, gamma, beta []uint16, meanHi, meanLo, rstd float32)
	colAccSum       func(dst []float32, r0, r1, r2, r3, r4, r5, r6, r7 []uint16)
	colAccMax       func(dst []float32, r0, r1, r2, r3, r4, r5, r6, r7 []uint16)
	colAccMin       func(dst []float32, r0, r1, r2, r3, r4, r5, r6, r7 []uint16)
	// The softmax of rows up to softmaxRowMax: exponentials into a float32
	// row, then scaled and rounded.
	expSubSum func(dst []float32, x []uint16, m float32) float64
	scale     func(dst []uint16, x []float32, s float32)
}

// bf16Sets returns the bfloat16 kernels of k and their twins.
func bf16Sets(k *reduceKernels) (kern, twin narrowSet) {
	w, n := bf16Widen, f32ToBF16
	return narrowSet{k.lanes, w, n, k.sumBF16, k.sumSquaresBF16, k.sumDevBF16, k.sumSqDevBF16, k.sumExpSubBF16, k.expSubScaleBF16,
			k.reduceMaxBF16, k.reduceMinBF16, k.argMaxBF16, k.argMinBF16, k.normalizeBF16, k.layerNormAffineBF16,
			k.colAccSumBF16, k.colAccMaxBF16, k.colAccMinBF16, k.expSubSumBF16, k.scaleBF16},
		narrowSet{1, w, n, sumBF16Go, sumSquaresBF16Go, sumDevBF16Go, sumSqDevBF16Go, sumExpSubBF16Go, expSubScaleBF16Go,
			reduceMaxBF16Go, reduceMinBF16Go, argMaxBF16Go, argMinBF16Go, normalizeBF16Go, layerNormAffineBF16Go,
			colAccSumBF16Go, colAccMaxBF16Go, colAccMinBF16Go, expSubSumBF16Go, scaleBF16Go}
}

// f16Sets returns the binary16 kernels of k and their twins.
func f16Sets(k *reduceKernels) (kern, twin narrowSet) {
	w, n := f16Widen, f32ToF16
	return narrowSet{k.lanes, w, n, k.sumF16, k.sumSquaresF16, k.sumDevF16, k.sumSqDevF16, k.sumExpSubF16, k.expSubScaleF16,
			k.reduceMaxF16, k.reduceMinF16, k.argMaxF16, k.argMinF16, k.normalizeF16, k.layerNormAffineF16,
			k.colAccSumF16, k.colAccMaxF16, k.colAccMinF16, k.expSubSumF16, k.scaleF16},
		narrowSet{1, w, n, sumF16Go, sumSquaresF16Go, sumDevF16Go, sumSqDevF16Go, sumExpSubF16Go, expSubScaleF16Go,
			reduceMaxF16Go, reduceMinF16Go, argMaxF16Go, argMinF16Go, normalizeF16Go, layerNormAffineF16Go,
			colAccSumF16Go, colAccMaxF16Go, colAccMinF16Go, expSubSumF16Go, scaleF16Go}
}

// f32ToBF16 rounds f to bfloat16 bits as XLA converts (ir's rule; the
// kernels' vf32ToBF16).
func f32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		t := uint16(b >> 16)
		if t&0x7f == 0 {
			t |= 0x40
		}
		return t
	}
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

// vec is the length of the part of an n-element row the set's kernels take.
func (k narrowSet) vec(n int) int { return vectorPart(n, k.lanes) }

func narrowSum(k, t narrowSet, x []uint16, f func(s narrowSet) func([]uint16) float64) float64 {
	m := k.vec(len(x))
	s := 0.0
	if m > 0 {
		s = f(k)(x[:m])
	}
	if m < len(x) {
		s += f(t)(x[m:])
	}
	return s
}

func narrowExtreme(k, t narrowSet, x []uint16, greater bool) float32 {
	f, op := func(s narrowSet) func([]uint16) float32 { return s.reduceMin }, minXLA32
	if greater {
		f, op = func(s narrowSet) func([]uint16) float32 { return s.reduceMax }, maxXLA32
	}
	m := k.vec(len(x))
	r := f(t)(x[m:])
	if m > 0 {
		r = op(f(k)(x[:m]), r)
	}
	if r == 0 {
		r = f(t)(x) // the sign of a zero result, as Max settles it
	}
	return r
}

func narrowArg(k, t narrowSet, x []uint16, greater bool) int {
	if len(x) == 0 {
		return -1
	}
	f := func(s narrowSet) func([]uint16) ([16]float32, [16]int32) { return s.argMin }
	if greater {
		f = func(s narrowSet) func([]uint16) ([16]float32, [16]int32) { return s.argMax }
	}
	best, bi := float32(0), -1
	consider := func(v float32, i int) {
		if bi < 0 || betterArg(v, i, best, bi, greater) {
			best, bi = v, i
		}
	}
	for base := 0; base < len(x); base += argChunk {
		c := x[base:min(len(x), base+argChunk)]
		m := k.vec(len(c))
		if m > 0 {
			vals, idx := f(k)(c[:m])
			for l := 0; l < k.lanes; l++ {
				if idx[l] != math.MaxInt32 {
					consider(vals[l], base+int(idx[l]))
				}
			}
		}
		if m < len(c) {
			vals, idx := f(t)(c[m:])
			if idx[0] != math.MaxInt32 {
				consider(vals[0], base+m+int(idx[0]))
			}
		}
	}
	return bi
}

func sumOf(s narrowSet) func([]uint16) float64        { return s.sum }
func sumSquaresOf(s narrowSet) func([]uint16) float64 { return s.sumSquares }

// SumBF16 returns the sum of the bfloat16 elements of x, accumulated as Sum
// accumulates (float32 lanes folded into float64), rounded to float32.
func SumBF16(x []uint16) float32 {
	// Directly rather than through bf16Sets: a row program sums a row per
	// call, and building the sets costs as much as a short row's sum.
	t := kernels()
	k := t.reduce
	m := vectorPart(len(x), k.lanes)
	s := 0.0
	switch {
	case m > 0 && t.bf16Pairs != nil:
		s = t.bf16Pairs.sumRow(x[:m])
	case m > 0:
		s = k.sumBF16(x[:m])
	}
	if m < len(x) {
		s += sumBF16Go(x[m:])
	}
	return float32(s)
}

// SumF16 is SumBF16 for binary16 elements.
func SumF16(x []uint16) float32 {
	k, t := f16Sets(kernels().reduce)
	return float32(narrowSum(k, t, x, sumOf))
}

// SumSquaresBF16 returns the sum of the squares of the bfloat16 elements of x.
func SumSquaresBF16(x []uint16) float32 {
	k, t := bf16Sets(kernels().reduce)
	return float32(narrowSum(k, t, x, sumSquaresOf))
}

// SumSquaresF16 returns the sum of the squares of the binary16 elements of x.
func SumSquaresF16(x []uint16) float32 {
	k, t := f16Sets(kernels().reduce)
	return float32(narrowSum(k, t, x, sumSquaresOf))
}

// MaxBF16 returns the largest bfloat16 element of x as float32 (exact), with
// Max's rules (NaN if any is NaN, +0 above -0); -Inf for an empty slice.
func MaxBF16(x []uint16) float32 {
	k, t := bf16Sets(kernels().reduce)
	return narrowExtreme(k, t, x, true)
}

// MaxF16 is MaxBF16 for binary16 elements.
func MaxF16(x []uint16) float32 {
	k, t := f16Sets(kernels().reduce)
	return narrowExtreme(k, t, x, true)
}

// MinBF16 returns the smallest bfloat16 element of x as float32, with Min's
// rules; +Inf for an empty slice.
func MinBF16(x []uint16) float32 {
	k, t := bf16Sets(kernels().reduce)
	return narrowExtreme(k, t, x, false)
}

// MinF16 is MinBF16 for binary16 elements.
func MinF16(x []uint16) float32 {
	k, t := f16Sets(kernels().reduce)
	return narrowExtreme(k, t, x, false)
}

// ArgMaxBF16 is ArgMax for bfloat16 elements.
func ArgMaxBF16(x []uint16) int {
	k, t := bf16Sets(kernels().reduce)
	return narrowArg(k, t, x, true)
}

// ArgMaxF16 is ArgMax for binary16 elements.
func ArgMaxF16(x []uint16) int {
	k, t := f16Sets(kernels().reduce)
	return narrowArg(k, t, x, true)
}

// ArgMinBF16 is ArgMin for bfloat16 elements.
func ArgMinBF16(x []uint16) int {
	k, t := bf16Sets(kernels().reduce)
	return narrowArg(k, t, x, false)
}

// ArgMinF16 is ArgMin for binary16 elements.
func ArgMinF16(x []uint16) int {
	k, t := f16Sets(kernels().reduce)
	return narrowArg(k, t, x, false)
}

// RowSumBF16 sets dst[r] to the sum of row r of x, a row-major [len(dst), n]
// matrix of bfloat16 elements, as SumBF16 sums.
func RowSumBF16(dst []float32, x []uint16, n int) {
	checkRowsOf("RowSumBF16", len(dst), len(x), n)
	k, t := bf16Sets(kernels().reduce)
	for r := range dst {
		dst[r] = float32(narrowSum(k, t, x[r*n:r*n+n], sumOf))
	}
}

// RowSumF16 is RowSumBF16 for binary16 elements.
func RowSumF16(dst []float32, x []uint16, n int) {
	checkRowsOf("RowSumF16", len(dst), len(x), n)
	k, t := f16Sets(kernels().reduce)
	for r := range dst {
		dst[r] = float32(narrowSum(k, t, x[r*n:r*n+n], sumOf))
	}
}

// RowMaxBF16 sets dst[r] to the largest element of row r of x ([len(dst), n],
// bfloat16), as MaxBF16.
func RowMaxBF16(dst []float32, x []uint16, n int) {
	checkRowsOf("RowMaxBF16", len(dst), len(x), n)
	k, t := bf16Sets(kernels().reduce)
	for r := range dst {
		dst[r] = narrowExtreme(k, t, x[r*n:r*n+n], true)
	}
}

// RowMaxF16 is RowMaxBF16 for binary16 elements.
func RowMaxF16(dst []float32, x []uint16, n int) {
	checkRowsOf("RowMaxF16", len(dst), len(x), n)
	k, t := f16Sets(kernels().reduce)
	for r := range dst {
		dst[r] = narrowExtreme(k, t, x[r*n:r*n+n], true)
	}
}

// narrowColReduce folds the rows of x ([rows, n], n = len(dst)) into the
// float32 row dst, eight rows at a time, as colReduce does.
func narrowColReduce(fn string, dst []float32, x []uint16, identity float32, k, t narrowSet,
	acc8 func(s narrowSet) func(dst []float32, r0, r1, r2, r3, r4, r5, r6, r7 []uint16), op func(a, b float32) float32) {
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
	m := k.vec(n)
	row := func(i int) []uint16 { return x[i*n : i*n+n] }
	r := 0
	for ; r+8 <= rows; r += 8 {
		if m > 0 {
			acc8(k)(dst[:m], row(r)[:m], row(r + 1)[:m], row(r + 2)[:m], row(r + 3)[:m], row(r + 4)[:m], row(r + 5)[:m], row(r + 6)[:m], row(r + 7)[:m])
		}
		if m < n {
			acc8(t)(dst[m:], row(r)[m:], row(r + 1)[m:], row(r + 2)[m:], row(r + 3)[m:], row(r + 4)[m:], row(r + 5)[m:], row(r + 6)[m:], row(r + 7)[m:])
		}
	}
	for ; r < rows; r++ {
		for j, h := range row(r) {
			dst[j] = op(dst[j], k.widen(h))
		}
	}
}

func colSumOf(s narrowSet) func([]float32, []uint16, []uint16, []uint16, []uint16, []uint16, []uint16, []uint16, []uint16) {
	return s.colAccSum
}

func colMaxOf(s narrowSet) func([]float32, []uint16, []uint16, []uint16, []uint16, []uint16, []uint16, []uint16, []uint16) {
	return s.colAccMax
}

func colMinOf(s narrowSet) func([]float32, []uint16, []uint16, []uint16, []uint16, []uint16, []uint16, []uint16, []uint16) {
	return s.colAccMin
}

func add32(a, b float32) float32 { return a + b }

// ColSumBF16 sets dst[j] to the sum of column j of x, a row-major
// [rows, len(dst)] matrix of bfloat16 elements, accumulated in float32 as
// ColSum accumulates.
func ColSumBF16(dst []float32, x []uint16) {
	k, t := bf16Sets(kernels().reduce)
	narrowColReduce("ColSumBF16", dst, x, 0, k, t, colSumOf, add32)
}

// ColSumF16 is ColSumBF16 for binary16 elements.
func ColSumF16(dst []float32, x []uint16) {
	k, t := f16Sets(kernels().reduce)
	narrowColReduce("ColSumF16", dst, x, 0, k, t, colSumOf, add32)
}

// ColMaxBF16 sets dst[j] to the largest element of column j of x
// ([rows, len(dst)], bfloat16), with Max's rules.
func ColMaxBF16(dst []float32, x []uint16) {
	k, t := bf16Sets(kernels().reduce)
	narrowColReduce("ColMaxBF16", dst, x, float32(math.Inf(-1)), k, t, colMaxOf, maxXLA32)
}

// ColMaxF16 is ColMaxBF16 for binary16 elements.
func ColMaxF16(dst []float32, x []uint16) {
	k, t := f16Sets(kernels().reduce)
	narrowColReduce("ColMaxF16", dst, x, float32(math.Inf(-1)), k, t, colMaxOf, maxXLA32)
}

// ColMinBF16 sets dst[j] to the smallest element of column j of x
// ([rows, len(dst)], bfloat16), with Min's rules.
func ColMinBF16(dst []float32, x []uint16) {
	k, t := bf16Sets(kernels().reduce)
	narrowColReduce("ColMinBF16", dst, x, float32(math.Inf(1)), k, t, colMinOf, minXLA32)
}

// ColMinF16 is ColMinBF16 for binary16 elements.
func ColMinF16(dst []float32, x []uint16) {
	k, t := f16Sets(kernels().reduce)
	narrowColReduce("ColMinF16", dst, x, float32(math.Inf(1)), k, t, colMinOf, minXLA32)
}

// SoftmaxBF16 is Softmax for bfloat16 rows: each output element is the
// float32 softmax of the widened row (with Softmax's accuracy) rounded to
// bfloat16 once. A row of up to 4096 elements keeps its exponentials in a
// float32 row in L1 between the sum and the scaling; a longer one computes
// them twice rather than widening it in memory. dst may be x.
func SoftmaxBF16(dst, x []uint16, n int) {
	k, t := bf16Sets(kernels().reduce)
	narrowSoftmax("SoftmaxBF16", k, t, dst, x, n)
}

// SoftmaxF16 is SoftmaxBF16 for binary16 rows.
func SoftmaxF16(dst, x []uint16, n int) {
	k, t := f16Sets(kernels().reduce)
	narrowSoftmax("SoftmaxF16", k, t, dst, x, n)
}

// softmaxRowMax is the longest row whose exponentials narrowSoftmax keeps
// in a float32 row (16 KiB, in L1) rather than computing them twice.
const softmaxRowMax = 4096

var softmaxRows = sync.Pool{New: func() any { return new([softmaxRowMax]float32) }}

func narrowSoftmax(fn string, k, t narrowSet, dst, x []uint16, n int) {
	checkRows(fn, len(dst), len(x), n)
	if n == 0 {
		return
	}
	v := k.vec(n)
	var row *[softmaxRowMax]float32
	if n <= softmaxRowMax {
		row = softmaxRows.Get().(*[softmaxRowMax]float32)
		defer softmaxRows.Put(row)
	}
	for r := 0; r < len(x); r += n {
		xr, dr := x[r:r+n], dst[r:r+n]
		m := narrowExtreme(k, t, xr, true)
		s := 0.0
		if row != nil {
			e := row[:n]
			if v > 0 {
				s = k.expSubSum(e[:v], xr[:v], m)
			}
			if v < n {
				s += t.expSubSum(e[v:], xr[v:], m)
			}
			scale := float32(1 / s)
			if v > 0 {
				k.scale(dr[:v], e[:v], scale)
			}
			if v < n {
				t.scale(dr[v:], e[v:], scale)
			}
			continue
		}
		if v > 0 {
			s = k.sumExpSub(xr[:v], m)
		}
		if v < n {
			s += t.sumExpSub(xr[v:], m)
		}
		scale := float32(1 / s)
		if v < n {
			t.expSubScale(dr[v:], xr[v:], m, scale)
		}
		if v > 0 {
			k.expSubScale(dr[:v], xr[:v], m, scale)
		}
	}
}

// LayerNormBF16 is LayerNorm for bfloat16 rows (x, dst, and gamma and beta
// when not nil): the row's statistics and the normalised, scaled and
// shifted values are LayerNorm's on the widened elements, and each output
// element is rounded to bfloat16 once. dst may be x.
func LayerNormBF16(dst, x []uint16, n int, gamma, beta []uint16, eps float32) {
	k, t := bf16Sets(kernels().reduce)
	narrowLayerNorm("LayerNormBF16", k, t, dst, x, n, gamma, beta, eps)
}

// LayerNormF16 is LayerNormBF16 for binary16 rows.
func LayerNormF16(dst, x []uint16, n int, gamma, beta []uint16, eps float32) {
	k, t := f16Sets(kernels().reduce)
	narrowLayerNorm("LayerNormF16", k, t, dst, x, n, gamma, beta, eps)
}

func narrowLayerNorm(fn string, k, t narrowSet, dst, x []uint16, n int, gamma, beta []uint16, eps float32) {
	checkRows(fn, len(dst), len(x), n)
	if gamma != nil && len(gamma) != n || beta != nil && len(beta) != n {
		panic(fmt.Sprintf("kiln: %s: gamma and beta must have n = %d elements or be nil, found %d and %d", fn, n, len(gamma), len(beta)))
	}
	if n == 0 {
		return
	}
	v := k.vec(n)
	for r := 0; r < len(x); r += n {
		xr, dr := x[r:r+n], dst[r:r+n]
		// As LayerNorm: the mean from the deviations from x[0], carried
		// as two float32, then the centred sum of squares.
		x0 := k.widen(xr[0])
		dev := 0.0
		if v > 0 {
			dev = k.sumDev(xr[:v], x0)
		}
		if v < n {
			dev += t.sumDev(xr[v:], x0)
		}
		mean := float64(x0) + dev/float64(n)
		mHi := float32(mean)
		mLo := float32(mean - float64(mHi))
		ss := 0.0
		if v > 0 {
			ss = k.sumSqDev(xr[:v], mHi, mLo)
		}
		if v < n {
			ss += t.sumSqDev(xr[v:], mHi, mLo)
		}
		rstd := float32(1 / math.Sqrt(ss/float64(n)+float64(eps)))
		switch {
		case gamma != nil && beta != nil:
			if v < n {
				t.layerNormAffine(dr[v:], xr[v:], gamma[v:], beta[v:], mHi, mLo, rstd)
			}
			if v > 0 {
				k.layerNormAffine(dr[:v], xr[:v], gamma[:v], beta[:v], mHi, mLo, rstd)
			}
		case gamma == nil && beta == nil:
			if v < n {
				t.normalize(dr[v:], xr[v:], mHi, mLo, rstd)
			}
			if v > 0 {
				k.normalize(dr[:v], xr[:v], mHi, mLo, rstd)
			}
		default:
			// One of gamma and beta: LayerNorm's float32 steps (normalise,
			// then scale or shift), element by element, rounded once.
			for j, h := range xr {
				y := float32(float32((k.widen(h)-mHi)-mLo) * rstd)
				if gamma != nil {
					y = float32(y * k.widen(gamma[j]))
				}
				if beta != nil {
					y += k.widen(beta[j])
				}
				dr[j] = k.narrow(y)
			}
		}
	}
}
