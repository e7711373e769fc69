package kiln

import (
	"fmt"
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

// SumRowsBF16 sets sums[j] = SumBF16(row j of x) for each of the len(sums)
// rows of n elements.
func SumRowsBF16(sums []float32, x []uint16, n int) {
	checkRowsBF16("SumRowsBF16", "x", x, len(sums), n)
	t := kernels()
	p := t.bf16Pairs
	m := vectorPart(n, t.reduce.lanes)
	if p == nil || m == 0 || m != n {
		for j := range sums {
			sums[j] = SumBF16(x[j*n : j*n+n])
		}
		return
	}
	for j := range sums {
		sums[j] = float32(p.sum(x[j*n : j*n+n]))
	}
}

// SqDevRowsBF16 sets, for each row j of the len(s) rows of n elements of
// x, sums[j] to the sum of bf16(d·d) for d = bf16(x[i] − s[j]) and lows[j]
// and highs[j] to bounds on its non-zero |d| (NaN d aside): where s[j]
// has a BF16DevFloor, that floor and SumSqDevBoundBF16's bound, keeping
// the deviations in row j of keep (keep may be nil) as
// SumSqDevBoundKeepBF16 does; elsewhere SumSqDevBF16's least and largest.
func SqDevRowsBF16(sums, lows, highs []float32, x, keep []uint16, n int, s []float32) {
	rows := len(s)
	checkRowScalars("SqDevRowsBF16", "sums, lows, highs", rows, len(sums), len(lows), len(highs))
	checkRowsBF16("SqDevRowsBF16", "x", x, rows, n)
	if keep != nil {
		checkRowsBF16("SqDevRowsBF16", "keep", keep, rows, n)
	}
	p := kernels().bf16Pairs
	for j, c := range s {
		checkBF16Scalar("SqDevRowsBF16", "s", c)
		row := x[j*n : j*n+n]
		f, ok := BF16DevFloor(c)
		if !ok {
			sums[j], lows[j], highs[j] = SumSqDevBF16(row, c)
			continue
		}
		lows[j] = f
		if p != nil && n%pairsWidth == 0 && pairsDeviationsNormal(c) {
			// The pair kernels take the whole row: sumSqDevBound
			// without its dispatch, unless the sum is NaN.
			var total float64
			if keep != nil {
				total = p.sumSqDevKeep(row, keep[j*n:j*n+n], c)
			} else {
				total = p.sumSqDev(row, c)
			}
			if total == total {
				sums[j], highs[j] = float32(total), sumSqDevBoundOf(total)
				continue
			}
		}
		var kp []uint16
		if keep != nil {
			kp = keep[j*n : j*n+n]
		}
		sums[j], highs[j] = sumSqDevBound(row, kp, c)
	}
}

// SubDivRowsBF16 sets row j of dst to bf16(bf16(x[i] − s[j]) / t[j]) for
// each of the len(s) rows of n elements: by SubMulKeptBF16 (or, with keep
// nil, SubMulScalarBF16) and the reciprocal of t[j] where
// BF16Reciprocal(t[j], lows[j], highs[j]) allows — lows and highs bounds
// on the row's deviations, as SqDevRowsBF16 gives them, and keep what it
// kept — and by SubDivScalarBF16 elsewhere. dst may be x.
func SubDivRowsBF16(dst, x, keep []uint16, n int, s, t, lows, highs []float32) {
	rows := len(s)
	checkRowScalars("SubDivRowsBF16", "t, lows, highs", rows, len(t), len(lows), len(highs))
	checkRowsBF16("SubDivRowsBF16", "x", x, rows, n)
	checkRowsBF16("SubDivRowsBF16", "dst", dst, rows, n)
	if keep != nil {
		checkRowsBF16("SubDivRowsBF16", "keep", keep, rows, n)
	}
	// The reciprocals first, so that no kernel waits on a division.
	const most = 64
	var rs [most]float32
	var how [most]uint8 // rowDiv, rowKept, rowSubMulKept, rowSubMul
	p := kernels().bf16Pairs
	whole := p != nil && keep != nil && n > 0 && n%pairsWidth == 0
	for lo := 0; lo < rows; lo += most {
		hi := min(rows, lo+most)
		for j := lo; j < hi; j++ {
			c := s[j]
			checkBF16Scalar("SubDivRowsBF16", "s", c)
			r, ok := BF16Reciprocal(t[j], lows[j], highs[j])
			rs[j-lo], how[j-lo] = r, rowDiv
			switch {
			case !ok:
			case whole && pairsDeviationsNormal(c) && pairsProductsNormal(c, r):
				how[j-lo] = rowKept
			case keep != nil:
				how[j-lo] = rowSubMulKept
			default:
				how[j-lo] = rowSubMul
			}
		}
		for j := lo; j < hi; j++ {
			d, row, r := dst[j*n:j*n+n], x[j*n:j*n+n], rs[j-lo]
			switch how[j-lo] {
			case rowKept:
				p.mulKept(d, keep[j*n:j*n+n], r)
			case rowSubMulKept:
				SubMulKeptBF16(d, row, keep[j*n:j*n+n], s[j], r)
			case rowSubMul:
				SubMulScalarBF16(d, row, s[j], r)
			default:
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
