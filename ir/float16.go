package ir

// Conversions of Float16 (IEEE 754 binary16: 1 sign, 5 exponent, 10 mantissa
// bits; largest finite 65504, smallest subnormal 2^-24).
//
// Narrowing rounds to nearest, ties to even, once, including into the
// subnormal range; values at or beyond 65520 become ±Inf. This is
// Eigen::half's float_to_half_rtne for float32 inputs. From float64 the
// rounding is direct; Eigen's half(double) constructor first rounds to float,
// which differs (double rounding) when the float64 lies within 2^-24 relative
// of a Float16 tie. NaN stays NaN with its sign and the top 10 bits of its
// payload (the quiet NaN if those are zero); widening moves the payload back
// to the top, so every Float16 round-trips bit-exactly through float32 and
// float64.

// Float16FromFloat32 rounds f to the nearest Float16 (ties to even).
func Float16FromFloat32(f float32) Float16 { return Float16(narrowF16.fromFloat32(f)) }

// Float16FromFloat64 rounds f to the nearest Float16 (ties to even), directly
// rather than through float32.
func Float16FromFloat64(f float64) Float16 { return Float16(narrowF16.fromFloat64(f)) }

// Float32 returns h's value exactly.
func (h Float16) Float32() float32 { return narrowF16.toFloat32(uint32(h)) }

// Float64 returns h's value exactly.
func (h Float16) Float64() float64 { return narrowF16.toFloat64(uint32(h)) }

// IsNaN reports whether h is a NaN.
func (h Float16) IsNaN() bool { return narrowF16.isNaN(uint32(h)) }

// IsInf reports whether h is +Inf or -Inf.
func (h Float16) IsInf() bool { return narrowF16.isInf(uint32(h)) }
