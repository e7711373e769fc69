package kiln

import (
	"fmt"
	"math"
	"sync"
)

// checkRows panics unless dst and x have the same length, a whole number of
// rows of n elements.
func checkRows(fn string, lenDst, lenX, n int) {
	if lenDst != lenX {
		panic(fmt.Sprintf("kiln: %s: the lengths of dst and x must be equal, found %d and %d", fn, lenDst, lenX))
	}
	if n < 0 || n == 0 && lenX != 0 || n > 0 && lenX%n != 0 {
		panic(fmt.Sprintf("kiln: %s: len(x) must be a multiple of n > 0, found len(x) = %d, n = %d", fn, lenX, n))
	}
}

// Softmax sets each row of dst to the softmax of the same row of x, both
// row-major [rows, n]: dst[r][j] = e^(x[r][j]-m) / Σk e^(x[r][k]-m), with m
// the row's largest element. dst may be x.
//
// Each row takes three passes: its maximum; e^(x-m) written to dst and
// summed (in float32 lanes folded into float64, see Sum); dst scaled by the
// reciprocal of the sum. The second and third passes find the row in cache
// when it fits there (rows of a few thousand elements fit in L1). x - m is
// carried exactly (with its rounding error) into the exponential, so the
// relative error of each output is below 5·2^-24 (Exp's error, the carried
// difference, the reciprocal and the product) plus the relative error of the
// sum, at most (reduceFlush + 3 + log2 64)·2^-24 and in practice near 2^-24
// (subnormal outputs: an absolute error below 2^-148). -Inf elements give 0; a row of only -Inf, or with +Inf or NaN, gives NaN.
func Softmax(dst, x []float32, n int) {
	checkRows("Softmax", len(dst), len(x), n)
	if n == 0 {
		return
	}
	rk, ek := kernels().reduce, kernels().eltwise
	if n%rk.lanes != 0 && rk.expSubSumF32 != nil && rk.lanes <= maxShortRow {
		softmaxPaddedTails(rk, ek, dst, x, n)
		return
	}
	for r := 0; r < len(x); r += n {
		xr, dr := x[r:r+n], dst[r:r+n]
		m := lanewiseReduce(rk.reduceMaxF32, reduceMaxF32Go, maxXLA32, rk.lanes, xr)
		s := expSubSum(rk, dr, xr, m)
		withScalar(ek.mulScalarF32, mulScalarF32Go, ek.lanes, dr, dr, float32(1/s))
	}
}

// expSubSum sets dst[i] = e^(x[i]-m) and returns their sum.
func expSubSum(k *reduceKernels, dst, x []float32, m float32) float64 {
	v := vectorPart(len(x), k.lanes)
	s := 0.0
	if v > 0 {
		s = k.expSubSumF32(dst[:v], x[:v], m)
	}
	if v < len(x) {
		s += expSubSumF32Go(dst[v:], x[v:], m)
	}
	return s
}

// maxShortRow bounds the vectors softmaxPaddedTails pads to.
const maxShortRow = 16

// paddedRows holds softmaxPaddedTails' buffers.
var paddedRows = sync.Pool{New: func() any { return new([2 * maxShortRow]float32) }}

// softmaxPaddedTails is Softmax for rows that end in a partial vector: the
// whole vectors run through the vector kernels as before, and the partial
// one is padded to a vector with −∞ (whose exponential, 0, adds nothing to
// the sum and never wins the maximum) and runs through them too — lane for
// lane the values and lane sums the Go twins give that tail, without their
// cost (the twins' exponential is a page of scalar float32 arithmetic per
// element: 68 ns).
func softmaxPaddedTails(rk *reduceKernels, ek *eltwiseKernels, dst, x []float32, n int) {
	lanes := rk.lanes
	v := vectorPart(n, lanes)
	tail := n - v
	// The kernels are function values, so buffers on the stack would
	// escape to the heap on every call: they come from a pool.
	bufs := paddedRows.Get().(*[2 * maxShortRow]float32)
	defer paddedRows.Put(bufs)
	in, out := bufs[:maxShortRow], bufs[maxShortRow:]
	ninf := float32(math.Inf(-1))
	for j := tail; j < lanes; j++ {
		in[j] = ninf
	}
	for r := 0; r < len(x); r += n {
		xr, dr := x[r:r+n], dst[r:r+n]
		copy(in[:tail], xr[v:])
		m := rk.reduceMaxF32(in[:lanes])
		if v > 0 {
			m = maxXLA32(rk.reduceMaxF32(xr[:v]), m)
		}
		s := 0.0
		if v > 0 {
			s = rk.expSubSumF32(dr[:v], xr[:v], m)
		}
		s += rk.expSubSumF32(out[:lanes], in[:lanes], m)
		copy(dr[v:], out[:tail])
		withScalar(ek.mulScalarF32, mulScalarF32Go, ek.lanes, dr, dr, float32(1/s))
	}
}
