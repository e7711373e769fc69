package kiln

import (
	"math"
	"unsafe"
)

// Fused passes of a bfloat16 layer-norm's rows (their bits, []uint16):
// the ops a module writes one by one — subtract the row's mean, square,
// widen and sum; subtract, then divide by (or multiply by) the row's scale
// — run as one kernel per pass, each op's result rounded to bfloat16 in
// the register (to nearest even, as XLA converts), so that the result is
// bit for bit the one of the separate typed kernels (SubScalarBF16,
// MulBF16, SumBF16, DivScalarBF16) without their trips through memory.

// SumSqDevBF16 returns the sum of the float32 widenings of bf16(d·d) for
// d = bf16(x[i] − s), accumulated as SumBF16 accumulates: it is
// SumBF16(MulBF16(SubScalarBF16(x, s), …)) in one pass.
func SumSqDevBF16(x []uint16, s float32) float32 {
	k := kernels().reduce
	m := vectorPart(len(x), k.lanes)
	sum := 0.0
	if m > 0 {
		sum = k.sumSqDevRoundBF16(x[:m], s)
	}
	if m < len(x) {
		sum += sumSqDevRoundBF16Go(x[m:], s)
	}
	return float32(sum)
}

// SubMulScalarBF16 sets dst[i] = bf16(bf16(x[i] − s)·r): it is
// MulScalarBF16(SubScalarBF16(x, s), r) in one pass.
func SubMulScalarBF16(dst, x []uint16, s, r float32) {
	checkLen("SubMulScalarBF16", "dst, x", len(dst), len(x))
	subMulRoundBF16(dst, x, s, r)
}

// subMulRoundBF16 is SubMulScalarBF16, returning how many of the float32
// products d·r are infinite or of magnitude in (0, 2^-125) or at least
// 2^127.
func subMulRoundBF16(dst, x []uint16, s, r float32) int {
	k := kernels().reduce
	m := vectorPart(len(dst), k.lanes)
	bad := 0.0
	if m > 0 {
		bad = k.subMulRoundBF16(dst[:m], x[:m], s, r)
	}
	if m < len(dst) {
		bad += subMulRoundBF16Go(dst[m:], x[m:], s, r)
	}
	return int(bad)
}

// SubDivScalarBF16 sets dst[i] = bf16(bf16(x[i] − s) / t): it is
// DivScalarBF16(SubScalarBF16(x, s), t) in one pass. For a bfloat16 t
// (a float32 whose low 16 bits are zero) whose reciprocal is a normal
// float32, it multiplies by that reciprocal instead of dividing: the
// quotient of two bfloat16 values is never within 2^-17 (relative) of a
// bfloat16 rounding boundary while d·RN(1/t) is within 2^-23 of it, so
// both round to the same bfloat16 wherever the quotient is a normal
// float32 (TestBF16ReciprocalDivision checks every pair of significands);
// when some product is not (or dst overlaps x) the slice is divided.
func SubDivScalarBF16(dst, x []uint16, s, t float32) {
	checkLen("SubDivScalarBF16", "dst, x", len(dst), len(x))
	if len(dst) == 0 {
		return
	}
	if r, ok := bf16Reciprocal(t); ok && !overlap16(dst, x) {
		if subMulRoundBF16(dst, x, s, r) == 0 {
			return
		}
	}
	k := kernels().reduce
	m := vectorPart(len(dst), k.lanes)
	if m > 0 {
		k.subDivRoundBF16(dst[:m], x[:m], s, t)
	}
	if m < len(dst) {
		subDivRoundBF16Go(dst[m:], x[m:], s, t)
	}
}

// bf16Reciprocal returns 1/t rounded to float32 and whether t is a finite
// non-zero bfloat16 value whose reciprocal is a normal float32.
func bf16Reciprocal(t float32) (float32, bool) {
	if math.Float32bits(t)&0xffff != 0 {
		return 0, false
	}
	r := 1 / t
	a := math.Abs(float64(r))
	return r, a >= 0x1p-126 && a <= math.MaxFloat32
}

// overlap16 reports whether a and b share memory.
func overlap16(a, b []uint16) bool {
	pa, pb := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return pa < pb+uintptr(2*len(b)) && pb < pa+uintptr(2*len(a))
}

// roundBF16LanesGo is the kernels' in-register rounding to bfloat16
// (roundBF16Lanes): XLA's rounding, a NaN keeping its top payload bits,
// quieted.
func roundBF16LanesGo(v float32) float32 {
	b := math.Float32bits(v)
	if v != v {
		return math.Float32frombits((b | 0x400000) &^ 0xffff)
	}
	return math.Float32frombits((b + 0x7fff + (b>>16)&1) &^ 0xffff)
}

func sumSqDevRoundBF16Go(x []uint16, s float32) float64 {
	return cascade(len(x), func(i int, sum float32) float32 {
		d := roundBF16LanesGo(bf16Widen(x[i]) - s)
		return sum + roundBF16LanesGo(d*d)
	})
}

func subMulRoundBF16Go(dst, x []uint16, s, r float32) float64 {
	bad := 0
	for i, h := range x[:len(dst)] {
		q := roundBF16LanesGo(bf16Widen(h)-s) * r
		dst[i] = f32ToBF16(q)
		a := math.Float32bits(q) &^ (1 << 31)
		if a >= 0x7f000000 && a <= 0x7f800000 || a > 0 && a < 0x01000000 {
			bad++
		}
	}
	return float64(bad)
}
