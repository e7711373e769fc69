package kiln

import "math"

// Conversions between float32 and the other element types models use, with
// XLA's rules: float16 and bfloat16 round to nearest even (once, subnormals
// included; overflow gives ±Inf); a NaN keeps its sign and the top bits of
// its payload (the quiet bit when those are zero), and widening moves them
// back, so that float16 and bfloat16 round-trip exactly through float32.
// Float16 and bfloat16 values are passed as their bits (uint16). Lengths must
// be equal, as for the elementwise kernels; dst must not overlap x.

// convertKernel runs a conversion kernel: whole vectors in assembly, the rest in Go.
func convertKernel[D, S any](k, twin func(dst []D, x []S), lanes int, dst []D, x []S) {
	m := vectorPart(len(dst), lanes)
	if m > 0 {
		k(dst[:m], x[:m])
	}
	if m < len(dst) {
		twin(dst[m:], x[m:])
	}
}

// F32ToF16 sets dst[i] to the IEEE binary16 bits of x[i] rounded to nearest even.
func F32ToF16(dst []uint16, x []float32) {
	checkLen("F32ToF16", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	convertKernel(k.f32ToF16, f32ToF16Go, k.lanes, dst, x)
}

// F16ToF32 sets dst[i] to the value of the IEEE binary16 bits x[i] (exact).
func F16ToF32(dst []float32, x []uint16) {
	checkLen("F16ToF32", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	convertKernel(k.f16ToF32, f16ToF32Go, k.lanes, dst, x)
}

// F32ToBF16 sets dst[i] to the bfloat16 bits of x[i] rounded to nearest even.
func F32ToBF16(dst []uint16, x []float32) {
	checkLen("F32ToBF16", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	convertKernel(k.f32ToBF16, f32ToBF16Go, k.lanes, dst, x)
}

// BF16ToF32 sets dst[i] to the value of the bfloat16 bits x[i] (exact).
func BF16ToF32(dst []float32, x []uint16) {
	checkLen("BF16ToF32", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	convertKernel(k.bf16ToF32, bf16ToF32Go, k.lanes, dst, x)
}

// F32ToS32 sets dst[i] to x[i] converted as XLA converts float to s32:
// toward zero, saturating at math.MinInt32 and math.MaxInt32, NaN to 0.
func F32ToS32(dst []int32, x []float32) {
	checkLen("F32ToS32", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	convertKernel(k.f32ToS32, f32ToS32Go, k.lanes, dst, x)
}

// S32ToF32 sets dst[i] = float32(x[i]), rounded to nearest even.
func S32ToF32(dst []float32, x []int32) {
	checkLen("S32ToF32", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	convertKernel(k.s32ToF32, s32ToF32Go, k.lanes, dst, x)
}

// U8ToF32 sets dst[i] = float32(x[i]).
func U8ToF32(dst []float32, x []uint8) {
	checkLen("U8ToF32", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	convertKernel(k.u8ToF32, u8ToF32Go, k.lanes, dst, x)
}

// S8ToF32 sets dst[i] = float32(x[i]).
func S8ToF32(dst []float32, x []int8) {
	checkLen("S8ToF32", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	convertKernel(k.s8ToF32, s8ToF32Go, k.lanes, dst, x)
}

// f32ToF16 rounds f to IEEE binary16 bits, to nearest even, with the NaN
// rule above. It is the scalar twin of the hardware conversion the kernels
// use (which agrees on every non-NaN input).
func f32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	abs := b & 0x7fffffff
	switch {
	case abs > 0x7f800000: // NaN
		p := uint16(abs>>13) & 0x3ff
		if p == 0 {
			p = 0x200
		}
		return sign | 0x7c00 | p
	case abs >= 0x47800000: // ≥ 65536 (and Inf)
		return sign | 0x7c00
	case abs < 0x38800000: // below the smallest normal binary16, 2^-14
		return sign | uint16(math.RoundToEven(float64(math.Float32frombits(abs))*0x1p24))
	}
	// Rebias the exponent, then round the mantissa from 23 to 10 bits; a
	// carry moves into the exponent, up to Inf.
	r := abs - (127-15)<<23
	r = (r + 0xfff + (r>>13)&1) >> 13
	return sign | uint16(r)
}
