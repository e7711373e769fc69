package ir

// Conversions of the 8-bit float types, with ml_dtypes' semantics (which
// XLA's float8_e5m2 and float8_e4m3fn are).
//
// Float8E5M2: 1 sign, 5 exponent, 2 mantissa bits, IEEE-like: largest finite
// 57344, smallest subnormal 2^-16, Inf at S.11111.00, NaN at S.11111.{01,10,11}.
// Values at or beyond 61440 round to ±Inf.
//
// Float8E4M3FN: 1 sign, 4 exponent, 3 mantissa bits, no Inf: largest finite
// 448, smallest subnormal 2^-9, NaN only at S.1111.111. ml_dtypes' default
// conversion is non-saturating: a value that rounds beyond 448 (anything
// above 464; 464 itself ties to 448, whose mantissa is even) and ±Inf become
// NaN with the input's sign, and XLA's convert uses that conversion.
//
// Both round to nearest, ties to even, once (also from float64, as
// ml_dtypes' float8 constructors convert a double directly). A NaN keeps its
// sign; Float8E5M2 keeps the top 2 bits of its payload (the quiet NaN 0x7E if
// those are zero), so its NaNs 0x7D and 0x7F round-trip through float32 and
// float64 like every other value. Float8E4M3FN's NaN widens to the float
// quiet NaN.

// Float8E5M2FromFloat32 rounds f to the nearest Float8E5M2 (ties to even).
func Float8E5M2FromFloat32(f float32) Float8E5M2 { return Float8E5M2(narrowE5M2.fromFloat32(f)) }

// Float8E5M2FromFloat64 rounds f to the nearest Float8E5M2 (ties to even).
func Float8E5M2FromFloat64(f float64) Float8E5M2 { return Float8E5M2(narrowE5M2.fromFloat64(f)) }

// Float32 returns x's value exactly.
func (x Float8E5M2) Float32() float32 { return narrowE5M2.toFloat32(uint32(x)) }

// Float64 returns x's value exactly.
func (x Float8E5M2) Float64() float64 { return narrowE5M2.toFloat64(uint32(x)) }

// IsNaN reports whether x is a NaN.
func (x Float8E5M2) IsNaN() bool { return narrowE5M2.isNaN(uint32(x)) }

// IsInf reports whether x is +Inf or -Inf.
func (x Float8E5M2) IsInf() bool { return narrowE5M2.isInf(uint32(x)) }

// Float8E4M3FNFromFloat32 rounds f to the nearest Float8E4M3FN (ties to
// even); NaN, ±Inf and values beyond the finite range give NaN.
func Float8E4M3FNFromFloat32(f float32) Float8E4M3FN {
	return Float8E4M3FN(narrowE4M3FN.fromFloat32(f))
}

// Float8E4M3FNFromFloat64 rounds f to the nearest Float8E4M3FN (ties to
// even); NaN, ±Inf and values beyond the finite range give NaN.
func Float8E4M3FNFromFloat64(f float64) Float8E4M3FN {
	return Float8E4M3FN(narrowE4M3FN.fromFloat64(f))
}

// Float32 returns x's value exactly.
func (x Float8E4M3FN) Float32() float32 { return narrowE4M3FN.toFloat32(uint32(x)) }

// Float64 returns x's value exactly.
func (x Float8E4M3FN) Float64() float64 { return narrowE4M3FN.toFloat64(uint32(x)) }

// IsNaN reports whether x is the NaN (0x7F or 0xFF).
func (x Float8E4M3FN) IsNaN() bool { return narrowE4M3FN.isNaN(uint32(x)) }
