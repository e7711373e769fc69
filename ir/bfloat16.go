package ir

import "math"

// Conversions of BFloat16 (the top 16 bits of a float32: 1 sign, 8 exponent,
// 7 mantissa bits; largest finite ≈ 3.39e38).
//
// Narrowing rounds to nearest, ties to even, once, subnormals included;
// overflow gives ±Inf. From float32 this is Eigen's float_to_bfloat16_rtne
// (and ml_dtypes'). From float64 the rounding is direct; Eigen's
// bfloat16(double) constructor first rounds to float, which differs (double
// rounding) when the float64 lies within 2^-24 relative of a BFloat16 tie —
// 1 + 2^-8 + 2^-30 is 0x3F81 here and 0x3F80 through float32. NaN stays NaN
// with its sign and the top 7 bits of its payload (the quiet NaN if those are
// zero), where Eigen returns the canonical quiet NaN; widening is a shift, so
// every BFloat16 round-trips bit-exactly through float32 and float64.

// BFloat16FromFloat32 rounds f to the nearest BFloat16 (ties to even).
// It inlines: a scalar row step converts a value or two per row.
func BFloat16FromFloat32(f float32) BFloat16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		// NaN: the sign and the top 7 bits of the payload, or the quiet
		// NaN where those are zero (narrowBF16.nanWithPayload's rule).
		h := b >> 16
		if h&0x7f == 0 {
			h |= 0x40
		}
		return BFloat16(h)
	}
	// Adding 0x7fff plus the lowest kept bit rounds to nearest even; a carry
	// out of the mantissa bumps the exponent, up to Inf.
	return BFloat16((b + 0x7fff + (b>>16)&1) >> 16)
}

// BFloat16FromFloat64 rounds f to the nearest BFloat16 (ties to even),
// directly rather than through float32.
func BFloat16FromFloat64(f float64) BFloat16 { return BFloat16(narrowBF16.fromFloat64(f)) }

// Float32 returns b's value exactly.
func (b BFloat16) Float32() float32 { return math.Float32frombits(uint32(b) << 16) }

// Float64 returns b's value exactly.
func (b BFloat16) Float64() float64 { return narrowBF16.toFloat64(uint32(b)) }

// IsNaN reports whether b is a NaN.
func (b BFloat16) IsNaN() bool { return narrowBF16.isNaN(uint32(b)) }

// IsInf reports whether b is +Inf or -Inf.
func (b BFloat16) IsInf() bool { return narrowBF16.isInf(uint32(b)) }
