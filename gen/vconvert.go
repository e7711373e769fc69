package main

import "math"

// The conversions of the vector programs between float32 and the narrow
// element types, with XLA's rules (the root package's convert.go, ir's
// convert.go): narrowing rounds to nearest even, subnormals included, once;
// overflow gives ±Inf (float8_e4m3fn, which has none: NaN); a NaN keeps its
// sign and the top bits of its payload, or gets the quiet bit when none of
// them is set; widening is exact and keeps NaN payloads; float to integer
// truncates toward zero and saturates, NaN giving 0.

// vf32ToF16 rounds to binary16 in hardware and writes NaNs as the root
// package's conversion (and XLA's) does: sign, 0x7c00 and the top 10 payload
// bits, or the quiet bit when those are zero.
func vf32ToF16(b *vb, x val) val {
	h := b.cvtf16(x)
	bits := b.asI32(x)
	sign := b.and(b.shr(bits, 16), b.i32(0x8000))
	payload := b.shr(b.and(bits, b.i32(0x7fffff)), 13)
	nan := b.or(b.or(sign, b.i32(0x7c00)), payload)
	nan = b.blend(b.cmpeq(payload, b.i32(0)), b.or(nan, b.i32(0x200)), nan)
	return b.blend(b.isNaN(x), nan, h)
}

// vf16ToF32 widens binary16 bits exactly with integer operations: normal
// numbers rebias the exponent, Inf and NaN keep their payload (shifted to
// the top), subnormals are their 10-bit integer times 2^-24.
func vf16ToF32(b *vb, h val) val {
	sign := b.shl(b.and(h, b.i32(0x8000)), 16)
	em := b.and(h, b.i32(0x7fff))
	t := b.shl(em, 13)
	r := b.blend(b.cmpgt(em, b.i32(0x7bff)), b.addi(t, b.i32(0x70000000)), b.addi(t, b.i32(0x38000000)))
	sub := b.asI32(b.mul(b.cvtif(em), b.f32(0x1p-24)))
	r = b.blend(b.cmpgt(b.i32(0x400), em), sub, r)
	return b.asF32(b.or(r, sign))
}

// vf32ToBF16 rounds to bfloat16 (the top half of float32) to nearest even
// by adding 0x7fff plus the lowest kept bit; NaNs keep sign and top 7
// payload bits, or get the quiet bit when those are zero.
func vf32ToBF16(b *vb, x val) val {
	bits := b.asI32(x)
	top := b.shr(bits, 16)
	r := b.shr(b.addi(bits, b.addi(b.i32(0x7fff), b.and(top, b.i32(1)))), 16)
	nan := b.blend(b.cmpeq(b.and(top, b.i32(0x7f)), b.i32(0)), b.or(top, b.i32(0x40)), top)
	return b.blend(b.isNaN(x), nan, r)
}

// vf32ToS32 converts toward zero, saturating at the int32 range, NaN to 0.
func vf32ToS32(b *vb, x val) val {
	r := b.cvtfi(x)
	r = b.blend(b.cmp(cmpGE, x, b.f32(0x1p31)), b.i32(math.MaxInt32), r)
	r = b.blend(b.cmp(cmpLT, x, b.f32(-0x1p31)), b.i32(math.MinInt32), r)
	return b.blend(b.isNaN(x), b.i32(0), r)
}

// vf16Unquiet restores the signalling NaNs a hardware binary16 widening
// (x86 VCVTPH2PS, arm64 FCVTL) quieted: h holds the binary16 bits in int32
// lanes, w the widened value; a signalling NaN (quiet bit clear, payload
// not zero) loses the quiet bit the hardware set.
func vf16Unquiet(b *vb, w, h val) val {
	nan := b.cmpgt(b.and(h, b.i32(0x7fff)), b.i32(0x7c00))
	snan := b.mand(nan, b.cmpeq(b.and(h, b.i32(0x200)), b.i32(0)))
	return b.blend(snan, b.asF32(b.andNot(b.asI32(w), b.i32(0x400000))), w)
}

