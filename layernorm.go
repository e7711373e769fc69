package kiln

import (
	"fmt"
	"math"
)

// LayerNorm normalises each row of x, a row-major [rows, n] matrix, into the
// same row of dst: dst[r][j] = (x[r][j] - mean)/sqrt(var + eps)·gamma[j] +
// beta[j], with the row's mean and (population) variance. gamma and beta have
// n elements, or are nil for 1 and 0. dst may be x.
//
// The variance is computed in two passes, centred: the mean first, then the
// sum of (x - mean)². Unlike the one-pass E[x²] - E[x]², this does not
// cancel when the mean is large against the spread, and unlike Welford's
// update it needs no division per element. Both sums have Sum's accuracy
// (float32 lanes folded into float64) relative to the spread of the row, not
// to its magnitude: the mean is x[0] plus the mean of x - x[0], and is
// carried as two float32 (its float64 value split in two), so that x - mean
// loses nothing to the mean's rounding. The third pass computes
// ((x - mean)·rstd)·gamma + beta, the last step as one fused multiply-add.
func LayerNorm(dst, x []float32, n int, gamma, beta []float32, eps float32) {
	checkRows("LayerNorm", len(dst), len(x), n)
	if gamma != nil && len(gamma) != n || beta != nil && len(beta) != n {
		panic(fmt.Sprintf("kiln: LayerNorm: gamma and beta must have n = %d elements or be nil, found %d and %d", n, len(gamma), len(beta)))
	}
	if n == 0 {
		return
	}
	rk, ek := kernels().reduce, kernels().eltwise
	v := vectorPart(n, rk.lanes)
	for r := 0; r < len(x); r += n {
		xr, dr := x[r:r+n], dst[r:r+n]
		// The mean as a pair of float32 (hi + lo), so that x - mean is
		// exact to float32 precision even when the mean is large against
		// the spread.
		// The sum runs over x - x[0], which is exact for elements near
		// x[0] and keeps the float32 partial sums at the scale of the spread
		// rather than of the values.
		x0 := xr[0]
		dev := 0.0
		if v > 0 {
			dev = rk.sumDevF32(xr[:v], x0)
		}
		if v < n {
			dev += sumDevF32Go(xr[v:], x0)
		}
		mean := float64(x0) + dev/float64(n)
		mHi := float32(mean)
		mLo := float32(mean - float64(mHi))
		ss := 0.0
		if v > 0 {
			ss = rk.sumSqDevF32(xr[:v], mHi, mLo)
		}
		if v < n {
			ss += sumSqDevF32Go(xr[v:], mHi, mLo)
		}
		rstd := float32(1 / math.Sqrt(ss/float64(n)+float64(eps)))
		switch {
		case gamma != nil && beta != nil:
			if v > 0 {
				rk.layerNormAffineF32(dr[:v], xr[:v], gamma[:v], beta[:v], mHi, mLo, rstd)
			}
			if v < n {
				layerNormAffineF32Go(dr[v:], xr[v:], gamma[v:], beta[v:], mHi, mLo, rstd)
			}
		default:
			if v > 0 {
				rk.normalizeF32(dr[:v], xr[:v], mHi, mLo, rstd)
			}
			if v < n {
				normalizeF32Go(dr[v:], xr[v:], mHi, mLo, rstd)
			}
			if gamma != nil {
				binary(ek.mulF32, mulF32Go, ek.lanes, dr, dr, gamma)
			}
			if beta != nil {
				binary(ek.addF32, addF32Go, ek.lanes, dr, dr, beta)
			}
		}
	}
}
