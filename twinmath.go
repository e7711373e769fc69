package kiln

import "math"

// Scalar helpers of the generated pure-Go twins (eltwise_twin.go,
// reduce_twin.go): each gives one vector-program operation the meaning the
// assembly gives it, so that the twins and the assembly agree bit for bit.

// fma32 is a·b + c rounded once to float32. The product is exact in
// float64, and so is every float32 rounding midpoint, so rounding the
// float64 sum to float32 is wrong only when that sum lies exactly on a
// midpoint (the 29 bits below float32's precision are 1000…0) and was
// itself rounded; subnormal float32 results, which round elsewhere, and
// such midpoints take fma32Exact. (Inf and NaN pass through the fast path.)
func fma32(a, b, c float32) float32 {
	s := float64(a)*float64(b) + float64(c)
	if u := math.Float64bits(s); u<<35 != 1<<63 && u<<1 >= (1023-126)<<53 || u<<1 == 0 {
		// Not a float32 midpoint in the normal range, or an exact zero
		// (p + c cancels exactly: its sign is the one float32 gives).
		return float32(s)
	}
	return fma32Exact(a, b, c)
}

// fma32Exact rounds the sum to odd first (the float64 neighbour with an odd
// last bit when it is inexact), which makes the final rounding correct.
func fma32Exact(a, b, c float32) float32 {
	p := float64(a) * float64(b)
	cc := float64(c)
	s := p + cc
	if math.IsInf(s, 0) || s != s {
		return float32(s)
	}
	// TwoSum: s + e is exactly p + c.
	bb := s - p
	e := (p - (s - bb)) + (cc - bb)
	if e != 0 {
		u := math.Float64bits(s)
		if u&1 == 0 {
			if (e > 0) == (s > 0) {
				u++
			} else {
				u--
			}
			s = math.Float64frombits(u)
		}
	}
	return float32(s)
}

// fma64 is a·b + c rounded once.
func fma64(a, b, c float64) float64 { return math.FMA(a, b, c) }

// maxXLA32 is XLA's maximum: NaN if either is NaN, and −0 < +0.
func maxXLA32(a, b float32) float32 {
	switch {
	case a != a:
		return a
	case b != b:
		return b
	case a == b:
		return math.Float32frombits(math.Float32bits(a) & math.Float32bits(b))
	case a > b:
		return a
	}
	return b
}

// minXLA32 is XLA's minimum: NaN if either is NaN, and −0 < +0.
func minXLA32(a, b float32) float32 {
	switch {
	case a != a:
		return a
	case b != b:
		return b
	case a == b:
		return math.Float32frombits(math.Float32bits(a) | math.Float32bits(b))
	case a < b:
		return a
	}
	return b
}

func maxXLA64(a, b float64) float64 {
	switch {
	case a != a:
		return a
	case b != b:
		return b
	case a == b:
		return math.Float64frombits(math.Float64bits(a) & math.Float64bits(b))
	case a > b:
		return a
	}
	return b
}

func minXLA64(a, b float64) float64 {
	switch {
	case a != a:
		return a
	case b != b:
		return b
	case a == b:
		return math.Float64frombits(math.Float64bits(a) | math.Float64bits(b))
	case a < b:
		return a
	}
	return b
}

// maxc32 is the clamp of the vector programs: c > x ? c : x, which keeps a
// NaN x (c is never NaN or zero).
func maxc32(x, c float32) float32 {
	if c > x {
		return c
	}
	return x
}

func minc32(x, c float32) float32 {
	if c < x {
		return c
	}
	return x
}

func maxc64(x, c float64) float64 {
	if c > x {
		return c
	}
	return x
}

func minc64(x, c float64) float64 {
	if c < x {
		return c
	}
	return x
}

// cvtfi converts toward zero as x86's CVTTPS2DQ does: out of range and NaN
// give math.MinInt32. The vector programs use it only in range.
func cvtfi(x float32) int32 {
	if !(x > -2147483904 && x < 2147483648) {
		return math.MinInt32
	}
	return int32(x)
}

// cvtfir converts to nearest, ties to even, as CVTPS2DQ does.
func cvtfir(x float32) int32 {
	r := math.RoundToEven(float64(x))
	if !(r >= -2147483648 && r < 2147483648) {
		return math.MinInt32
	}
	return int32(r)
}

func selF32(m bool, a, b float32) float32 {
	if m {
		return a
	}
	return b
}

func selF64(m bool, a, b float64) float64 {
	if m {
		return a
	}
	return b
}

func selI32(m bool, a, b int32) int32 {
	if m {
		return a
	}
	return b
}

func b2u8(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// f16ToF32 widens IEEE binary16 bits exactly (XLA's rule: a NaN keeps its
// sign and payload, moved to the top of the float32 mantissa, not quieted).
func f16ToF32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	man := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+127-15)<<23 | man<<13)
	}
	// Zero or subnormal: man·2^-24, exact in float32.
	v := float32(man) * 0x1p-24
	return math.Float32frombits(sign | math.Float32bits(v))
}

// f16ToF32Quiet is the hardware widening of binary16 (x86 VCVTPH2PS, arm64
// FCVTL): f16ToF32 with NaNs quieted. The vector programs undo the quieting
// (gen/vconvert.go's vf16Unquiet); their Go twins load through this.
func f16ToF32Quiet(h uint16) float32 {
	f := f16ToF32(h)
	if f != f {
		return math.Float32frombits(math.Float32bits(f) | 0x400000)
	}
	return f
}
