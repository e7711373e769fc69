package kiln

import (
	"fmt"
	"math"
)

// Fused passes of a bfloat16 layer-norm's rows (their bits, []uint16):
// the ops a module writes one by one — subtract the row's mean, square,
// widen and sum; subtract, then divide by (or multiply by) the row's scale
// — run as one kernel per pass, each op's result rounded to bfloat16 in
// the register (to nearest even, as XLA converts), so that the result is
// bit for bit the one of the separate typed kernels (SubScalarBF16,
// MulBF16, SumBF16, MulScalarBF16, DivScalarBF16) without their trips
// through memory. The row scalars are bfloat16 values (float32s whose low
// 16 bits are zero); the functions panic on any other.

// SumSqDevBF16 returns the sum of the float32 widenings of bf16(d·d) for
// d = bf16(x[i] − s), accumulated as SumBF16 accumulates — it is
// SumBF16(MulBF16(SubScalarBF16(x, s), …)) in one pass — with the least
// non-zero |d| (+Inf if there is none) and the largest, NaNs skipped (on
// some targets a NaN d makes them NaN instead).
func SumSqDevBF16(x []uint16, s float32) (sum, minDev, maxDev float32) {
	checkBF16Scalar("SumSqDevBF16", "s", s)
	k := kernels().reduce
	m := vectorPart(len(x), k.lanes)
	total, lo, hi := 0.0, float32(math.Inf(1)), float32(0)
	if m > 0 {
		total, lo, hi = k.sumSqDevRoundBF16(x[:m], s)
	}
	if m < len(x) {
		t, l, h := sumSqDevRoundBF16Go(x[m:], s)
		total += t
		lo, hi = minc32(lo, l), maxc32(hi, h)
	}
	return float32(total), lo, hi
}

// SumSqDevBoundBF16 is SumSqDevBF16 without the least non-zero |d|: the
// same sum, and in place of the largest |d| a bound no |d| exceeds — the
// largest itself, or, where the pair kernels ran, twice the square root of
// their sum rounded up to a power of two (each |d|² is at most its
// rounded square plus 2^-8 of it, so the sum exceeds a quarter of it),
// which spares them a comparison and a maximum per block. The bound is +Inf or NaN where the sum is. Where s
// is a normal non-zero value, BF16DevFloor(s) bounds the least |d| from
// below.
func SumSqDevBoundBF16(x []uint16, s float32) (sum, bound float32) {
	checkBF16Scalar("SumSqDevBoundBF16", "s", s)
	return sumSqDevBound(x, nil, s)
}

// sumSqDevBound is SumSqDevBoundBF16, keeping the deviations the pair
// kernel rounds in keep where keep is not nil.
func sumSqDevBound(x, keep []uint16, s float32) (sum, bound float32) {
	t := kernels()
	total, hi := 0.0, float32(0)
	if p := t.bf16Pairs; p != nil && pairsDeviationsNormal(s) {
		if m := len(x) &^ (pairsWidth - 1); m > 0 {
			total = p.sumSqDevRow(x[:m], keep, s)
			if total != total {
				// Some x[i] is infinite or NaN, and the kernel's NaN may
				// stand for an infinite sum: the row again without it,
				// and the deviations it kept as it would have kept them.
				if keep != nil {
					keepPairsGo(keep[:m], x[:m], s)
				}
				total, hi = 0, 0
			} else {
				hi = sumSqDevBoundOf(total)
				x = x[m:]
			}
		}
	}
	k := t.reduce
	m := vectorPart(len(x), k.lanes)
	if m > 0 {
		t, h := k.sumSqDevMaxRoundBF16(x[:m], s)
		total += t
		hi = maxKeepNaN32(hi, h)
	}
	if m < len(x) {
		t, h := sumSqDevMaxRoundBF16Go(x[m:], s)
		total += t
		hi = maxKeepNaN32(hi, h)
	}
	return float32(total), hi
}