// ve4m3ToF32 widens float8_e4m3fn bits (1 sign, 4 exponent bits of bias 7,
// 3 mantissa bits; no Inf; NaN only S.1111.111) exactly: normal numbers
// rebias the exponent, subnormals are their 3-bit integer times 2^-9, the
// NaN becomes float32's quiet NaN with the sign kept.
func ve4m3ToF32(b *vb, h val) val {
	sign := b.shl(b.and(h, b.i32(0x80)), 24)
	em := b.and(h, b.i32(0x7f))
	r := b.addi(b.shl(em, 20), b.i32((127-7)<<23))
	sub := b.asI32(b.mul(b.cvtif(em), b.f32(0x1p-9)))
	r = b.blend(b.cmpgt(b.i32(8), em), sub, r)
	r = b.blend(b.cmpeq(em, b.i32(0x7f)), b.i32(0x7fc00000), r)
	return b.asF32(b.or(r, sign))
}

// vf32ToFloat8 rounds x to an 8-bit float of man mantissa bits and
// exponent bias bias, to nearest even. Normal results round the float32
// bits as bfloat16 rounding does (adding half an ulp less one plus the
// lowest kept bit) and rebias the exponent; results below the smallest
// normal come from a float addition of a magic number whose ulp is the
// format's smallest subnormal (the addition rounds to nearest even, and
// the difference of the bits is the subnormal code, which continues into
// the smallest normal). Too large a result is ±Inf (float8_e5m2) or NaN
// (float8_e4m3fn, whose largest finite value is 448: beyond 464 the
// rounding reaches its NaN code). A NaN keeps its sign and, in the IEEE
// format, the top man bits of its payload (the quiet bit when they are
// zero).
func vf32ToFloat8(b *vb, x val, man, bias int, ieee bool) val {
	bits := b.asI32(x)
	sign := b.shr(b.and(bits, b.i32(math.MinInt32)), 24)
	abs := b.and(bits, b.i32(math.MaxInt32))
	sh := 23 - man
	lsb := b.and(b.shr(abs, sh), b.i32(1))
	r := b.shr(b.addi(abs, b.addi(b.i32(int32(1)<<(sh-1)-1), lsb)), sh)
	r = b.subi(r, b.i32(int32((127-bias)<<man)))
	magic := b.f32(float32(math.Ldexp(1, 24-bias-man)))
	sub := b.subi(b.asI32(b.add(b.asF32(abs), magic)), b.asI32(magic))
	minNormal := int32((127 + 1 - bias) << 23)
	r = b.blend(b.cmpgt(b.i32(minNormal), abs), sub, r)
	var nan val
	if ieee {
		inf := int32(0x7f >> man << man) // all exponent bits, mantissa 0
		r = b.blend(b.cmpgt(r, b.i32(inf-1)), b.i32(inf), r)
		payload := b.shr(b.and(abs, b.i32(0x7fffff)), sh)
		nan = b.or(payload, b.i32(inf))
		nan = b.blend(b.cmpeq(payload, b.i32(0)), b.or(nan, b.i32(1<<(man-1))), nan)
	} else {
		r = b.blend(b.cmpgt(r, b.i32(0x7e)), b.i32(0x7f), r)
		nan = b.i32(0x7f)
	}
	r = b.blend(b.isNaN(x), nan, r)
	return b.or(r, sign)
}

// vf32ToE4M3 rounds to float8_e4m3fn bits.
func vf32ToE4M3(b *vb, x val) val { return vf32ToFloat8(b, x, 3, 7, false) }

// vf32ToE5M2 rounds to float8_e5m2 bits.
func vf32ToE5M2(b *vb, x val) val { return vf32ToFloat8(b, x, 2, 15, true) }

// vf32ToInt converts to an integer type of range [lo, hi] (within int32's)
// as XLA does: toward zero, saturating at the range, NaN to 0.
func vf32ToInt(b *vb, x val, lo, hi int32) val {
	c := b.minc(b.maxc(x, b.f32(float32(lo))), b.f32(float32(hi)))
	return b.blend(b.isNaN(x), b.i32(0), b.cvtfi(c))
}
