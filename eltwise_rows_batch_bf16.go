package kiln

import (
	"fmt"
	"math"
	"slices"
)

// The bfloat16 layer-norm passes over a batch of rows: the row functions
// (SumBF16, SumSqDevBoundKeepBF16 and SumSqDevBF16, SubMulKeptBF16 and
// SubDivScalarBF16 through BF16Reciprocal) applied to rows j = 0 …
// len(s)−1 of n elements each, row j being x[j·n : j·n+n], with the same
// results, bit for bit. A row of 768 elements takes its three kernels
// about 50 ns in L1; the per-row checks, the dispatch and the scalar
// chain between a kernel's result and the next kernel's argument took a
// third as much again. Here they are paid once per batch, the scalars of
// all the rows are computed before the kernels run, and the kernels run
// back to back.

// checkRowsBF16 panics unless x holds rows rows of n elements (a programmer
// error).
func checkRowsBF16(fn, name string, x []uint16, rows, n int) {
	if n < 0 || len(x) < rows*n {
		panic(fmt.Sprintf("kiln.%s: %s has %d elements, fewer than %d rows of %d", fn, name, len(x), rows, n))
	}
}

// checkRowScalars panics unless each of lens equals rows.
func checkRowScalars(fn, names string, rows int, lens ...int) {
	for _, l := range lens {
		if l != rows {
			// A copy, as checkLen formats: lens stays on the stack.
			lengthPanic(fn, names+" (one per row, "+fmt.Sprint(rows)+")", slices.Clone(lens))
		}
	}
}

// rowsAtOnce is the most rows a batch pass takes through each of its
// phases before the next: its per-row values live on the stack.
const rowsAtOnce = 16

// SumRowsBF16 sets sums[j] = SumBF16(row j of x) for each of the len(sums)
// rows of n elements.
func SumRowsBF16(sums []float32, x []uint16, n int) {
	checkRowsBF16("SumRowsBF16", "x", x, len(sums), n)
	t := kernels()
	p := t.bf16Pairs
	if p == nil || n == 0 || vectorPart(n, t.reduce.lanes) != n {
		for j := range sums {
			sums[j] = SumBF16(x[j*n : j*n+n])
		}
		return
	}
	var totals [rowsAtOnce]float64
	for lo := 0; lo < len(sums); lo += rowsAtOnce {
		hi := min(len(sums), lo+rowsAtOnce)
		p.sum(noEscape(x[lo*n:hi*n]), n, noEscape(totals[:hi-lo]))
		for j := lo; j < hi; j++ {
			sums[j] = float32(totals[j-lo])
		}
	}
}

// pairsDeviationsNormalBits is pairsDeviationsNormal(s) from s's biased
// exponent e: BF16DevFloor(s) = 2^(e−135) ≥ 2^-63 for 72 ≤ e < 255.
func pairsDeviationsNormalBits(s float32) bool {
	return uint32(math.Float32bits(s)>>23&0xff)-72 < 255-72
}

// SqDevRowsBF16 sets, for each row j of the len(s) rows of n elements of
// x, sums[j] to the sum of bf16(d·d) for d = bf16(x[i] − s[j]) and lows[j]
// and highs[j] to bounds on its non-zero |d| (NaN d aside): where s[j]
// has a BF16DevFloor, that floor and SumSqDevBoundBF16's bound, keeping
// the deviations in row j of keep (keep may be nil) as
// SumSqDevBoundKeepBF16 does; elsewhere SumSqDevBF16's least and largest.
// With keep, out (nil, or as long as x) is where the rows' results go
// next: the pass fetches its lines for writing while it computes, so that
// the pass that writes them finds them in the cache.
func SqDevRowsBF16(sums, lows, highs []float32, x, keep, out []uint16, n int, s []float32) {
	rows := len(s)
	checkRowScalars("SqDevRowsBF16", "sums, lows, highs", rows, len(sums), len(lows), len(highs))
	checkRowsBF16("SqDevRowsBF16", "x", x, rows, n)
	if keep != nil {
		checkRowsBF16("SqDevRowsBF16", "keep", keep, rows, n)
	}
	if out == nil {
		out = x
	}
	checkRowsBF16("SqDevRowsBF16", "out", out, rows, n)
	p := kernels().bf16Pairs
	pairs := p != nil && n > 0 && n%pairsWidth == 0
	var totals [rowsAtOnce]float64
	var paired [rowsAtOnce]bool
	for lo := 0; lo < rows; lo += rowsAtOnce {
		hi := min(rows, lo+rowsAtOnce)
		for j := lo; j < hi; j++ {
			checkBF16Scalar("SqDevRowsBF16", "s", s[j])
			paired[j-lo] = pairs && pairsDeviationsNormalBits(s[j])
		}
		// The pair kernel takes whole rows, all of them in one call
		// where it can.
		all := true
		for j := lo; j < hi; j++ {
			all = all && paired[j-lo]
		}
		switch {
		case all && keep != nil:
			p.sumSqDevKeep(noEscape(x[lo*n:hi*n]), noEscape(keep[lo*n:hi*n]), noEscape(out[lo*n:hi*n]), n, noEscape(s[lo:hi]), noEscape(totals[:hi-lo]))
		case all:
			p.sumSqDev(noEscape(x[lo*n:hi*n]), n, noEscape(s[lo:hi]), noEscape(totals[:hi-lo]))
		default:
			for j := lo; j < hi; j++ {
				if paired[j-lo] {
					var kp []uint16
					if keep != nil {
						kp = keep[j*n : j*n+n]
					}
					totals[j-lo] = p.sumSqDevRow(x[j*n:j*n+n], kp, s[j])
				}
			}
		}
		for j := lo; j < hi; j++ {
			c := s[j]
			f, ok := BF16DevFloor(c)
			if total := totals[j-lo]; paired[j-lo] && total == total {
				sums[j], lows[j], highs[j] = float32(total), f, sumSqDevBoundOf(total)
				continue
			}
			// No pair kernel, or its sum was NaN (sumSqDevBound then
			// rewrites the deviations it kept).
			row := x[j*n : j*n+n]
			if !ok {
				sums[j], lows[j], highs[j] = SumSqDevBF16(row, c)
				continue
			}
			var kp []uint16
			if keep != nil {
				kp = keep[j*n : j*n+n]
			}
			lows[j] = f
			sums[j], highs[j] = sumSqDevBound(row, kp, c)
		}
	}
}