// sumSqDevBoundOf is a power of two at least 2·√total (total ≥ 0, +Inf
// for an infinite total), from total's exponent: no square root on the
// way from the row's sum to the next row.
func sumSqDevBoundOf(total float64) float32 {
	e := int(math.Float64bits(total) >> 52)
	switch e {
	case 0: // zero (a sum of squares of at least 2^-126 is never subnormal)
		return 0
	case 0x7ff:
		return float32(math.Inf(1))
	}
	// total < 2^(e−1022), so 2·√total < 2^(⌈(e−1022)/2⌉+1).
	k := (e-1021)>>1 + 1
	return float32(math.Float64frombits(uint64(k+1023) << 52))
}

// keepPairsGo stores the deviations bf16(x[i] − s) of each block of 32 in
// keep in the pair kernels' order (the even elements' in words 0–15, the
// odd ones' in 16–31), rounded as VCVTNE2PS2BF16 rounds them: to nearest
// even, a NaN quieted (the callers' deviations are never subnormal).
func keepPairsGo(keep, x []uint16, s float32) {
	for b := 0; b+pairsWidth <= len(x); b += pairsWidth {
		for k := range pairsWidth / 2 {
			keep[b+k] = f32ToBF16(bf16Widen(x[b+2*k]) - s)
			keep[b+pairsWidth/2+k] = f32ToBF16(bf16Widen(x[b+2*k+1]) - s)
		}
	}
}

// SumSqDevBoundKeepBF16 is SumSqDevBoundBF16 that also keeps, in keep (at
// least len(x) elements), the deviations bf16(x[i] − s) it rounds, in the
// order its kernels hold them, so that SubMulKeptBF16 scales them without
// widening, subtracting and rounding them again. What keep holds
// afterwards is only for SubMulKeptBF16 with the same x and s.
func SumSqDevBoundKeepBF16(x, keep []uint16, s float32) (sum, bound float32) {
	checkBF16Scalar("SumSqDevBoundKeepBF16", "s", s)
	if len(keep) < len(x) {
		panic(fmt.Sprintf("kiln.SumSqDevBoundKeepBF16: keep has %d elements, fewer than x's %d", len(keep), len(x)))
	}
	return sumSqDevBound(x, keep, s)
}

// SubMulKeptBF16 is SubMulScalarBF16(dst, x, s, r) for the x and s of a
// SumSqDevBoundKeepBF16(x, keep, s) just before: the deviations that call
// kept are scaled where it kept them, the others computed from x. dst may
// be x.
func SubMulKeptBF16(dst, x, keep []uint16, s, r float32) {
	checkLen("SubMulKeptBF16", "dst, x", len(dst), len(x))
	checkBF16Scalar("SubMulKeptBF16", "s", s)
	p := kernels().bf16Pairs
	m := len(x) &^ (pairsWidth - 1)
	// The kept part is the one SumSqDevBoundKeepBF16 took to its pair
	// kernel; its products must also be normal, as the pair kernels need.
	if p == nil || m == 0 || len(keep) < m || !pairsDeviationsNormal(s) || !pairsProductsNormal(s, r) {
		SubMulScalarBF16(dst, x, s, r)
		return
	}
	p.mulKeptRow(dst[:m], keep[:m], r)
	if m < len(x) {
		SubMulScalarBF16(dst[m:], x[m:], s, r)
	}
}

// maxKeepNaN32 is the larger of a and b, or a NaN where either is one: a
// kernel that returns a NaN for a NaN deviation may have lost the largest
// of the others, so the whole row's largest is unknown.
func maxKeepNaN32(a, b float32) float32 {
	if a != a || b != b {
		return float32(math.NaN())
	}
	return max(a, b)
}

// bf16PairKernels are a level's passes of bfloat16 rows that read 32
// elements as their even and odd halves and round both with one
// instruction, which flushes subnormal values: the callers use them only
// where no value they round can be one (pairsDeviationsNormal,
// pairsProductsNormal).
type bf16PairKernels struct {
	// sumSqDev and sumSqDevKeep take a batch of rows of n elements, one
	// scalar and one sum per row (sumSqDevRow takes one).
	sumSqDev     func(x []uint16, n int, s []float32, sums []float64)
	sumSqDevKeep func(x, keep, out []uint16, n int, s []float32, sums []float64) // out fetched for writing
	subMul       func(dst, x []uint16, s, r float32)
	mulKept      func(dst, keep, next []uint16, n int, r []float32) // rows of n elements, a scale each; next fetched
	// sum is the level's reduce.sumBF16 (the AVX-512 one), bit for bit,
	// widening 32 elements from one load (SumBF16), of each row of n
	// elements (sumRow of one).
	sum func(x []uint16, n int, sums []float64)
}

