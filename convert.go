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

// U16ToF32 sets dst[i] = float32(x[i]).
func U16ToF32(dst []float32, x []uint16) {
	checkLen("U16ToF32", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	convertKernel(k.u16ToF32, u16ToF32Go, k.lanes, dst, x)
}

// S16ToF32 sets dst[i] = float32(x[i]).
func S16ToF32(dst []float32, x []int16) {
	checkLen("S16ToF32", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	convertKernel(k.s16ToF32, s16ToF32Go, k.lanes, dst, x)
}

// F32ToS8 sets dst[i] to x[i] converted as XLA converts float to s8:
// toward zero, saturating at -128 and 127, NaN to 0.
func F32ToS8(dst []int8, x []float32) {
	checkLen("F32ToS8", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	convertKernel(k.f32ToS8, f32ToS8Go, k.lanes, dst, x)
}

// F32ToU8 sets dst[i] to x[i] converted as XLA converts float to u8:
// toward zero, saturating at 0 and 255, NaN to 0.
func F32ToU8(dst []uint8, x []float32) {
	checkLen("F32ToU8", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	convertKernel(k.f32ToU8, f32ToU8Go, k.lanes, dst, x)
}

// F32ToS16 sets dst[i] to x[i] converted as XLA converts float to s16:
// toward zero, saturating at -32768 and 32767, NaN to 0.
func F32ToS16(dst []int16, x []float32) {
	checkLen("F32ToS16", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	convertKernel(k.f32ToS16, f32ToS16Go, k.lanes, dst, x)
}

// F32ToU16 sets dst[i] to x[i] converted as XLA converts float to u16:
// toward zero, saturating at 0 and 65535, NaN to 0.
func F32ToU16(dst []uint16, x []float32) {
	checkLen("F32ToU16", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	convertKernel(k.f32ToU16, f32ToU16Go, k.lanes, dst, x)
}

// F32ToE4M3 sets dst[i] to the float8_e4m3fn bits of x[i] rounded to
// nearest even, as ml_dtypes and XLA convert: the format has no Inf, so
// ±Inf and values rounding beyond ±448 (beyond ±464) give its NaN with
// the sign kept.
func F32ToE4M3(dst []uint8, x []float32) {
	checkLen("F32ToE4M3", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	convertKernel(k.f32ToE4M3, f32ToE4M3Go, k.lanes, dst, x)
}

// E4M3ToF32 sets dst[i] to the value of the float8_e4m3fn bits x[i]
// (exact; its NaN widens to the quiet NaN with the sign kept).
func E4M3ToF32(dst []float32, x []uint8) {
	checkLen("E4M3ToF32", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	convertKernel(k.e4m3ToF32, e4m3ToF32Go, k.lanes, dst, x)
}

// F32ToE5M2 sets dst[i] to the float8_e5m2 bits of x[i] rounded to
// nearest even (overflow gives ±Inf; a NaN keeps its sign and the top two
// payload bits, or is the quiet NaN).
func F32ToE5M2(dst []uint8, x []float32) {
	checkLen("F32ToE5M2", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	convertKernel(k.f32ToE5M2, f32ToE5M2Go, k.lanes, dst, x)
}

// E5M2ToF32 sets dst[i] to the value of the float8_e5m2 bits x[i] (exact).
func E5M2ToF32(dst []float32, x []uint8) {
	checkLen("E5M2ToF32", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	convertKernel(k.e5m2ToF32, e5m2ToF32Go, k.lanes, dst, x)
}

// BF16ToF16 sets dst[i] to the IEEE binary16 bits of the bfloat16 bits x[i],
// rounded to nearest even (the bfloat16 value widens to float32 exactly and
// rounds once).
func BF16ToF16(dst, x []uint16) {
	checkLen("BF16ToF16", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	convertKernel(k.bf16ToF16, bf16ToF16Go, k.lanes, dst, x)
}

// F16ToBF16 sets dst[i] to the bfloat16 bits of the binary16 bits x[i],
// rounded to nearest even.
func F16ToBF16(dst, x []uint16) {
	checkLen("F16ToBF16", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	convertKernel(k.f16ToBF16, f16ToBF16Go, k.lanes, dst, x)
}

// RoundBF16F32 sets dst[i] to x[i] rounded to the nearest bfloat16 value,
// kept as float32: what a bfloat16 result widened back gives, for the
// steps of a fused computation that XLA rounds to bfloat16 in between.
func RoundBF16F32(dst, x []float32) {
	checkLen("RoundBF16F32", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	convertKernel(k.roundBF16F32, roundBF16F32Go, k.lanes, dst, x)
}

// RoundF16F32 sets dst[i] to x[i] rounded to the nearest IEEE binary16
// value, kept as float32 (see RoundBF16F32).
func RoundF16F32(dst, x []float32) {
	checkLen("RoundF16F32", "dst, x", len(dst), len(x))
	k := kernels().eltwise
	convertKernel(k.roundF16F32, roundF16F32Go, k.lanes, dst, x)
}