// pairsProductsNormalBits is pairsProductsNormal(s, r) for s with
// pairsDeviationsNormalBits and r a normal float32, from their biased
// exponents e and f: BF16DevFloor(s)·|r| = 2^(e−135)·|r| is at least
// 2^(e+f−262), below 2^(e+f−261), and a power of two apart from |r|'s
// significand, so it is at least 2^-126 just where e + f ≥ 136.
func pairsProductsNormalBits(s, r float32) bool {
	return math.Float32bits(s)>>23&0xff+math.Float32bits(r)>>23&0xff >= 136
}

// SubDivRowsBF16 sets row j of dst to bf16(bf16(x[i] − s[j]) / t[j]) for
// each of the len(s) rows of n elements: by SubMulKeptBF16 (or, with keep
// nil, SubMulScalarBF16) and the reciprocal of t[j] where
// BF16Reciprocal(t[j], lows[j], highs[j]) allows — lows and highs bounds
// on the row's deviations, as SqDevRowsBF16 gives them, and keep what it
// kept — and by SubDivScalarBF16 elsewhere. dst may be x. next (nil, or
// as long as x) is what the next pass reads: the pass fetches it into the
// cache while it computes.
func SubDivRowsBF16(dst, x, keep, next []uint16, n int, s, t, lows, highs []float32) {
	rows := len(s)
	checkRowScalars("SubDivRowsBF16", "t, lows, highs", rows, len(t), len(lows), len(highs))
	checkRowsBF16("SubDivRowsBF16", "x", x, rows, n)
	checkRowsBF16("SubDivRowsBF16", "dst", dst, rows, n)
	if next == nil {
		next = dst
	}
	checkRowsBF16("SubDivRowsBF16", "next", next, rows, n)
	if keep != nil {
		checkRowsBF16("SubDivRowsBF16", "keep", keep, rows, n)
	}
	p := kernels().bf16Pairs
	whole := p != nil && keep != nil && n > 0 && n%pairsWidth == 0
	// The reciprocals first, so that no kernel waits on a division, and
	// the kernels of the rows that kept their deviations back to back.
	var rs [rowsAtOnce]float32
	var how [rowsAtOnce]uint8
	for lo := 0; lo < rows; lo += rowsAtOnce {
		hi := min(rows, lo+rowsAtOnce)
		for j := lo; j < hi; j++ {
			c := s[j]
			checkBF16Scalar("SubDivRowsBF16", "s", c)
			r, ok := BF16Reciprocal(t[j], lows[j], highs[j])
			rs[j-lo], how[j-lo] = r, rowDiv
			switch {
			case !ok:
			case whole && pairsDeviationsNormalBits(c) && pairsProductsNormalBits(c, r):
				how[j-lo] = rowKept
			case keep != nil:
				how[j-lo] = rowSubMulKept
			default:
				how[j-lo] = rowSubMul
			}
		}
		all := true
		for j := lo; j < hi; j++ {
			all = all && how[j-lo] == rowKept
		}
		if all {
			p.mulKept(noEscape(dst[lo*n:hi*n]), noEscape(keep[lo*n:hi*n]), noEscape(next[lo*n:hi*n]), n, noEscape(rs[:hi-lo]))
			continue
		}
		for j := lo; j < hi; j++ {
			if how[j-lo] == rowKept {
				p.mulKeptRow(dst[j*n:j*n+n], keep[j*n:j*n+n], rs[j-lo])
			}
		}
		for j := lo; j < hi; j++ {
			d, row, r := dst[j*n:j*n+n], x[j*n:j*n+n], rs[j-lo]
			switch how[j-lo] {
			case rowSubMulKept:
				SubMulKeptBF16(d, row, keep[j*n:j*n+n], s[j], r)
			case rowSubMul:
				SubMulScalarBF16(d, row, s[j], r)
			case rowDiv:
				SubDivScalarBF16(d, row, s[j], t[j])
			}
		}
	}
}

// How SubDivRowsBF16 computes a row.
const (
	rowDiv        = iota // SubDivScalarBF16
	rowKept              // the pair kernel over the kept deviations, the whole row
	rowSubMulKept        // SubMulKeptBF16 by the reciprocal
	rowSubMul            // SubMulScalarBF16 by the reciprocal
)