// sumRow is sum of one row.
func (p *bf16PairKernels) sumRow(x []uint16) float64 {
	var sums [1]float64
	p.sum(x, len(x), noEscape(sums[:]))
	return sums[0]
}

// sumSqDevRow is sumSqDev (with keep not nil, sumSqDevKeep) of one row.
func (p *bf16PairKernels) sumSqDevRow(x, keep []uint16, s float32) float64 {
	sv, sums := [1]float32{s}, [1]float64{}
	if keep != nil {
		p.sumSqDevKeep(x, keep[:len(x)], x, len(x), noEscape(sv[:]), noEscape(sums[:]))
	} else {
		p.sumSqDev(x, len(x), noEscape(sv[:]), noEscape(sums[:]))
	}
	return sums[0]
}

// mulKeptRow is mulKept of one row.
func (p *bf16PairKernels) mulKeptRow(dst, keep []uint16, r float32) {
	rv := [1]float32{r}
	p.mulKept(dst, keep[:len(dst)], dst, len(dst), noEscape(rv[:]))
}

// pairsWidth is the elements the pair kernels take at a time.
const pairsWidth = 32

// pairsDeviationsNormal reports whether, for every bfloat16 x, x − s and
// bf16(x − s)² are zero or at least 2^-126 in magnitude: BF16DevFloor(s)
// is at least 2^-63. Then |s| ≥ 2^-55, and a subnormal x, which the sum
// of squares' VDPBF16PS flushes to zero, lies below half a unit of s's
// float32 value: x − s rounds to −s either way.
func pairsDeviationsNormal(s float32) bool {
	f, ok := BF16DevFloor(s)
	return ok && f >= 0x1p-63
}

// pairsProductsNormal reports whether, for every bfloat16 x, x − s and
// bf16(x − s)·r are zero or at least 2^-126 in magnitude (or not finite).
func pairsProductsNormal(s, r float32) bool {
	f, ok := BF16DevFloor(s)
	return ok && f >= 0x1p-126 && float64(f)*math.Abs(float64(r)) >= 0x1p-126
}

// BF16DevFloor returns a bound no non-zero deviation bf16(x − s) of a
// bfloat16 value x falls below, and whether there is one: for s a normal
// non-zero bfloat16 value of exponent e, 2^(e−8), half its unit in the
// last place. Where x's exponent is at least e, x and s are multiples of
// that unit (2^(e−7)); where it is less, |x| ≤ 2^e − 2^(e−8) ≤ |s| −
// 2^(e−8); a zero x or one of the other sign is at least |s| away. The
// bound is a bfloat16 (and float32) value, so rounding the difference to
// either keeps it above the bound.
func BF16DevFloor(s float32) (float32, bool) {
	e := int(math.Float32bits(s)>>23) & 0xff
	if e == 0 || e == 0xff {
		return 0, false
	}
	if e > 8 {
		return math.Float32frombits(uint32(e-8) << 23), true
	}
	return math.Float32frombits(1 << uint(e+14)), true // subnormal: 2^(e+14)·2^−149
}

// SubMulScalarBF16 sets dst[i] = bf16(bf16(x[i] − s)·r): it is
// MulScalarBF16(SubScalarBF16(x, s), r) in one pass.
func SubMulScalarBF16(dst, x []uint16, s, r float32) {
	checkLen("SubMulScalarBF16", "dst, x", len(dst), len(x))
	checkBF16Scalar("SubMulScalarBF16", "s", s)
	t := kernels()
	if p := t.bf16Pairs; p != nil && pairsProductsNormal(s, r) {
		if m := len(dst) &^ (pairsWidth - 1); m > 0 {
			p.subMul(dst[:m], x[:m], s, r)
			dst, x = dst[m:], x[m:]
		}
	}
	k := t.reduce
	m := vectorPart(len(dst), k.lanes)
	if m > 0 {
		k.subMulRoundBF16(dst[:m], x[:m], s, r)
	}
	if m < len(dst) {
		subMulRoundBF16Go(dst[m:], x[m:], s, r)
	}
}

// SubDivScalarBF16 sets dst[i] = bf16(bf16(x[i] − s) / t): it is
// DivScalarBF16(SubScalarBF16(x, s), t) in one pass. Where
// BF16Reciprocal allows, SubMulScalarBF16 by the reciprocal gives the same
// result faster.
func SubDivScalarBF16(dst, x []uint16, s, t float32) {
	checkLen("SubDivScalarBF16", "dst, x", len(dst), len(x))
	checkBF16Scalar("SubDivScalarBF16", "s", s)
	k := kernels().reduce
	m := vectorPart(len(dst), k.lanes)
	if m > 0 {
		k.subDivRoundBF16(dst[:m], x[:m], s, t)
	}
	if m < len(dst) {
		subDivRoundBF16Go(dst[m:], x[m:], s, t)
	}
}

// BF16Reciprocal returns r = 1/t rounded to float32 and whether, for every
// bfloat16 value d with d = 0, d = ±Inf, d NaN or minDev ≤ |d| ≤ maxDev,
// bf16(d·r) = bf16(d/t) (each rounded to float32 first): t is a finite
// non-zero bfloat16 value, r a normal float32, and every such quotient
// d/t but zero is a normal float32 (with a factor of two to spare). The
// quotient of two bfloat16 values is then never within 2^-17 (relative)
// of a bfloat16 rounding boundary while d·r is within 2^-23 of it, so
// both round alike (TestBF16ReciprocalDivision checks every pair of
// significands); zeros, infinities and NaNs give the same zero, infinity
// or NaN either way.
func BF16Reciprocal(t, minDev, maxDev float32) (float32, bool) {
	if math.Float32bits(t)&0xffff != 0 {
		return 0, false
	}
	r := 1 / t
	a := math.Abs(float64(r))
	if !(a >= 0x1p-126 && a <= math.MaxFloat32) {
		return 0, false
	}
	// minDev·a and maxDev·a are exact in float64; false for NaN bounds.
	lo, hi := float64(minDev)*a, float64(maxDev)*a
	return r, lo >= 0x1p-125 && hi < 0x1p126
}

// checkBF16Scalar panics unless s is a bfloat16 value (a programmer
// error). It inlines: the row passes check their scalars once per row.
func checkBF16Scalar(fn, name string, s float32) {
	if math.Float32bits(s)&0xffff != 0 {
		bf16ScalarPanic(fn, name, s)
	}
}

//go:noinline
func bf16ScalarPanic(fn, name string, s float32) {
	panic(fmt.Sprintf("kiln.%s: %s = %g is not a bfloat16 value", fn, name, s))
}

// roundBF16LanesGo is the kernels' in-register rounding to bfloat16
// (roundBF16Lanes): XLA's rounding of a sum, difference or product of
// bfloat16 values, whose NaNs have their low 16 bits zero already.
func roundBF16LanesGo(v float32) float32 {
	b := math.Float32bits(v)
	return math.Float32frombits((b + 0x7fff + (b>>16)&1) &^ 0xffff)
}

func sumSqDevRoundBF16Go(x []uint16, s float32) (sum float64, lo, hi float32) {
	lo = float32(math.Inf(1))
	sum = cascade(len(x), func(i int, acc float32) float32 {
		d := roundBF16LanesGo(bf16Widen(x[i]) - s)
		a := float32(math.Abs(float64(d)))
		if a != 0 {
			lo = minc32(lo, a)
		}
		hi = maxc32(hi, a)
		return acc + roundBF16LanesGo(d*d)
	})
	return sum, lo, hi
}

func sumSqDevMaxRoundBF16Go(x []uint16, s float32) (sum float64, hi float32) {
	sum = cascade(len(x), func(i int, acc float32) float32 {
		d := roundBF16LanesGo(bf16Widen(x[i]) - s)
		hi = maxc32(hi, float32(math.Abs(float64(d))))
		return acc + roundBF16LanesGo(d*d)
	})
	return sum, hi
}
